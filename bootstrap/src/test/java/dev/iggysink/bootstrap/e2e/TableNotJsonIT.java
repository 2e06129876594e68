package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Payloads of a json stream that are not JSON, on the Iceberg table sink with fixed tables, end to end with the fat
 * jar: the codec leaves a json payload to the row converter's parse, so this is where such a payload is found; under
 * {@code errors_tolerance = "all"} each is a dead letter keyed by its offset and saying why, and {@code audit} counts
 * it as delivered.
 */
class TableNotJsonIT extends E2eTest {
    private static final String TOPIC = "readings";

    @Test
    @Timeout(180)
    void payloads_that_are_not_json_are_dead_letters_naming_their_offset() throws Exception {
        fx.topic(TOPIC, 1);
        Path config = fx.tableConfig(TOPIC, "lake.readings", "lake_dlq", """
                create_tables = true
                table_columns = ["amount long required"]
                commit_interval = "1s"
                errors_tolerance = "all"
                """);
        // offset 2 is text, offset 5 a document cut short
        fx.producer.sendJson(fx.stream, TOPIC, 0, 7, i -> i == 2 ? "not JSON at all"
                : i == 5 ? "{\"amount\":" : "{\"amount\":" + i + "}");

        try (SinkProcess sink = SinkProcess.run(config, fx.log("table-not-json"), Map.of())) {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> deadLetters().size() == 2);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }

        String prefix = "warehouse/_dlq/" + fx.stream + "/" + TOPIC + "/";
        assertThat(deadLetters()).containsExactlyInAnyOrder(prefix + "00000-00000000000000000002.json",
                prefix + "00000-00000000000000000005.json");
        assertThat(fx.read(prefix + "00000-00000000000000000002.json")).contains("\"offset\":2")
                .contains("table lake.readings: the payload is not JSON");
        assertThat(fx.read(prefix + "00000-00000000000000000005.json")).contains("\"offset\":5")
                .contains("table lake.readings: the payload is not JSON");

        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("rows=5 dead_lettered=2 gaps=[] overlaps=0")
                .contains("AUDIT OK: every committed offset is in its tables exactly once or in a dead letter");
    }

    private List<String> deadLetters() {
        return fx.objects().stream().map(S3Object::key).filter(k -> k.contains("/_dlq/")).toList();
    }
}
