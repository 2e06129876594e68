package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Iceberg table sink end to end with the fat jar: a JDBC catalog on an SQLite file, the warehouse on MinIO, the
 * table read back through Iceberg's own reader. Three members of one consumer group share the table while records
 * keep arriving; one is killed with -9 (its staged files never committed), one stops gracefully, the last one
 * finishes. Every offset must be in the table exactly once and the group's offsets at the end.
 */
class TableSinkIT extends SqliteTableTest {
    private static final String TOPIC = "clicks";
    private static final String TABLE = "lake.clicks";
    private static final int PARTITIONS = 4;
    private static final int PER_ROUND = 20;
    private static final int MAX_ROUNDS = 400;

    @Override
    void createTables(TableCatalog catalog) {
        catalog.createTable(TABLE, TableCatalog.clicksSchema());
    }

    private Path config() throws IOException {
        return fx.tableSink(TOPIC, TABLE, "lake_sink").catalog(catalog).batchLength(500).plugin("""
                commit_interval = "1s"
                max_messages_per_file = 60
                """).write("iceberg_sink");
    }

    private long rows() throws IOException {
        return catalog.rows(TABLE);
    }

    @Test
    @Timeout(300)
    void three_members_a_kill_9_and_a_stop_leave_every_offset_in_the_table_exactly_once() throws Exception {
        fx.topic(TOPIC, PARTITIONS);
        Path config = config();
        long perPartition;
        try (SinkProcess a = SinkProcess.run(config, fx.log("table-a"), Map.of());
             SinkProcess b = SinkProcess.run(config, fx.log("table-b"), Map.of())) {
            Rounds rounds = Rounds.start(fx, TOPIC, PARTITIONS, PER_ROUND, MAX_ROUNDS, Rounds.PAGES);
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> rows() > 0);
            try (SinkProcess c = SinkProcess.run(config, fx.log("table-c"), Map.of())) {
                rounds.awaitMore(10);
                a.kill9();
                rounds.awaitMore(10);
                b.terminate();
                assertThat(b.waitFor(Duration.ofSeconds(60))).as("graceful stop of b:\n%s", b.logText()).isZero();
                rounds.awaitMore(5);
                perPartition = rounds.finish();
                long total = perPartition * PARTITIONS;
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                        .until(() -> rows() >= total);
                c.terminate();
                assertThat(c.waitFor(Duration.ofSeconds(60))).as("graceful stop of c:\n%s", c.logText()).isZero();
            }
        }

        fx.assertTableComplete(config, catalog, TABLE, TOPIC, "lake_sink", PARTITIONS, perPartition);
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
        E2eFixture.AuditResult clean = fx.audit(config);
        assertThat(clean.exitCode()).as(clean.output()).isZero();
        // the table's watermark (issue 44): every row the sink committed is stamped before it or at it
        java.util.regex.Matcher watermark = java.util.regex.Pattern
                .compile("/" + TOPIC + " in " + TABLE + ": watermark=(\\S+) ").matcher(clean.output());
        assertThat(watermark.find()).as(clean.output()).isTrue();
        java.time.Instant before = java.time.Instant.parse(watermark.group(1));
        long rowsRead = 0;
        try (var read = org.apache.iceberg.data.IcebergGenerics.read(catalog.table(TABLE)).build()) {
            for (Record r : read) {
                rowsRead++;
                assertThat(((java.time.OffsetDateTime) r.getField("iggy_timestamp")).toInstant())
                        .as("row at offset %s", r.getField("iggy_offset")).isBeforeOrEqualTo(before);
            }
        }
        assertThat(rowsRead).isEqualTo(30);

        // another writer appends a copy of offset 7
        Table table = catalog.table(TABLE);
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
}
