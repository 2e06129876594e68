package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Iceberg table sink end to end with the fat jar: a JDBC catalog on an SQLite file, the warehouse on MinIO, the
 * table read back through Iceberg's own reader. Three members of one consumer group share the table while records
 * keep arriving; one is killed with -9 (its staged files never committed), one stops gracefully, the last one
 * finishes. Every offset must be in the table exactly once and the group's offsets at the end.
 */
class TableSinkIT extends E2eTest {
    private static final String TOPIC = "clicks";
    private static final String TABLE = "lake.clicks";
    private static final int PARTITIONS = 4;
    private static final int PER_ROUND = 20;
    private static final int MAX_ROUNDS = 400;

    private Catalog catalog;

    @BeforeEach
    void createTable() {
        // the sink names its catalog "iggy" (catalog_name): a JDBC catalog keeps its tables under that name
        catalog = CatalogUtil.buildIcebergCatalog("iggy", catalogProperties(), null);
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("lake"));
        Schema schema = new Schema(
                Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
                Types.NestedField.required(2, "iggy_partition_id", Types.IntegerType.get()),
                Types.NestedField.required(3, "iggy_timestamp", Types.TimestampType.withZone()),
                Types.NestedField.required(4, "round", Types.LongType.get()),
                Types.NestedField.optional(5, "page", Types.StringType.get()));
        catalog.createTable(TableIdentifier.parse(TABLE), schema,
                PartitionSpec.builderFor(schema).day("iggy_timestamp").build());
    }

    @AfterEach
    void closeCatalog() throws IOException {
        if (catalog instanceof java.io.Closeable c) c.close();
    }

    private Map<String, String> catalogProperties() {
        Map<String, String> p = new HashMap<>();
        p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, "jdbc");
        p.put(CatalogProperties.URI, "jdbc:sqlite:file:" + fx.dir.resolve("catalog.db"));
        p.put("jdbc.schema-version", "V1");
        p.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + fx.bucket + "/warehouse");
        p.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
        p.put("s3.endpoint", fx.minio.endpoint().toString());
        p.put("s3.path-style-access", "true");
        p.put("s3.access-key-id", fx.minio.accessKey());
        p.put("s3.secret-access-key", fx.minio.secretKey());
        p.put("client.region", "us-east-1");
        return p;
    }

    private Path config() throws IOException {
        String toml = """
                type = "sink"
                key = "lake"
                enabled = true
                version = 0
                name = "Iceberg sink"
                path = "target/release/libiggy_connector_iceberg_sink"

                [iggy]
                address = "%s"
                username = "iggy"
                password = "iggy"

                [[streams]]
                stream = "%s"
                topics = ["%s"]
                schema = "json"
                batch_length = 500
                poll_interval = "5ms"
                consumer_group = "lake_sink"

                [plugin_config]
                tables = ["%s"]
                catalog_type = "jdbc"
                uri = "jdbc:sqlite:file:%s"
                warehouse = "s3://%s/warehouse"
                store_url = "%s"
                store_access_key_id = "%s"
                store_secret_access_key = "%s"
                store_region = "us-east-1"
                store_class = "s3"
                commit_interval = "1s"
                max_messages_per_file = 60

                [admin]
                address = "off"
                """.formatted(fx.iggy.address(), fx.stream, TOPIC, TABLE, fx.dir.resolve("catalog.db"), fx.bucket,
                fx.minio.endpoint(), fx.minio.accessKey(), fx.minio.secretKey());
        Path file = fx.dir.resolve("iceberg_sink.toml");
        Files.writeString(file, toml, StandardCharsets.UTF_8);
        return file;
    }

    /** Copies of each (partition, offset) in the table, read by Iceberg's own reader. */
    private Map<Integer, Map<Long, Integer>> copies() throws IOException {
        Table table = catalog.loadTable(TableIdentifier.parse(TABLE));
        Map<Integer, Map<Long, Integer>> out = new TreeMap<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
            for (Record r : rows) {
                out.computeIfAbsent((Integer) r.getField("iggy_partition_id"), k -> new TreeMap<>())
                        .merge((Long) r.getField("iggy_offset"), 1, Integer::sum);
            }
        }
        return out;
    }

    private long rows() throws IOException {
        return copies().values().stream().mapToLong(m -> m.values().stream().mapToLong(Integer::longValue).sum()).sum();
    }

    @Test
    @Timeout(300)
    void three_members_a_kill_9_and_a_stop_leave_every_offset_in_the_table_exactly_once() throws Exception {
        fx.topic(TOPIC, PARTITIONS);
        Path config = config();
        AtomicInteger rounds = new AtomicInteger();
        AtomicBoolean enough = new AtomicBoolean();
        long perPartition;
        try (SinkProcess a = SinkProcess.run(config, fx.log("table-a"), Map.of());
             SinkProcess b = SinkProcess.run(config, fx.log("table-b"), Map.of())) {
            CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> produce(rounds, enough));
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> rows() > 0);
            try (SinkProcess c = SinkProcess.run(config, fx.log("table-c"), Map.of())) {
                awaitRounds(rounds, rounds.get() + 10);
                a.kill9();
                awaitRounds(rounds, rounds.get() + 10);
                b.terminate();
                assertThat(b.waitFor(Duration.ofSeconds(60))).as("graceful stop of b:\n%s", b.logText()).isZero();
                awaitRounds(rounds, rounds.get() + 5);
                enough.set(true);
                producing.get(60, TimeUnit.SECONDS);
                perPartition = (long) rounds.get() * PER_ROUND;
                long total = perPartition * PARTITIONS;
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                        .until(() -> rows() >= total);
                c.terminate();
                assertThat(c.waitFor(Duration.ofSeconds(60))).as("graceful stop of c:\n%s", c.logText()).isZero();
            }
        }

        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("AUDIT OK: every committed offset is in its tables exactly once");

        Map<Integer, Map<Long, Integer>> copies = copies();
        assertThat(copies.keySet()).as("partitions in the table").containsExactly(0, 1, 2, 3);
        for (int p = 0; p < PARTITIONS; p++) {
            List<Long> expected = new ArrayList<>();
            for (long o = 0; o < perPartition; o++) expected.add(o);
            assertThat(copies.get(p).keySet()).as("offsets of partition %d", p).containsExactlyElementsOf(expected);
            int partition = p;
            assertThat(copies.get(p)).as("copies per offset of partition %d", p)
                    .allSatisfy((offset, n) -> assertThat(n).as("copies of %d/%d", partition, offset).isOne());
        }
        // the group's offsets as `audit` reads them, through an S3 sink file naming the same group
        Path s3 = fx.config(List.of(TOPIC), "json", "");
        Files.writeString(s3, Files.readString(s3).replace("consumer_group = \"s3_sink\"",
                "consumer_group = \"lake_sink\""));
        Map<Integer, Long> committed = fx.committedOffsets(s3);
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(committed.get(p)).as("group offset of partition %d", p).isEqualTo(perPartition - 1);
        }
    }

    @Test
    @Timeout(120)
    void validate_accepts_the_file_and_audit_finds_a_row_another_writer_doubled() throws Exception {
        fx.topic(TOPIC, 1);
        Path config = config();
        var cl = dev.iggysink.bootstrap.TestAccess.commandLine();
        java.io.StringWriter out = new java.io.StringWriter();
        cl.setOut(new java.io.PrintWriter(out));
        cl.setErr(new java.io.PrintWriter(out));
        assertThat(cl.execute("validate", "--config", config.toString())).as(out.toString()).isZero();
        assertThat(out.toString()).contains("OK: Iceberg table sink lake");

        // a table template that cannot be built is a config error naming the entry
        Path bad = fx.dir.resolve("bad_template.toml");
        Files.writeString(bad, Files.readString(config).replace("commit_interval = \"1s\"",
                "commit_interval = \"1s\"\ncreate_tables = true\ntable_columns = [\"n long\"]\n"
                        + "partition_spec = [\"day(nowhere)\"]"));
        java.io.StringWriter badOut = new java.io.StringWriter();
        cl.setOut(new java.io.PrintWriter(badOut));
        cl.setErr(new java.io.PrintWriter(badOut));
        assertThat(cl.execute("validate", "--config", bad.toString())).as(badOut.toString()).isEqualTo(2);
        assertThat(badOut.toString()).contains("plugin_config.partition_spec[0]: no column nowhere");

        fx.producer.sendJson(fx.stream, TOPIC, 0, 30, i -> "{\"round\":0,\"page\":\"/p/" + i + "\"}");
        try (SinkProcess sink = SinkProcess.run(config, fx.log("table-audit"), Map.of())) {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> rows() >= 30);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        assertThat(fx.audit(config).exitCode()).isZero();

        // another writer appends a copy of offset 7
        Table table = catalog.loadTable(TableIdentifier.parse(TABLE));
        Record copy = org.apache.iceberg.data.GenericRecord.create(table.schema());
        copy.setField("iggy_offset", 7L);
        copy.setField("iggy_partition_id", 0);
        copy.setField("iggy_timestamp", java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC));
        copy.setField("round", 0L);
        org.apache.iceberg.PartitionKey key = new org.apache.iceberg.PartitionKey(table.spec(), table.schema());
        key.partition(new org.apache.iceberg.data.InternalRecordWrapper(table.schema().asStruct()).wrap(copy));
        String location = table.locationProvider().newDataLocation(table.spec(), key, "copy.parquet");
        org.apache.iceberg.io.DataWriter<Record> writer = org.apache.iceberg.parquet.Parquet
                .writeData(table.io().newOutputFile(location)).forTable(table).withSpec(table.spec())
                .withPartition(key).createWriterFunc(org.apache.iceberg.data.parquet.GenericParquetWriter::create)
                .overwrite().build();
        try (writer) {
            writer.write(copy);
        }
        table.newAppend().appendFile(writer.toDataFile()).commit();

        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isOne();
        assertThat(audit.output()).contains("/0 in lake.clicks: committed=29 table=29 rows=31 gaps=[] overlaps=1")
                .contains("AUDIT FAILED");
    }

    private void produce(AtomicInteger rounds, AtomicBoolean enough) {
        try {
            for (int r = 0; r < MAX_ROUNDS && !enough.get(); r++) {
                int round = r;
                for (int p = 0; p < PARTITIONS; p++) {
                    fx.producer.sendJson(fx.stream, TOPIC, p, PER_ROUND,
                            i -> "{\"round\":" + round + ",\"page\":\"/p/" + i + "\"}");
                }
                rounds.incrementAndGet();
                Thread.sleep(150);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void awaitRounds(AtomicInteger rounds, int n) {
        await().atMost(Duration.ofSeconds(60)).until(() -> rounds.get() >= n);
    }
}
