package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Bad records of the Iceberg table sink with {@code errors_tolerance = "all"}, end to end with the fat jar: each one
 * becomes a dead letter below the warehouse on MinIO, keyed by its offset as the S3 sink keys them; the group moves
 * past it, and {@code audit} counts it as delivered (no gap), including a dead letter after the table's last row.
 */
class TableDeadLetterIT extends E2eTest {
    private static final String TOPIC = "payments";

    @Test
    @Timeout(180)
    void records_that_do_not_fit_the_table_are_dead_letters_and_audit_counts_them_delivered() throws Exception {
        fx.topic(TOPIC, 1);
        Path config = fx.tableConfig(TOPIC, "lake.payments", "lake_dlq", """
                create_tables = true
                table_columns = ["amount long required"]
                commit_interval = "1s"
                errors_tolerance = "all"
                """);
        // offsets 3 and 7 carry text where a long goes, offset 9 (the last) lacks the required field
        fx.producer.sendJson(fx.stream, TOPIC, 0, 10, i -> i == 3 || i == 7 ? "{\"amount\":\"lots\"}"
                : i == 9 ? "{\"note\":\"no amount\"}" : "{\"amount\":" + i + "}");

        try (SinkProcess sink = SinkProcess.run(config, fx.log("table-dlq"), Map.of())) {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> deadLetters().size() == 3);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }

        String prefix = "warehouse/_dlq/" + fx.stream + "/" + TOPIC + "/";
        assertThat(deadLetters()).containsExactlyInAnyOrder(prefix + "00000-00000000000000000003.json",
                prefix + "00000-00000000000000000007.json", prefix + "00000-00000000000000000009.json");
        String letter = fx.read(prefix + "00000-00000000000000000003.json");
        assertThat(letter).contains("\"offset\":3").contains("table lake.payments: ").contains("amount")
                .contains("\"payload_base64\":\"" + Base64.getEncoder().encodeToString(
                        "{\"amount\":\"lots\"}".getBytes(StandardCharsets.UTF_8)) + "\"");

        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("in lake.payments: committed=9 ")
                .contains("rows=7 dead_lettered=3 gaps=[] overlaps=0").contains("(dead letters: [3, 7, 9])")
                .contains("AUDIT OK: every committed offset is in its tables exactly once or in a dead letter");
    }

    private List<String> deadLetters() {
        return fx.objects().stream().map(S3Object::key).filter(k -> k.contains("/_dlq/")).toList();
    }
}
