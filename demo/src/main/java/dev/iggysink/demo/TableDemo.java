package dev.iggysink.demo;

import dev.iggysink.bootstrap.EmbeddedTableSink;
import dev.iggysink.testkit.iggy.EmbeddedIggyServer;
import dev.iggysink.testkit.iggy.IggyProducer;
import dev.iggysink.testkit.s3.S3ProxyServer;
import java.io.Closeable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * The table sink's demo ({@code --sink tables}): the in-JVM broker, an Iceberg JDBC catalog on an SQLite file (the
 * zero-install catalog) with its warehouse in the embedded S3 store, and the real table sink between them. What the
 * sink wrote is then read back through Iceberg's own reader, not the sink's code, and checked: every offset the
 * table's offset map claims is in the table exactly once.
 */
final class TableDemo {
    static final String TABLE = "logs.api_requests";
    static final String STREAM = "application_logs";
    static final String TOPIC = "api_requests";
    static final String GROUP = "iceberg_sink";
    private static final String OFFSETS = "iggy.offsets." + GROUP + "." + STREAM + "." + TOPIC;
    private static final Pattern ENTRY = Pattern.compile("\"(\\d+)\"\\s*:\\s*(\\d+)");
    private static final String[] METHODS = {"GET", "POST", "PUT", "DELETE"};
    private static final String[] PATHS = {"/api/users", "/api/orders", "/api/items", "/api/health"};
    private static final int ROWS_SHOWN = 3;

    private final int messages;
    private final boolean keepRunning;
    private final PrintWriter out;

    TableDemo(int messages, boolean keepRunning, PrintWriter out) {
        this.messages = messages;
        this.keepRunning = keepRunning;
        this.out = out;
    }

    /** Runs the demo in {@code base}; the exit code: 0 when the table holds every message exactly once. */
    int run(Path base) throws Exception {
        Path storeDir = Files.createDirectories(base.resolve("s3"));
        Path catalogFile = base.resolve("catalog.db");
        try (EmbeddedIggyServer broker = EmbeddedIggyServer.start();
             S3ProxyServer s3 = S3ProxyServer.onDirectory(storeDir)) {
            out.printf("Iggy broker (in-JVM, Iggy 0.8 TCP protocol): %s (user iggy / iggy)%n", broker.address());
            s3.createBucket(Demo.BUCKET);
            out.printf("S3 store (s3proxy on %s): %s bucket %s%n", storeDir, s3.endpoint(), Demo.BUCKET);
            out.printf("Iceberg catalog: JDBC on the SQLite file %s, warehouse s3://%s/warehouse%n", catalogFile,
                    Demo.BUCKET);
            produce(broker);
            Path configFile = base.resolve("iceberg_sink.toml");
            Files.writeString(configFile, connectorFile(broker.address(), catalogFile, s3.endpoint().toString(),
                    s3.accessKey(), s3.secretKey()), StandardCharsets.UTF_8);
            out.printf("Connector file: %s%n", configFile);
            out.flush();

            int exit;
            try (EmbeddedTableSink sink = EmbeddedTableSink.open(configFile, System.getenv())) {
                // Opened before the sink starts: two clients creating a new SQLite catalog's tables at once collide.
                Catalog catalog = sink.openCatalog();
                try {
                    sink.start();
                    exit = runSink(sink, catalog, broker);
                } finally {
                    // a JDBC catalog holds a connection pool, a REST one an HTTP client
                    if (catalog instanceof Closeable c) c.close();
                }
            }
            out.printf("Sink stopped %s.%n", exit == 0
                    ? "cleanly: every message read is in the table and committed" : "with problems (see the log)");
            out.flush();
            return exit;
        }
    }

    private int runSink(EmbeddedTableSink sink, Catalog catalog, EmbeddedIggyServer broker) throws Exception {
        waitUntilCommitted(sink, catalog, messages - 1);
        if (keepRunning) {
            out.printf("Running. Send more messages to %s (%s/%s); Ctrl-C stops the sink cleanly.%n",
                    broker.address(), STREAM, TOPIC);
            out.flush();
        } else {
            sink.requestStop();
        }
        int exit = sink.awaitStopped();
        if (!catalog.tableExists(TableIdentifier.parse(TABLE))) {
            out.printf("%nNo table %s: the sink did not create it (see the log).%n", TABLE);
            return exit == 0 ? 1 : exit;
        }
        boolean exactlyOnce = report(catalog.loadTable(TableIdentifier.parse(TABLE)));
        return exit == 0 && !exactlyOnce ? 1 : exit;
    }

    private void produce(EmbeddedIggyServer broker) {
        try (IggyProducer producer = IggyProducer.connect(broker.host(), broker.port())) {
            producer.createStreamIfMissing(STREAM);
            producer.createTopicIfMissing(STREAM, TOPIC, 1);
            producer.sendJson(STREAM, TOPIC, 0, messages, i -> String.format(
                    "{\"method\":\"%s\",\"path\":\"%s\",\"status\":%d}", METHODS[i % 4], PATHS[i % 4],
                    i % 10 == 9 ? 404 : 200));
        }
        out.printf("Sent %d messages to %s/%s%n", messages, STREAM, TOPIC);
    }

