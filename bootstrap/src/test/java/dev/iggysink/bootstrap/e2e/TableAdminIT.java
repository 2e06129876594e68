package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The admin server of a running Iceberg table sink (fat jar, SQLite catalog, warehouse on MinIO): {@code /status}
 * and {@code /metrics} follow the commits and the lag while records flow, pause/flush/resume act on the loops, and a
 * bad record under {@code errors_tolerance = none} halts its partition and fails {@code /health}.
 */
class TableAdminIT extends SqliteTableTest {
    private static final String TOPIC = "orders";
    private static final String TABLE = "lake.orders";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Override
    void createTables(TableCatalog catalog) {
        catalog.createTable(TABLE, new Schema(
                Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
                Types.NestedField.required(2, "iggy_partition_id", Types.IntegerType.get()),
                Types.NestedField.required(3, "iggy_timestamp", Types.TimestampType.withZone()),
                Types.NestedField.required(4, "amount", Types.LongType.get())), PartitionSpec.unpartitioned());
    }

    private Path config(int port) throws IOException {
        return fx.tableSink(TOPIC, TABLE, "lake_sink").catalog(catalog).batchLength(500).plugin("""
                commit_interval = "1s"
                errors_tolerance = "none"
                """).admin(port).write("iceberg_admin");
    }

    /** The table sink in {@code /status}; null while nothing answers. */
    private static JsonNode sink(int port) {
        HttpResponse<String> r = E2eFixture.admin(port, "/status");
        return r == null ? null : JSON.readTree(r.body()).get("sinks").get(0);
    }

    private static JsonNode partition(int port, int id) {
        JsonNode sink = sink(port);
        if (sink == null) return null;
        for (JsonNode p : sink.get("partitions")) if (p.get("partition").asInt() == id) return p;
        return null;
    }

    private static long lag(int port, int id) {
        JsonNode p = partition(port, id);
        return p == null ? -1 : p.get("lag").asLong();
    }

    private static long tableTotal(int port, String field) {
        JsonNode sink = sink(port);
        return sink == null ? -1 : sink.get("tables").get(field).asLong();
    }

    /** The sum of a Prometheus series whose labels include {@code sink="lake"} and {@code extra}. */
    private static double metric(int port, String name, String extra) {
        HttpResponse<String> r = E2eFixture.admin(port, "/metrics");
        if (r == null) return -1;
        double sum = 0;
        boolean found = false;
        Matcher m = Pattern.compile("(?m)^" + name + "\\{([^}]*)\\} (\\S+)$").matcher(r.body());
        while (m.find()) {
            if (!m.group(1).contains("sink=\"lake\"") || !m.group(1).contains(extra)) continue;
            sum += Double.parseDouble(m.group(2));
            found = true;
        }
        return found ? sum : -1;
    }

