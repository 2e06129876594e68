package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A runtime config whose connector directory holds an S3 sink and an Iceberg table sink: one process (fat jar) runs
 * both on the runtime's {@code [iggy]}, one admin server lists both, each logs its status line, a stop ends both
 * cleanly, and {@code audit} of the runtime config checks both.
 */
class ConnectorDirectoryIT extends E2eTest {
    private static final String TABLE = "lake.clicks";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    @Timeout(180)
    void one_process_runs_the_s3_sink_and_the_table_sink_of_a_connector_directory() throws Exception {
        try (TableCatalog catalog = TableCatalog.sqlite(fx)) {
            catalog.createTable(TABLE, TableCatalog.clicksSchema());
            fx.topic("raw", 1);
            fx.topic("clicks", 1);
            fx.producer.sendJson(fx.stream, "raw", 0, 40, i -> "{\"n\":" + i + "}");
            fx.producer.sendJson(fx.stream, "clicks", 0, 30, i -> "{\"round\":" + i + ",\"page\":\"/p/" + i + "\"}");

            int port = E2eFixture.freePort();
            Path connectors = Files.createDirectories(fx.dir.resolve("connectors"));
            // The connection comes from the runtime config alone: the files' own [iggy] would be ignored, so a wrong
            // one here proves it.
            String wrongIggy = "address = \"" + fx.iggy.address() + "\"";
            Path s3 = fx.withAdmin(fx.config(List.of("raw"), "json", """
                    file_rotation = "messages"
                    max_messages_per_file = 10
                    """), port, "s3_admin");
            Files.writeString(connectors.resolve("s3.toml"), Files.readString(s3)
                    .replace(wrongIggy, "address = \"127.0.0.1:1\""), StandardCharsets.UTF_8);
            Path table = fx.tableConfig("clicks", TABLE, "lake_sink", "commit_interval = \"1s\"");
            Files.writeString(connectors.resolve("lake.toml"), Files.readString(table)
                    .replace(wrongIggy, "address = \"127.0.0.1:1\""), StandardCharsets.UTF_8);
            Path runtime = fx.dir.resolve("config.toml");
            Files.writeString(runtime, """
                    [iggy]
                    address = "%s"
                    username = "iggy"
                    password = "iggy"

                    [connectors]
                    config_type = "local"
                    config_dir = '%s'
                    """.formatted(fx.iggy.address(), connectors), StandardCharsets.UTF_8);

            try (SinkProcess sink = SinkProcess.run(runtime, fx.log("connector-dir"), Map.of())) {
                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                        .until(() -> catalog.rows(TABLE) == 30 && objectOffsets("raw") == 40);
                JsonNode status = JSON.readTree(E2eFixture.admin(port, "/status").body());
                List<String> sinks = new ArrayList<>();
                for (JsonNode s : status.get("sinks")) sinks.add(s.get("key").asString() + ":" + s.get("kind")
                        .asString());
                assertThat(sinks).containsExactly("s3:object", "lake:table");
                HttpResponse<String> health = E2eFixture.admin(port, "/health");
                assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
                // the table sink's own status line, every --status-interval (2 s here) as the object sinks'
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                        .until(() -> sink.logText().contains("status: table sink lake: "));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                        .until(() -> sink.logText().lines().anyMatch(l -> l.contains("status: table sink lake: ")
                                && l.contains(" 30 rows, ") && l.contains("committed: " + fx.stream + "/clicks/0=29")));
                sink.terminate();
                assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
            }
            Map<Integer, Map<Long, Integer>> rows = catalog.copies(TABLE);
            assertThat(rows.get(0)).hasSize(30).allSatisfy((offset, copies) -> assertThat(copies).isEqualTo(1));
            Map<Integer, Map<Long, Integer>> objects = fx.copies("raw");
            assertThat(objects.get(0)).hasSize(40).allSatisfy((offset, copies) -> assertThat(copies).isEqualTo(1));

            // audit of the runtime config looks at both: the bucket and the table
            E2eFixture.AuditResult audit = fx.audit(runtime);
            assertThat(audit.exitCode()).as(audit.output()).isZero();
            assertThat(audit.output()).contains("AUDIT OK: every committed offset is in exactly one object",
                    "/clicks/0 in " + TABLE + ": committed=29 table=29 rows=30",
                    "table sink lake: AUDIT OK: every committed offset is in its tables exactly once")
                    .doesNotContain("not audited");
        }
    }

    private long objectOffsets(String topic) {
        return fx.copies(topic).values().stream().mapToLong(Map::size).sum();
    }
}