    /**
     * Until the table's offset map holds {@code last} for partition 0, or the sink stopped (it could not start: the
     * log says why). Bounded, so that a sink that never commits still ends in the report below.
     */
    private static void waitUntilCommitted(EmbeddedTableSink sink, Catalog catalog, long last)
            throws InterruptedException {
        TableIdentifier id = TableIdentifier.parse(TABLE);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && sink.running()) {
            if (catalog.tableExists(id)) {
                Snapshot current = catalog.loadTable(id).currentSnapshot();
                Long committed = current == null ? null : offsets(current).get(0);
                if (committed != null && committed >= last) return;
            }
            Thread.sleep(100);
        }
    }

    /** The table as Iceberg reads it: rows, snapshots with their offset maps, a few rows; true when exactly once. */
    private boolean report(Table table) throws IOException {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> read = IcebergGenerics.read(table).build()) {
            read.forEach(rows::add);
        }
        out.printf("%nTable %s (%s), read back with Iceberg's reader (IcebergGenerics): %d rows%n", TABLE,
                table.location(), rows.size());
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        out.printf("Snapshots (%d), each with the offset map it commits:%n", snapshots.size());
        for (Snapshot s : snapshots) {
            out.printf("  %d  %s  added-records=%s  %s=%s%n", s.snapshotId(), s.operation(),
                    s.summary().get("added-records"), OFFSETS, s.summary().get(OFFSETS));
        }
        out.printf("First rows:%n");
        List<Types.NestedField> columns = table.schema().columns();
        rows.stream().sorted((a, b) -> Long.compare(offset(a), offset(b))).limit(ROWS_SHOWN).forEach(r -> {
            StringBuilder line = new StringBuilder(" ");
            for (Types.NestedField c : columns) line.append(' ').append(c.name()).append('=').append(r.getField(c.name()));
            out.println(line);
        });
        Snapshot current = table.currentSnapshot();
        Map<Integer, Long> map = current == null ? Map.of() : offsets(current);
        String problem = exactlyOnce(rows, map);
        StringBuilder ranges = new StringBuilder();
        map.forEach((p, last) -> ranges.append(ranges.length() == 0 ? "" : ", ").append("partition ").append(p)
                .append(" offsets 0..").append(last));
        out.println(problem == null
                ? "Check: every offset is in the table exactly once (" + ranges + ", as the offset map says)"
                : "Check FAILED: " + problem);
        return problem == null;
    }

    /**
     * Null when, for each partition the map names, the rows hold offsets 0 to its entry, each exactly once, and no
     * other row is there; else what is wrong. Partition 0 must reach at least the last message the demo sent.
     */
    String exactlyOnce(List<Record> rows, Map<Integer, Long> map) {
        Map<Integer, Map<Long, Integer>> copies = new TreeMap<>();
        for (Record r : rows) {
            copies.computeIfAbsent((Integer) r.getField("iggy_partition_id"), p -> new TreeMap<>())
                    .merge(offset(r), 1, Integer::sum);
        }
        if (map.getOrDefault(0, -1L) < messages - 1) {
            return "the table's offset map reaches " + map.getOrDefault(0, -1L) + " for partition 0, not "
                    + (messages - 1);
        }
        if (!copies.keySet().equals(map.keySet())) {
            return "rows of partitions " + copies.keySet() + ", offset map of " + map.keySet();
        }
        for (Map.Entry<Integer, Long> e : map.entrySet()) {
            Map<Long, Integer> held = copies.get(e.getKey());
            for (long o = 0; o <= e.getValue(); o++) {
                int n = held.getOrDefault(o, 0);
                if (n != 1) return "offset " + o + " of partition " + e.getKey() + " is in the table " + n + " times";
            }
            if (held.size() != e.getValue() + 1) {
                return "partition " + e.getKey() + " has rows past the offset map's " + e.getValue();
            }
        }
        return null;
    }

    private static long offset(Record r) {
        return (Long) r.getField("iggy_offset");
    }

    /** The snapshot's offset map of the demo's topic: partition id to the last offset the table holds. */
    static Map<Integer, Long> offsets(Snapshot s) {
        Map<Integer, Long> out = new TreeMap<>();
        String value = s.summary() == null ? null : s.summary().get(OFFSETS);
        if (value == null) return out;
        Matcher m = ENTRY.matcher(value);
        while (m.find()) out.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
        return out;
    }

    /**
     * The Rust Iggy Iceberg sink's connector file, pointed at the embedded broker and store and an SQLite catalog;
     * the table is created from {@code table_columns}; a data file per 10 messages, committed as soon as it is
     * written, so that several snapshots and their offset maps show (the last partial file waits for the commit
     * interval). No admin server.
     */
    static String connectorFile(String iggyAddress, Path catalogFile, String endpoint, String accessKey,
                                String secretKey) {
        // TOML basic strings take backslashes as escapes; a literal string does not.
        return """
                type = "sink"
                key = "iceberg"
                enabled = true
                version = 0
                name = "Iceberg sink"
                path = "target/release/libiggy_connector_iceberg_sink"
                plugin_config_format = "toml"

                [iggy]
                address = "%s"
                username = "iggy"
                password = "iggy"

                [[streams]]
                stream = "%s"
                topics = ["%s"]
                schema = "json"
                batch_length = 1000
                poll_interval = "100ms"
                consumer_group = "%s"

                [plugin_config]
                tables = ["%s"]
                catalog_type = "jdbc"
                uri = 'jdbc:sqlite:file:%s'
                warehouse = "s3://%s/warehouse"
                store_url = "%s"
                store_access_key_id = "%s"
                store_secret_access_key = "%s"
                store_region = "us-east-1"
                create_tables = true
                table_columns = ["method string", "path string", "status int"]
                partition_spec = ["day(iggy_timestamp)"]
                commit_interval = "2s"
                max_messages_per_file = 10
                max_files_per_commit = 1

                [admin]
                address = "off"
                """.formatted(iggyAddress, STREAM, TOPIC, GROUP, TABLE, catalogFile.toAbsolutePath(), Demo.BUCKET,
                endpoint, accessKey, secretKey);
    }
}
