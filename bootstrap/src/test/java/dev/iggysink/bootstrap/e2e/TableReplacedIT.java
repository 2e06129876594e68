package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A table dropped and created again while the fat jar's table sink runs (JDBC on SQLite, warehouse on MinIO): the
 * sink goes on into the new table without a restart, from the group's offset, and {@code /status} says what
 * happened. Rows are read back by Iceberg's own reader.
 */
class TableReplacedIT extends SqliteTableTest {
    private static final String TOPIC = "clicks";
    private static final String TABLE = "lake.clicks";
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Override
    void createTables(TableCatalog catalog) {
        catalog.createTable(TABLE, TableCatalog.clicksSchema(), PartitionSpec.unpartitioned());
    }

    /** The table sink in {@code /status}; null while nothing answers or it is not listed yet. */
    private static JsonNode sink(int port) {
        HttpResponse<String> r = E2eFixture.admin(port, "/status");
        JsonNode sinks = r == null ? null : JSON.readTree(r.body()).get("sinks");
        return sinks == null || sinks.isEmpty() ? null : sinks.get(0);
    }

    private static JsonNode tables(int port) {
        JsonNode sink = sink(port);
        return sink == null ? null : sink.get("tables");
    }

    /** The group's offset of partition 0 as the sink's {@code /status} shows it; MIN_VALUE while not known. */
    private static long committed(int port) {
        JsonNode sink = sink(port);
        if (sink == null || sink.get("partitions") == null) return Long.MIN_VALUE;
        for (JsonNode p : sink.get("partitions")) {
            if (p.get("partition").asInt() == 0) return p.get("committed").asLong();
        }
        return Long.MIN_VALUE;
    }

    private static long replacements(int port) {
        JsonNode t = tables(port);
        return t == null || t.isNull() ? -1 : t.get("replacements").asLong();
    }

    @Test
    @Timeout(240)
    void a_table_dropped_and_created_again_takes_rows_again_from_the_groups_offset_without_a_restart()
            throws Exception {
        fx.topic(TOPIC, 1);
        int port = E2eFixture.freePort();
        Path config = fx.tableSink(TOPIC, TABLE, "lake_sink").catalog(catalog).batchLength(500).plugin("""
                commit_interval = "1s"
                """).admin(port).write("iceberg_replaced");
        fx.producer.sendJson(fx.stream, TOPIC, 0, 30, i -> "{\"round\":0,\"page\":\"/p/" + i + "\"}");
        try (SinkProcess sink = SinkProcess.run(config, fx.log("table-replaced"), Map.of())) {
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> committed(port) == 29);
            assertThat(catalog.rows(TABLE)).isEqualTo(30);

            catalog.replaceTable(TABLE, TableCatalog.clicksSchema(), PartitionSpec.unpartitioned());
            fx.producer.sendJson(fx.stream, TOPIC, 0, 30, i -> "{\"round\":1,\"page\":\"/q/" + i + "\"}");

            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> committed(port) == 59);
            assertThat(replacements(port)).as(sink.logText()).isEqualTo(1);
            String line = tables(port).get("replaced").get(0).asString();
            assertThat(line).contains("table " + TABLE + " was replaced (")
                    .contains("reading resumes from the group's offset: " + fx.stream + "/" + TOPIC + "/0 at 29");
            assertThat(sink.logText()).contains("table " + TABLE + " was replaced (");
            HttpResponse<String> health = E2eFixture.admin(port, "/health");
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);

            // rows continue in the new table, exactly once, from the group's offset on
            Map<Long, Integer> expected = new TreeMap<>();
            for (long o = 30; o < 60; o++) expected.put(o, 1);
            assertThat(catalog.copies(TABLE)).isEqualTo(Map.of(0, expected));

            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
    }

    @Test
    @Timeout(240)
    void a_partition_halted_because_its_table_was_dropped_reads_on_once_the_table_is_created_again()
            throws Exception {
        fx.topic(TOPIC, 1);
        int port = E2eFixture.freePort();
        Path config = fx.tableSink(TOPIC, TABLE, "lake_sink").catalog(catalog).batchLength(500).plugin("""
                commit_interval = "1s"
                """).admin(port).write("iceberg_dropped");
        fx.producer.sendJson(fx.stream, TOPIC, 0, 30, i -> "{\"round\":0,\"page\":\"/p/" + i + "\"}");
        try (SinkProcess sink = SinkProcess.run(config, fx.log("table-dropped"), Map.of())) {
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> committed(port) == 29);

            catalog.dropTable(TABLE);
            fx.producer.sendJson(fx.stream, TOPIC, 0, 30, i -> "{\"round\":1,\"page\":\"/q/" + i + "\"}");
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
                HttpResponse<String> health = E2eFixture.admin(port, "/health");
                return health != null && health.body().contains("was dropped from the catalog");
            });
            assertThat(committed(port)).isEqualTo(29);

            // the operator creates the table again: no restart
            catalog.createTable(TABLE, TableCatalog.clicksSchema(), PartitionSpec.unpartitioned());
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> committed(port) == 59);
            String line = tables(port).get("replaced").get(0).asString();
            assertThat(line).as(sink.logText()).contains("table " + TABLE + " exists again")
                    .contains("reading resumes from the group's offset: " + fx.stream + "/" + TOPIC + "/0 at 29");
            HttpResponse<String> health = E2eFixture.admin(port, "/health");
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);

            Map<Long, Integer> expected = new TreeMap<>();
            for (long o = 30; o < 60; o++) expected.put(o, 1);
            assertThat(catalog.copies(TABLE)).isEqualTo(Map.of(0, expected));

            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
    }
}
