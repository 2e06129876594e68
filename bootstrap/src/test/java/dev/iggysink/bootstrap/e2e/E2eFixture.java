package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.bootstrap.TableSinkFiles;
import dev.iggysink.domain.naming.KeyRange;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;
import dev.iggysink.testkit.s3.MinioServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One end-to-end scene: a broker (in-JVM, or the server at IGGY_TCP_ADDRESS), a MinIO, a fresh stream and bucket,
 * a connector file pointing the sink at them, and helpers to read what landed.
 */
final class E2eFixture implements AutoCloseable {
    final IggyEndpoint iggy;
    final MinioServer minio;
    final boolean ownMinio;
    final String stream;
    final String bucket;
    final Path dir;
    final IggyProducer producer;

    E2eFixture(MinioServer minio, boolean ownMinio) throws IOException {
        this(IggyEndpoint.fromEnvOrEmbedded(), minio, ownMinio);
    }

    private E2eFixture(IggyEndpoint iggy, MinioServer minio, boolean ownMinio) throws IOException {
        this.iggy = iggy;
        this.minio = minio;
        this.ownMinio = ownMinio;
        String id = UUID.randomUUID().toString().substring(0, 8);
        this.stream = "e2e_" + id;
        this.bucket = "e2e-" + id;
        this.dir = Files.createTempDirectory("sink-e2e-");
        minio.createBucket(bucket);
        this.producer = IggyProducer.connect(iggy.host(), iggy.port());
        producer.createStreamIfMissing(stream);
    }

    static E2eFixture shared() throws IOException {
        return new E2eFixture(MinioServer.shared(), false);
    }

    /** As {@link #shared()}, on an in-JVM broker always (the test steers it: {@link IggyEndpoint#server()}). */
    static E2eFixture sharedEmbedded() throws IOException {
        return new E2eFixture(IggyEndpoint.startEmbedded(), MinioServer.shared(), false);
    }

    void topic(String topic, int partitions) {
        producer.createTopicIfMissing(stream, topic, partitions);
    }

