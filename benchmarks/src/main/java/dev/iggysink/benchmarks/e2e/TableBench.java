package dev.iggysink.benchmarks.e2e;

import dev.iggysink.adapters.iceberg.Apache5S3ClientFactory;
import dev.iggysink.adapters.iggy.IggyGroupOffsets;
import dev.iggysink.adapters.iggy.IggySettings;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.benchmarks.Payloads;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;
import dev.iggysink.testkit.s3.MinioServer;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * The table sink beside the object sink on the same records: one topic is filled once, then each sink jar runs
 * against it in its own consumer group (alternating, {@code --rounds} times) until the group's committed offsets
 * cover every record, and is stopped. Prints, per run, records/s and whole-process CPU per record from launch to the
 * last commit (start-up included, the same for both) and from the first commit on (the records committed after it),
 * and for the table the snapshots (commits) and data files made.
 * The object sink writes json_lines files of 8 MiB to MinIO; the table sink writes Parquet data files of the same
 * rotation into an Iceberg table (JDBC catalog on SQLite, warehouse on the same MinIO), one commit per 5 s or
 * per 16 files waiting.
 */
public final class TableBench {
    private static final String STREAM = "tbench";
    private static final String TOPIC = "events";
    private static final String BUCKET = "tbench";
    /**
     * No commit for this long (longer than the table sink's commit interval): what is left waits in open files, and
     * the sink is stopped to seal them.
     */
    private static final Duration QUIET = Duration.ofSeconds(7);

    private TableBench() {
    }