    private static HttpResponse<String> post(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @Timeout(240)
    void status_and_metrics_follow_the_commits_and_the_lag_and_a_bad_record_fails_health() throws Exception {
        fx.topic(TOPIC, 2);
        int port = E2eFixture.freePort();
        Path config = config(port);
        for (int p = 0; p < 2; p++) fx.producer.sendJson(fx.stream, TOPIC, p, 50, i -> "{\"amount\":" + i + "}");
        try (SinkProcess sink = SinkProcess.run(config, fx.log("table-admin"), Map.of())) {
            // every record committed to the table and to the group; the lag, read from Iggy every 5 s, drops to 0
            await().atMost(WAIT).pollInterval(Duration.ofMillis(250))
                    .until(() -> tableTotal(port, "rows_committed") == 100);
            await().atMost(WAIT).pollInterval(Duration.ofMillis(250))
                    .until(() -> lag(port, 0) == 0 && lag(port, 1) == 0);
            JsonNode status = sink(port);
            assertThat(status.get("kind").asString()).isEqualTo("table");
            assertThat(status.get("status").asString()).isEqualTo("ok");
            JsonNode tables = status.get("tables");
            assertThat(tables.get("commits").asLong()).isPositive();
            assertThat(tables.get("data_files").asLong()).isPositive();
            assertThat(tables.get("failed_commits").asLong()).isZero();
            assertThat(tables.get("last_commit_millis").isNull()).isFalse();
            for (JsonNode lane : tables.get("lanes")) {
                assertThat(lane.get("table").asString()).isEqualTo(TABLE);
                assertThat(lane.get("table_offset").asLong()).isEqualTo(49);
                assertThat(lane.get("group_offset").asLong()).isEqualTo(49);
                assertThat(lane.get("end_offset").asLong()).isEqualTo(49);
            }
            assertThat(partition(port, 0).get("committed").asLong()).isEqualTo(49);
            assertThat(E2eFixture.admin(port, "/health").statusCode()).isEqualTo(200);
            // the self-audit (on by default) reads the table's map and rows back and finds both partitions whole
            await().atMost(WAIT).pollInterval(Duration.ofMillis(250))
                    .until(() -> sink(port).get("self_audit").get("covered").size() == 2);
            JsonNode audit = sink(port).get("self_audit");
            assertThat(audit.get("problems").size()).isZero();
            assertThat(audit.get("objects_verified").asLong()).isPositive();
            assertThat(E2eFixture.admin(port, "/health").statusCode()).isEqualTo(200);
            assertThat(metric(port, "iggysink_audit_rounds_total", "")).isPositive();

            assertThat(metric(port, "iggysink_table_commits_total", "")).isPositive();
            assertThat(metric(port, "iggysink_table_rows_total", "")).isEqualTo(100);
            assertThat(metric(port, "iggysink_table_commit_duration_seconds_count", "")).isPositive();
            assertThat(metric(port, "iggysink_table_offset", "partition=\"1\"")).isEqualTo(49);
            assertThat(metric(port, "iggysink_lag_records", "partition=\"0\"")).isZero();
            assertThat(metric(port, "iggysink_consumed_records_total", "")).isEqualTo(100);
            assertThat(metric(port, "iggysink_health", "")).isZero();
            // Every table metric docs/tables.md names (the README points there) is served.
            String served = E2eFixture.admin(port, "/metrics").body();
            Matcher named = Pattern.compile("iggysink_table_[a-z_]+")
                    .matcher(java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "tables.md")));
            java.util.Set<String> documented = new java.util.TreeSet<>();
            while (named.find()) documented.add(named.group());
            assertThat(documented).hasSizeGreaterThan(8);
            assertThat(documented).allSatisfy(name -> assertThat(served).as("/metrics serves " + name)
                    .containsPattern("(?m)^" + name + "(_|\\{| )"));

            // paused: nothing is read, the lag grows with what arrives, health stays ready
            assertThat(post(port, "/pause").statusCode()).isEqualTo(200);
            HttpResponse<String> health = E2eFixture.admin(port, "/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"paused\"");
            fx.producer.sendJson(fx.stream, TOPIC, 0, 10, i -> "{\"amount\":" + i + "}");
            await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).until(() -> lag(port, 0) == 10);
            assertThat(partition(port, 0).get("position").asLong()).isEqualTo(50);
            assertThat(post(port, "/flush").statusCode()).isEqualTo(202);
            assertThat(post(port, "/resume").statusCode()).isEqualTo(200);
            await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).until(() -> lag(port, 0) == 0);
            assertThat(tableTotal(port, "rows_committed")).isEqualTo(110);

            // a record that does not fit the table halts its partition: health fails naming it
            fx.producer.sendJson(fx.stream, TOPIC, 1, 1, i -> "{\"amount\":\"lots\"}");
            await().atMost(WAIT).pollInterval(Duration.ofMillis(250))
                    .until(() -> E2eFixture.admin(port, "/health").statusCode() == 503);
            JsonNode failed = JSON.readTree(E2eFixture.admin(port, "/health").body());
            assertThat(failed.get("status").asString()).isEqualTo("failed");
            assertThat(failed.get("reasons").get(0).asString()).contains(TOPIC + "/1 halted")
                    .contains("offset 50");
            assertThat(partition(port, 1).get("halted").asBoolean()).isTrue();
            assertThat(partition(port, 1).get("lag").asLong()).isEqualTo(1);
            assertThat(tableTotal(port, "bad_records")).isEqualTo(1);
            assertThat(metric(port, "iggysink_table_bad_records_total", "")).isEqualTo(1);
            assertThat(metric(port, "iggysink_health", "")).isEqualTo(2);
            assertThat(E2eFixture.admin(port, "/live").statusCode()).isEqualTo(200);
            sink.terminate();
            sink.waitFor(Duration.ofSeconds(60));
        }
    }
}