    /** A connector file for this scene; {@code pluginExtra} adds or overrides [plugin_config] lines. */
    Path config(List<String> topics, String schema, String pluginExtra) throws IOException {
        StringBuilder topicList = new StringBuilder();
        for (String t : topics) topicList.append(topicList.length() == 0 ? "" : ", ").append('"').append(t).append('"');
        String toml = """
                type = "sink"
                key = "s3"
                enabled = true
                version = 0
                name = "S3 sink"
                path = "target/release/libiggy_connector_s3_sink"

                [iggy]
                address = "%s"
                username = "iggy"
                password = "iggy"

                [[streams]]
                stream = "%s"
                topics = [%s]
                schema = "%s"
                batch_length = 1000
                poll_interval = "5ms"
                consumer_group = "s3_sink"

                [plugin_config]
                bucket = "%s"
                region = "us-east-1"
                endpoint = "%s"
                access_key_id = "%s"
                secret_access_key = "%s"
                %s

                [admin]
                address = "off"
                """.formatted(iggy.address(), stream, topicList, schema, bucket, minio.endpoint(),
                minio.accessKey(), minio.secretKey(), withDefaults(pluginExtra));
        Path file = dir.resolve("s3_sink.toml");
        Files.writeString(file, toml, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * An Iceberg table sink connector file for this scene: one topic into {@code table} of a JDBC catalog on an SQLite
     * file in {@link #dir}, the warehouse on this MinIO bucket ({@code s3://<bucket>/warehouse}); {@code pluginExtra}
     * adds [plugin_config] lines.
     */
    Path tableConfig(String topic, String table, String group, String pluginExtra) throws IOException {
        return tableSink(topic, table, group).plugin(pluginExtra).write("iceberg_sink_" + group);
    }

    /** The file {@code f} describes, as {@code <name>.toml} in {@link #dir}. */
    private Path tableConfig(TableSinkFile f, String name) throws IOException {
        String toml = TableSinkFiles.text(
                TableSinkFiles.stream(stream, List.of(f.topic), f.group) + f.batchLength + "poll_interval = \"5ms\"\n",
                "\"" + f.table + "\"", (f.catalogLines != null ? f.catalogLines : sqliteCatalogLines()) + f.pluginExtra,
                """
                [iggy]
                address = "%s"
                username = "iggy"
                password = "iggy"

                [admin]
                address = "%s"
                """.formatted(iggy.address(), f.admin));
        Path file = dir.resolve(name + ".toml");
        Files.writeString(file, toml, StandardCharsets.UTF_8);
        return file;
    }

    /** The catalog and store lines of {@link #tableConfig}: JDBC on an SQLite file in {@link #dir}, MinIO. */
    private String sqliteCatalogLines() {
        return """
                catalog_type = "jdbc"
                uri = "jdbc:sqlite:file:%s"
                warehouse = "s3://%s/warehouse"
                store_url = "%s"
                store_access_key_id = "%s"
                store_secret_access_key = "%s"
                store_region = "us-east-1"
                """.formatted(dir.resolve("catalog.db"), bucket, minio.endpoint(), minio.accessKey(),
                minio.secretKey());
    }

    /** {@link #tableConfig}'s file, to be given another catalog, batch length or admin address before it is written. */
    TableSinkFile tableSink(String topic, String table, String group) {
        return new TableSinkFile(topic, table, group);
    }

    /** An Iceberg table sink connector file of this scene, written by {@link #write}. */
    final class TableSinkFile {
        private final String topic;
        private final String table;
        private final String group;
        private String catalogLines;
        private String batchLength = "";
        private String pluginExtra = "";
        private String admin = "off";

        private TableSinkFile(String topic, String table, String group) {
            this.topic = topic;
            this.table = table;
            this.group = group;
        }

        /** The catalog and store lines of {@code catalog} in place of the SQLite file's. */
        TableSinkFile catalog(TableCatalog catalog) {
            this.catalogLines = catalog.pluginLines();
            return this;
        }

        /** A {@code batch_length} for the stream (unset, the sink's default). */
        TableSinkFile batchLength(int records) {
            this.batchLength = "batch_length = " + records + "\n";
            return this;
        }

        /** [plugin_config] lines after the catalog's. */
        TableSinkFile plugin(String lines) {
            this.pluginExtra = lines.strip();
            return this;
        }

        /** The admin server on 127.0.0.1:{@code port} (else off). */
        TableSinkFile admin(int port) {
            this.admin = "127.0.0.1:" + port;
            return this;
        }

        /** Writes the file as {@code <name>.toml} in {@link #dir}. */
        Path write(String name) throws IOException {
            return tableConfig(this, name);
        }
    }

    /** Test defaults (fast retries, a bounded stop) for the keys the test did not set itself. */
    private static String withDefaults(String pluginExtra) {
        StringBuilder sb = new StringBuilder(pluginExtra.strip()).append('\n');
        if (!pluginExtra.contains("retry_delay")) sb.append("retry_delay = \"100ms\"\n");
        if (!pluginExtra.contains("shutdown_timeout")) sb.append("shutdown_timeout = \"20s\"\n");
        return sb.toString();
    }

    /**
     * A copy of {@code config} under another name that reaches the store at {@code endpoint} instead (an object
     * sink's {@code endpoint}, a table sink's {@code store_url}).
     */
    Path withEndpoint(Path config, java.net.URI endpoint, String name) throws IOException {
        String toml = Files.readString(config, StandardCharsets.UTF_8);
        String quoted = "\"" + minio.endpoint() + "\"";
        if (!toml.contains("endpoint = " + quoted) && !toml.contains("store_url = " + quoted)) {
            throw new IllegalStateException("no endpoint = " + quoted + " nor store_url = " + quoted + " in " + config);
        }
        Path file = dir.resolve(name + ".toml");
        Files.writeString(file, toml.replace("endpoint = " + quoted, "endpoint = \"" + endpoint + "\"")
                .replace("store_url = " + quoted, "store_url = \"" + endpoint + "\""), StandardCharsets.UTF_8);
        return file;
    }

    /** A copy of {@code config} under another name whose admin server listens on 127.0.0.1:{@code port}. */
    Path withAdmin(Path config, int port, String name) throws IOException {
        String toml = Files.readString(config, StandardCharsets.UTF_8);
        String line = "address = \"off\"";
        if (!toml.contains(line)) throw new IllegalStateException("no " + line + " in " + config);
        Path file = dir.resolve(name + ".toml");
        Files.writeString(file, toml.replace(line, "address = \"127.0.0.1:" + port + "\""), StandardCharsets.UTF_8);
        return file;
    }

    /** A loopback port that was free a moment ago. */
    static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** GET {@code path} of the admin server on {@code port}: status code and body, or null while nothing answers. */
    static java.net.http.HttpResponse<String> admin(int port, String path) {
        try {
            return HTTP.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + port + path)).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The process's {@code records_consumed} from {@code /status}; -1 while the admin server does not answer. */
    static long consumed(int port) {
        java.net.http.HttpResponse<String> r = admin(port, "/status");
        if (r == null) return -1;
        Matcher m = Pattern.compile("\"records_consumed\"\\s*:\\s*(\\d+)").matcher(r.body());
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static final java.net.http.HttpClient HTTP = java.net.http.HttpClient.newHttpClient();

    /**
     * Reads the bucket without the sink's help: every object of {@code topic}, its key parsed with
     * {@link ObjectKey#parse}, its lines read; each object must hold exactly the offsets its key names, in order, all
     * of its key's partition. Returns partition → offset → number of objects holding it.
     */
    Map<Integer, Map<Long, Integer>> copies(String topic) {
        Map<String, String> objects = new TreeMap<>();
        for (S3Object o : objects()) {
            if (o.key().startsWith(stream + "/" + topic + "/")) objects.put(o.key(), read(o.key()));
        }
        return copies(objects);
    }

    /** As {@link #copies(String)}, over objects given as key → text (from any store). */
    static Map<Integer, Map<Long, Integer>> copies(Map<String, String> objects) {
        Map<Integer, Map<Long, Integer>> out = new TreeMap<>();
        for (Map.Entry<String, String> o : objects.entrySet()) {
            Optional<KeyRange> named = ObjectKey.parse(o.getKey());
            // A first-offset key (ADR 0019) names no last offset: the lines say where it ends.
            KeyRange range = named.or(() -> ObjectKey.parseFirst(o.getKey()))
                    .orElseThrow(() -> new AssertionError("not a sink key: " + o.getKey()));
            Matcher m = LINE.matcher(o.getValue());
            long expected = range.firstOffset();
            while (m.find()) {
                long offset = Long.parseLong(m.group(1));
                int partition = Integer.parseInt(m.group(2));
                if (offset != expected || partition != range.partitionId()) {
                    throw new AssertionError(o.getKey() + " holds partition " + partition + " offset " + offset
                            + " where its key says partition " + range.partitionId() + " offset " + expected);
                }
                out.computeIfAbsent(partition, p -> new TreeMap<>()).merge(offset, 1, Integer::sum);
                expected++;
            }
            if (named.isPresent() && expected != range.lastOffset() + 1) {
                throw new AssertionError(o.getKey() + " ends at offset " + (expected - 1) + ", its key says "
                        + range.lastOffset());
            }
        }
        return out;
    }

    /**
     * Asserts where a group test ends: {@code copies} (as {@link #copies(String)} or {@link TableCatalog#copies}
     * count them) holds partitions 0 to {@code partitions}-1 and no other, each with offsets 0 to
     * {@code perPartition}-1, each once; {@code where} names the store in the messages.
     */
    static void assertEveryOffsetOnce(Map<Integer, Map<Long, Integer>> copies, String where, int partitions,
                                      long perPartition) {
        assertThat(copies.keySet()).as("partitions in the " + where)
                .containsExactlyElementsOf(IntStream.range(0, partitions).boxed().toList());
        List<Long> expected = LongStream.range(0, perPartition).boxed().toList();
        for (int p = 0; p < partitions; p++) {
            assertThat(copies.get(p).keySet()).as("offsets of partition %d", p).containsExactlyElementsOf(expected);
            int partition = p;
            assertThat(copies.get(p)).as("copies per offset of partition %d", p)
                    .allSatisfy((offset, n) -> assertThat(n).as("copies of %d/%d", partition, offset).isOne());
        }
    }

    private static final Pattern LINE = Pattern.compile(
            "^\\{\"offset\":(\\d+),.*?\"partition_id\":(\\d+),", Pattern.MULTILINE);

    Path log(String name) {
        return dir.resolve(name + ".log");
    }

    /**
     * The sink's output objects: everything but the startup probe and the claims under {@code _claims/} (each lives
     * from just before its file's upload until its commit; {@link #objectsAndClaims()} shows them).
     */
    List<S3Object> objects() {
        List<S3Object> out = objectsAndClaims();
        out.removeIf(o -> o.key().startsWith("_claims/"));
        return out;
    }

    /** The offset ranges of the objects whose keys start with {@code keysStart}, as their keys name them, in order. */
    List<String> ranges(String keysStart) {
        return objects().stream().filter(o -> o.key().startsWith(keysStart))
                .map(o -> ObjectKey.parse(o.key())).flatMap(Optional::stream)
                .sorted(java.util.Comparator.comparingLong(KeyRange::firstOffset))
                .map(r -> r.firstOffset() + "-" + r.lastOffset()).toList();
    }

    /** Every object but the startup probe, claims included. */
    List<S3Object> objectsAndClaims() {
        List<S3Object> out = new ArrayList<>();
        String token = null;
        do {
            var resp = minio.client().listObjectsV2(ListObjectsV2Request.builder().bucket(bucket)
                    .continuationToken(token).build());
            // The startup probe's object lives for a moment at the bucket root; it is not output.
            resp.contents().stream().filter(o -> !o.key().equals(".iggy-sink-probe")).forEach(out::add);
            token = resp.isTruncated() ? resp.nextContinuationToken() : null;
        } while (token != null);
        return out;
    }

    String read(String key) {
        return minio.client().getObjectAsBytes(b -> b.bucket(bucket).key(key)).asString(StandardCharsets.UTF_8);
    }

    /** Runs {@code audit} in-process; returns the exit code and output. */
    AuditResult audit(Path config) {
        return audit(config, false);
    }

    private AuditResult audit(Path config, boolean keysOnly) {
        CliResult run = keysOnly ? CliResult.run("audit", config, "--no-content") : CliResult.run("audit", config);
        return new AuditResult(run.code(), run.output());
    }

    record AuditResult(int exitCode, String output) {
    }

    /** The group's committed offset of one partition as {@code audit} reports it (MIN_VALUE when not listed). */
    long committed(Path config, int partition) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("/" + partition + ": committed=(-?\\d+) ")
                .matcher(audit(config).output());
        return m.find() ? Long.parseLong(m.group(1)) : Long.MIN_VALUE;
    }

    /**
     * Waits (polling {@code audit}) until partitions 0..{@code partitions}-1 have all committed {@code last}, or the
     * sink process has ended; the caller then asserts which of the two it was.
     */
    void awaitCommitted(Path config, int partitions, long last, SinkProcess sink, java.time.Duration atMost,
                        java.time.Duration every) {
        org.awaitility.Awaitility.await().atMost(atMost).pollInterval(every).until(() -> {
            for (int p = 0; p < partitions; p++) {
                if (committed(config, p) != last) return !sink.alive();
            }
            return true;
        });
    }

    /**
     * Every partition's committed offset from one {@code audit --no-content} (objects are not read: cheap enough to
     * poll while the sink runs).
     */
    Map<Integer, Long> committedOffsets(Path config) {
        Map<Integer, Long> out = new TreeMap<>();
        Matcher m = Pattern.compile("/(\\d+): committed=(-?\\d+) ").matcher(audit(config, true).output());
        while (m.find()) out.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
        return out;
    }

    /**
     * Asserts where a table sink's group test ends: {@code audit} of {@code config} passes, {@code table} (read by
     * {@code catalog}) holds offsets 0 to {@code perPartition}-1 of partitions 0 to {@code partitions}-1 once each,
     * and {@code group} has committed the last of them on {@code topic}.
     */
    void assertTableComplete(Path config, TableCatalog catalog, String table, String topic, String group,
                             int partitions, long perPartition) throws IOException {
        AuditResult audit = audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("AUDIT OK: every committed offset is in its tables exactly once");

        assertEveryOffsetOnce(catalog.copies(table), "table", partitions, perPartition);
        // the group's offsets as `audit` reads them, through an S3 sink file naming the same group
        Path s3 = config(List.of(topic), "json", "");
        Files.writeString(s3, Files.readString(s3).replace("consumer_group = \"s3_sink\"",
                "consumer_group = \"" + group + "\""));
        Map<Integer, Long> committed = committedOffsets(s3);
        for (int p = 0; p < partitions; p++) {
            assertThat(committed.get(p)).as("group offset of partition %d", p).isEqualTo(perPartition - 1);
        }
    }

    @Override
    public void close() {
        try {
            producer.deleteStream(stream);
        } catch (RuntimeException ignored) {
            // best effort: the broker may already be gone
        }
        producer.close();
        iggy.close();
        if (ownMinio) minio.close();
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