    public static int run(String[] args) throws Exception {
        int messages = 400_000;
        int size = 1024;
        int partitions = 8;
        int rounds = 2;
        String sinkJar = null;
        Duration idle = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--idle" -> idle = Duration.ofSeconds(Long.parseLong(args[++i]));
                case "--messages" -> messages = Integer.parseInt(args[++i]);
                case "--size" -> size = (int) Sizes.parse(args[++i]);
                case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--sink-jar" -> sinkJar = args[++i];
                case "--smoke" -> {
                    messages = 20_000;
                    rounds = 1;
                }
                default -> {
                    System.err.println("tables: unknown option " + args[i]);
                    return 2;
                }
            }
        }
        Path jar = Path.of(sinkJar != null ? sinkJar : "bootstrap/target/iggy-s3-sink.jar");
        Path runDir = Path.of("bench-results", "runs", "tables-" + Instant.now().getEpochSecond());
        Files.createDirectories(runDir);
        if (idle != null) return idle(jar, runDir, partitions, idle) ? 0 : 1;
        System.out.printf("== tables: %,d x %d B JSON, %d partitions, %d round(s) of object sink then table sink%n",
                messages, size, partitions, rounds);
        try (IggyEndpoint iggy = IggyEndpoint.fromEnvOrEmbedded(); MinioServer minio = MinioServer.start()) {
            minio.createBucket(BUCKET);
            long[] perPartition = produce(iggy, messages, size, partitions);
            for (int r = 1; r <= rounds; r++) {
                for (boolean table : new boolean[] {false, true}) {
                    String name = (table ? "table" : "object") + "-r" + r;
                    Path config = runDir.resolve(name + ".toml");
                    Catalog catalog = null;
                    try {
                        if (table) catalog = createTable(minio, runDir, "r" + r);
                        Files.writeString(config, table ? tableToml(iggy, minio, runDir, r) : objectToml(iggy, minio,
                                r), StandardCharsets.UTF_8);
                        if (!runOne(name, jar, config, runDir, iggy, perPartition, messages, catalog, "bench.events_r"
                                + r)) {
                            return 1;
                        }
                    } finally {
                        if (catalog instanceof Closeable c) c.close();
                    }
                }
            }
        }
        return 0;
    }

    private static boolean runOne(String name, Path jar, Path config, Path runDir, IggyEndpoint iggy,
                                  long[] perPartition, int messages, Catalog catalog, String tableName)
            throws Exception {
        String group = name.startsWith("table") ? "tables_table_" + name : "tables_object_" + name;
        IggySettings settings = new IggySettings(iggy.host(), iggy.port(), "iggy", Secret.of("iggy"),
                Optional.empty(), false, Optional.empty(), Optional.empty());
        long launch = System.nanoTime();
        try (SinkChild sink = SinkChild.start(null, jar, config, runDir.resolve(name + ".log"),
                runDir.resolve(name + "-gc.log"), List.of("-Xmx1g"), null, 0);
             IggyGroupOffsets offsets = new IggyGroupOffsets(settings, STREAM, TOPIC, group, Duration.ofSeconds(10))) {
            long cpu = -1;
            long end = -1;
            long peakRss = -1;
            long deadline = launch + Duration.ofMinutes(10).toNanos();
            long lastSum = Long.MIN_VALUE;
            long quietSince = System.nanoTime();
            boolean stopped = false;
            long firstAt = -1;
            long firstCpu = -1;
            long firstCommitted = 0;
            while (System.nanoTime() < deadline) {
                long c = sink.cpuTicks();
                if (c >= 0) cpu = c;
                long rss = sink.procKib("VmHWM");
                if (rss > 0) peakRss = rss;
                long sum = committedSum(offsets, perPartition.length);
                if (firstAt < 0 && sum > -perPartition.length) {
                    firstAt = System.nanoTime();
                    firstCpu = c;
                    firstCommitted = sum + perPartition.length;
                }
                if (covered(offsets, perPartition)) {
                    end = System.nanoTime();
                    break;
                }
                if (sum != lastSum) {
                    lastSum = sum;
                    quietSince = System.nanoTime();
                } else if (!stopped && sum > -perPartition.length && System.nanoTime() - quietSince > QUIET.toNanos()) {
                    // What is left is in open files that no size limit closes: a stop seals and commits them (both
                    // sinks alike), as the object sink's bench does.
                    sink.terminate();
                    stopped = true;
                }
                if (!sink.alive()) {
                    if (covered(offsets, perPartition)) end = System.nanoTime();
                    break;
                }
                Thread.sleep(50);
            }
            if (end > 0 && stopped) end -= QUIET.toNanos(); // the wait for quiet is the bench's, not the sink's
            sink.terminate();
            int exit = sink.waitFor(Duration.ofSeconds(60));
            if (end < 0) {
                System.out.printf("%s: not every record was committed (exit %d); see %s%n", name, exit,
                        runDir.resolve(name + ".log"));
                return false;
            }
            double seconds = (end - launch) / 1e9;
            double cpuSeconds = cpu / (double) SinkChild.clockTicksPerSecond();
            double warmSeconds = (end - firstAt) / 1e9;
            double warmCpu = (cpu - firstCpu) / (double) SinkChild.clockTicksPerSecond();
            long warmRecords = messages - firstCommitted;
            StringBuilder line = new StringBuilder();
            line.append(String.format("%-10s %,9.0f records/s  %6.2f us CPU/record  (%.1f s, %.1f s CPU from launch);"
                    + " after the first commit %,9.0f records/s  %6.2f us CPU/record; peak RSS %d MiB, stop needed: %s,"
                    + " exit %d", name, messages / seconds, cpuSeconds * 1e6 / messages, seconds, cpuSeconds,
                    warmRecords / warmSeconds, warmCpu * 1e6 / warmRecords, peakRss / 1024, stopped, exit));
            if (catalog != null) {
                Table t = catalog.loadTable(TableIdentifier.parse(tableName));
                int snapshots = 0;
                for (Snapshot ignored : t.snapshots()) snapshots++;
                long files = Long.parseLong(t.currentSnapshot().summary().getOrDefault("total-data-files", "0"));
                long bytes = Long.parseLong(t.currentSnapshot().summary().getOrDefault("total-files-size", "0"));
                line.append(String.format("  commits %d, data files %d, %.1f MB Parquet", snapshots, files,
                        bytes / 1e6));
            }
            System.out.println(line);
            return true;
        }
    }

    /**
     * {@code --idle S}: the table sink's CPU while its partitions stay empty (the default 5 ms poll_interval): one
     * record per partition is committed first, then the sink's CPU is read over {@code S} seconds and printed as a
     * share of one core.
     */
    private static boolean idle(Path jar, Path runDir, int partitions, Duration span) throws Exception {
        try (IggyEndpoint iggy = IggyEndpoint.fromEnvOrEmbedded(); MinioServer minio = MinioServer.start()) {
            minio.createBucket(BUCKET);
            long[] perPartition = produce(iggy, partitions, 64, partitions);
            Catalog catalog = createTable(minio, runDir, "r1");
            try {
                Path config = runDir.resolve("idle.toml");
                Files.writeString(config, tableToml(iggy, minio, runDir, 1), StandardCharsets.UTF_8);
                IggySettings settings = new IggySettings(iggy.host(), iggy.port(), "iggy", Secret.of("iggy"),
                        Optional.empty(), false, Optional.empty(), Optional.empty());
                try (SinkChild sink = SinkChild.start(null, jar, config, runDir.resolve("idle.log"),
                        runDir.resolve("idle-gc.log"), List.of(), null, 0);
                     IggyGroupOffsets offsets = new IggyGroupOffsets(settings, STREAM, TOPIC,
                             "tables_table_table-r1", Duration.ofSeconds(10))) {
                    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
                    while (!covered(offsets, perPartition)) {
                        if (!sink.alive() || System.nanoTime() > deadline) {
                            System.out.printf("idle: the first records were not committed; see %s%n",
                                    runDir.resolve("idle.log"));
                            return false;
                        }
                        Thread.sleep(100);
                    }
                    Thread.sleep(5_000); // past the next commit interval and the JIT's first compilations
                    long from = sink.cpuTicks();
                    long started = System.nanoTime();
                    Thread.sleep(span.toMillis());
                    long ticks = sink.cpuTicks() - from;
                    double seconds = (System.nanoTime() - started) / 1e9;
                    System.out.printf("idle table sink, %d empty partitions, %s: %.1f%% of a core over %.0f s%n",
                            partitions, jar, 100.0 * ticks / SinkChild.clockTicksPerSecond() / seconds, seconds);
                    sink.terminate();
                    sink.waitFor(Duration.ofSeconds(60));
                    return true;
                }
            } finally {
                if (catalog instanceof Closeable c) c.close();
            }
        }
    }

    private static long committedSum(IggyGroupOffsets offsets, int partitions) throws Exception {
        long sum = 0;
        for (int p = 0; p < partitions; p++) {
            sum += offsets.committedOffset(new PartitionRef(STREAM, TOPIC, p)).orElse(-1);
        }
        return sum;
    }

    private static boolean covered(IggyGroupOffsets offsets, long[] perPartition) throws Exception {
        for (int p = 0; p < perPartition.length; p++) {
            OptionalLong c = offsets.committedOffset(new PartitionRef(STREAM, TOPIC, p));
            if (c.isEmpty() || c.getAsLong() < perPartition[p] - 1) return false;
        }
        return true;
    }

    private static long[] produce(IggyEndpoint iggy, int messages, int size, int partitions) {
        long[] perPartition = new long[partitions];
        try (IggyProducer producer = IggyProducer.connect(iggy.host(), iggy.port())) {
            producer.deleteStream(STREAM);
            producer.createStreamIfMissing(STREAM);
            producer.createTopicIfMissing(STREAM, TOPIC, partitions);
            int batch = Math.max(1, Math.min(1000, (1 << 20) / size));
            for (int p = 0; p < partitions; p++) {
                perPartition[p] = messages / partitions + (p < messages % partitions ? 1 : 0);
                List<byte[]> payloads = new ArrayList<>(batch);
                for (long i = 0; i < perPartition[p]; i++) {
                    payloads.add(Payloads.json(i * partitions + p, size));
                    if (payloads.size() == batch) {
                        producer.send(STREAM, TOPIC, p, payloads);
                        payloads = new ArrayList<>(batch);
                    }
                }
                if (!payloads.isEmpty()) producer.send(STREAM, TOPIC, p, payloads);
            }
        }
        return perPartition;
    }

    private static Map<String, String> catalogProperties(MinioServer minio, Path runDir) {
        Map<String, String> p = new HashMap<>();
        p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, "jdbc");
        p.put(CatalogProperties.URI, "jdbc:sqlite:file:" + runDir.toAbsolutePath().resolve("catalog.db"));
        p.put("jdbc.schema-version", "V1");
        p.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + BUCKET + "/warehouse");
        p.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
        p.put("s3.endpoint", minio.endpoint().toString());
        p.put("s3.path-style-access", "true");
        p.put("s3.access-key-id", minio.accessKey());
        p.put("s3.secret-access-key", minio.secretKey());
        p.put("client.region", minio.region());
        // Iceberg's default S3 client factory wants the SDK's Apache 4 client, which the build bans.
        p.putAll(Apache5S3ClientFactory.catalogProperties());
        return p;
    }

    private static Catalog createTable(MinioServer minio, Path runDir, String suffix) {
        Catalog catalog = CatalogUtil.buildIcebergCatalog("iggy", catalogProperties(minio, runDir), null);
        Namespace ns = Namespace.of("bench");
        if (!((SupportsNamespaces) catalog).namespaceExists(ns)) ((SupportsNamespaces) catalog).createNamespace(ns);
        Schema schema = new Schema(
                Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
                Types.NestedField.required(2, "iggy_partition_id", Types.IntegerType.get()),
                Types.NestedField.required(3, "iggy_timestamp", Types.TimestampType.withZone()),
                Types.NestedField.required(4, "id", Types.LongType.get()),
                Types.NestedField.optional(5, "level", Types.StringType.get()),
                Types.NestedField.optional(6, "user", Types.StringType.get()),
                Types.NestedField.optional(7, "latency_ms", Types.DoubleType.get()),
                Types.NestedField.optional(8, "msg", Types.StringType.get()));
        catalog.createTable(TableIdentifier.of(ns, "events_" + suffix), schema,
                PartitionSpec.builderFor(schema).day("iggy_timestamp").build());
        return catalog;
    }

    private static String head(IggyEndpoint iggy, String key, String group) {
        return """
                type = "sink"
                key = "%s"
                enabled = true
                version = 0
                name = "%s"
                path = "%s"

                [iggy]
                address = "%s"
                username = "iggy"
                password = "iggy"

                [[streams]]
                stream = "%s"
                topics = ["%s"]
                schema = "json"
                batch_length = 1000
                poll_interval = "5ms"
                consumer_group = "%s"

                """.formatted(key, key, key.equals("table") ? "libiggy_connector_iceberg_sink"
                : "libiggy_connector_s3_sink", iggy.address(), STREAM, TOPIC, group);
    }

    private static String objectToml(IggyEndpoint iggy, MinioServer minio, int round) {
        return head(iggy, "object", "tables_object_object-r" + round) + """
                [plugin_config]
                bucket = "%s"
                prefix = "object-r%d"
                region = "%s"
                endpoint = "%s"
                access_key_id = "%s"
                secret_access_key = "%s"
                path_style = true
                file_rotation = "size"
                max_file_size = "8MiB"

                [admin]
                address = "off"
                """.formatted(BUCKET, round, minio.region(), minio.endpoint(), minio.accessKey(), minio.secretKey());
    }

    private static String tableToml(IggyEndpoint iggy, MinioServer minio, Path runDir, int round) {
        return head(iggy, "table", "tables_table_table-r" + round) + """
                [plugin_config]
                tables = ["bench.events_r%d"]
                catalog_type = "jdbc"
                uri = "jdbc:sqlite:file:%s"
                warehouse = "s3://%s/warehouse"
                store_url = "%s"
                store_access_key_id = "%s"
                store_secret_access_key = "%s"
                store_region = "%s"
                commit_interval = "5s"
                max_files_per_commit = 16
                max_file_size = "8MiB"

                [admin]
                address = "off"
                """.formatted(round, runDir.toAbsolutePath().resolve("catalog.db"), BUCKET, minio.endpoint(),
                minio.accessKey(), minio.secretKey(), minio.region());
    }
}
