package dev.iggysink.demo;

import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.bootstrap.EmbeddedSink;
import dev.iggysink.bootstrap.NettyDefaults;
import dev.iggysink.testkit.iggy.EmbeddedIggyServer;
import dev.iggysink.testkit.iggy.IggyProducer;
import dev.iggysink.testkit.s3.S3ProxyServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The whole pipeline on one machine with nothing installed: the in-JVM Iggy broker, an embedded S3-compatible store
 * (s3proxy on a local directory), the example streams and connector file, and the real sink between them, with its
 * admin server on a free loopback port.
 */
@Command(name = "iggy-s3-sink-demo", mixinStandardHelpOptions = true, versionProvider = Demo.Version.class,
        description = "Run the whole pipeline locally: embedded Iggy broker, embedded S3 store, sample messages.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every message read is in the store (or table) and committed",
                "1:stopped with data not yet durable (see the log)", "2:bad option"})
public final class Demo implements Callable<Integer> {
    static final String BUCKET = "my-data-lake";
    private static final String[] METHODS = {"GET", "POST", "PUT", "DELETE"};
    private static final String[] PATHS = {"/api/users", "/api/orders", "/api/items", "/api/health"};

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--messages", defaultValue = "25", paramLabel = "N",
            description = "messages per topic, at least 1 (default ${DEFAULT-VALUE})")
    int messages;

    @Option(names = "--dir", paramLabel = "D", description = "where the embedded store keeps its files (default: a temp dir)")
    Path dir;

    @Option(names = "--keep-running", description = "leave broker, store and sink up until Ctrl-C")
    boolean keepRunning;

    /** The two kinds of store the sink can write to, picked in the connector file alone. */
    enum StoreKind { s3, filesystem }

    @Option(names = "--store", defaultValue = "s3", paramLabel = "KIND",
            description = "s3: an embedded S3-compatible store (s3proxy); filesystem: plain files in a directory"
                    + " (storage_client = \"filesystem\") (default ${DEFAULT-VALUE})")
    StoreKind store;

    /** What the sink writes: objects (the S3 sink) or an Iceberg table (the table sink). */
    enum SinkKind { objects, tables }

    @Option(names = "--sink", defaultValue = "objects", paramLabel = "KIND",
            description = "objects: files in the store (the S3 sink); tables: an Apache Iceberg table (JDBC catalog on"
                    + " an SQLite file, warehouse in the embedded S3 store), read back with Iceberg's reader"
                    + " (default ${DEFAULT-VALUE})")
    SinkKind sink;

    public static void main(String[] args) {
        NettyDefaults.apply();
        System.exit(new CommandLine(new Demo()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (messages < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--messages must be at least 1, got " + messages);
        }
        if (sink == SinkKind.tables && store == StoreKind.filesystem) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--sink tables keeps its warehouse in the embedded S3 store; --store filesystem is for objects");
        }
        PrintWriter out = spec.commandLine().getOut();
        Path base = dir != null ? dir : Files.createTempDirectory("iggy-s3-sink-demo");
        if (sink == SinkKind.tables) return new TableDemo(messages, keepRunning, out).run(base);
        boolean filesystem = store == StoreKind.filesystem;
        Path storeDir = Files.createDirectories(base.resolve(filesystem ? "lake" : "s3"));
        // A null resource is skipped: the filesystem store needs no server.
        try (EmbeddedIggyServer broker = EmbeddedIggyServer.start();
             S3ProxyServer s3 = filesystem ? null : S3ProxyServer.onDirectory(storeDir)) {
            out.printf("Iggy broker (in-JVM, Iggy 0.8 TCP protocol): %s (user iggy / iggy)%n", broker.address());
            String adminAddress = "127.0.0.1:" + freePort();
            String connector;
            if (s3 != null) {
                s3.createBucket(BUCKET);
                out.printf("S3 store (s3proxy on %s): %s bucket %s%n", storeDir, s3.endpoint(), BUCKET);
                connector = connectorFile(broker.address(), s3.endpoint().toString(), s3.accessKey(),
                        s3.secretKey(), adminAddress);
            } else {
                out.printf("Store: the directory %s (storage_client = \"filesystem\")%n", storeDir);
                connector = connectorFileForDirectory(broker.address(), storeDir, adminAddress);
            }
            produce(broker);
            Path configFile = base.resolve("s3_sink.toml");
            Files.writeString(configFile, connector, StandardCharsets.UTF_8);
            out.printf("Connector file: %s%n", configFile);
            out.flush();

            try (EmbeddedSink sink = EmbeddedSink.start(configFile, System.getenv())) {
                sink.adminUrl().ifPresent(url -> out.printf(
                        "Admin server: %s (GET %s/health, /status, /metrics; POST /flush, /pause, /resume)%n",
                        url, url));
                out.flush();
                waitUntilRead(sink, messages);
                if (keepRunning) {
                    out.printf("Running. Send more messages to %s; Ctrl-C stops the sink cleanly.%n",
                            broker.address());
                    out.flush();
                } else {
                    sink.requestStop();
                }
                boolean clean = sink.awaitStopped();
                printObjects(out, sink.store(), filesystem ? "the directory " + storeDir : "s3://" + BUCKET);
                out.printf("Sink stopped %s.%n", clean ? "cleanly: every message read is in the store and committed"
                        : "with problems (see the log)");
                out.flush();
                return clean ? 0 : 1;
            }
        }
    }

    private void produce(EmbeddedIggyServer broker) throws Exception {
        try (IggyProducer producer = IggyProducer.connect(broker.host(), broker.port())) {
            producer.createStreamIfMissing("application_logs");
            producer.createTopicIfMissing("application_logs", "api_requests", 1);
            producer.createTopicIfMissing("application_logs", "errors", 1);
            producer.sendJson("application_logs", "api_requests", 0, messages, i -> String.format(
                    "{\"method\":\"%s\",\"path\":\"%s\",\"status\":%d}", METHODS[i % 4], PATHS[i % 4],
                    i % 10 == 9 ? 404 : 200));
            producer.sendJson("application_logs", "errors", 0, messages, i -> String.format(
                    "{\"level\":\"error\",\"message\":\"request %d failed\",\"code\":%d}", i, 500 + i % 4));
        }
    }

    /** The config refuses port 0 (a sink must be found at a known port), so the demo asks the OS for a free one. */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void waitUntilRead(EmbeddedSink sink, int perTopic) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            List<PartitionStatus> parts = sink.partitions();
            if (parts.size() == 2 && parts.stream().allMatch(p -> p.position() >= perTopic)) return;
            Thread.sleep(50);
        }
    }

    private static void printObjects(PrintWriter out, ObjectStore store, String where) throws Exception {
        List<StoredObject> objects = store.list("");
        out.printf("%nObjects in %s (%d):%n", where, objects.size());
        for (StoredObject o : objects) out.printf("  %s  (%d bytes)%n", o.key(), o.size());
        if (!objects.isEmpty()) {
            StoredObject first = objects.get(0);
            String text = new String(store.get(first.key()), StandardCharsets.UTF_8);
            out.printf("%nFirst lines of %s:%n", first.key());
            text.lines().limit(3).forEach(l -> out.println("  " + l));
        }
    }

    /**
     * The example connector file of the README (the Rust sink's), pointed at the embedded store; ten messages per
     * file so rotation shows; the admin server on the given loopback address.
     */
    static String connectorFile(String iggyAddress, String endpoint, String accessKey, String secretKey,
                                String adminAddress) {
        return connector(iggyAddress, """
                bucket = "%s"
                region = "us-east-1"
                endpoint = "%s"
                access_key_id = "%s"
                secret_access_key = "%s"
                """.formatted(BUCKET, endpoint, accessKey, secretKey), adminAddress);
    }

    /** The same file writing into a directory: only the store's lines differ. */
    static String connectorFileForDirectory(String iggyAddress, Path directory, String adminAddress) {
        // TOML basic strings take backslashes as escapes; a literal string does not.
        return connector(iggyAddress, """
                storage_client = "filesystem"
                directory = '%s'
                """.formatted(directory.toAbsolutePath()), adminAddress);
    }

    private static String connector(String iggyAddress, String storeLines, String adminAddress) {
        return """
                type = "sink"
                key = "s3"
                enabled = true
                version = 0
                name = "S3 sink"
                path = "target/release/libiggy_connector_s3_sink"
                plugin_config_format = "toml"

                [iggy]
                address = "%s"
                username = "iggy"
                password = "iggy"

                [[streams]]
                stream = "application_logs"
                topics = ["api_requests", "errors"]
                schema = "json"
                batch_length = 1000
                poll_interval = "100ms"
                consumer_group = "s3_sink"

                [plugin_config]
                %sprefix = "iggy/raw"
                path_template = "{stream}/{topic}/{date}/{hour}"
                file_rotation = "messages"
                max_messages_per_file = 10
                output_format = "json_lines"

                [admin]
                address = "%s"
                """.formatted(iggyAddress, storeLines, adminAddress);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Demo.class.getPackage().getImplementationVersion();
            return new String[] {"iggy-s3-sink-demo " + (v == null ? "dev" : v)};
        }
    }
}
