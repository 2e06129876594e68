package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Issue 48 item 2 for the Iceberg table sink, with the fat jar, an SQLite catalog and MinIO: records that lack a
 * required column become dead letters under {@code errors_tolerance = "all"}; after a fix (the column made optional
 * in the table and in the file) {@code redrive} makes them rows with their original offsets. The fat jar's
 * {@code redrive} is killed with -9 after its commit, while it deletes the dead letters (a relay swallows the answer
 * to the first DELETE); a second run only finishes the one left, writing no row again. The audit is clean and
 * Iceberg's own reader finds each offset once.
 */
class TableRedriveIT extends E2eTest {
    private static final String TOPIC = "payments";
    private static final String TABLE = "lake.payments";
    private static final int COUNT = 12;
    private static final String STRICT = """
            create_tables = true
            table_columns = ["amount long required"]
            commit_interval = "1s"
            errors_tolerance = "all"
            """;

    @Test
    @Timeout(180)
    void dead_letters_redriven_after_a_fix_become_rows_once_and_a_second_run_finishes_without_writing()
            throws Exception {
        fx.topic(TOPIC, 1);
        // offsets 3 and 7 lack the required amount
        fx.producer.sendJson(fx.stream, TOPIC, 0, COUNT, i -> i == 3 || i == 7 ? "{\"note\":\"n" + i + "\"}"
                : "{\"amount\":" + i + "}");
        Path strict = fx.tableConfig(TOPIC, TABLE, "lake_redrive", STRICT);
        String letters = "warehouse/_dlq/" + fx.stream + "/" + TOPIC + "/";
        try (SinkProcess sink = SinkProcess.run(strict, fx.log("table-redrive"), Map.of())) {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> keys(letters).size() == 2);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        E2eFixture.AuditResult before = fx.audit(strict);
        assertThat(before.output()).contains("dead_lettered=2");
        CliResult unfixed = redrive(strict);
        assertThat(unfixed.code()).as(unfixed.output()).isEqualTo(1);
        assertThat(unfixed.output()).contains("field 'amount' is missing, and the table requires it")
                .contains("REDRIVE: 0 redriven, 0 finished from an earlier run, 0 already delivered, 2 still failing");

        // The fix: the table's amount becomes optional, and so does the file's column for a table made anew.
        try (TableCatalog catalog = TableCatalog.sqlite(fx)) {
            catalog.table(TABLE).updateSchema().makeColumnOptional("amount").commit();
        }
        Path fixed = fx.tableSink(TOPIC, TABLE, "lake_redrive").plugin(STRICT.replace("\"amount long required\"",
                "\"amount long\"")).write("fixed");
        CliResult dry = redrive(fixed, "--dry-run");
        assertThat(dry.code()).as(dry.output()).isZero();
        assertThat(dry.output()).contains("would redrive " + letters.substring("warehouse/".length())
                + "00000-00000000000000000003.json -> " + TABLE)
                .contains("REDRIVE DRY RUN (nothing written): 2 would be redriven");
        assertThat(keys("warehouse/_dlq/redriven/")).isEmpty();

        String three = letters + "00000-00000000000000000003.json";
        String seven = letters + "00000-00000000000000000007.json";
        try (StoreRelay relay = StoreRelay.start(fx.minio.endpoint())) {
            // The commit is durable and the first dead letter's DELETE reaches MinIO; redrive never hears so and is
            // killed while it waits, before it deletes the second.
            relay.swallowAnswersAfter((m, t) -> m.equals("DELETE") && t.endsWith("/" + three));
            Path relayed = fx.withEndpoint(fixed, relay.endpoint(), "relayed");
            try (SinkProcess first = SinkProcess.start(List.of(SinkProcess.javaBinary(), "-jar",
                    SinkProcess.jar().toString(), "redrive", "--config", relayed.toString()),
                    fx.log("table-redrive-1"), Map.of())) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                        .until(() -> !keys(letters).contains(three));
                assertThat(first.alive()).as(first.logText()).isTrue();
                first.kill9();
            }
        }
        assertThat(keys(letters)).as("the dead letter left by the kill").containsExactly(seven);

        CliResult second = redrive(fixed);
        assertThat(second.code()).as(second.output()).isZero();
        assertThat(second.output()).contains("finished " + seven.substring("warehouse/".length()))
                .contains("REDRIVE: 0 redriven, 1 finished from an earlier run, 0 already delivered, 0 still failing");
        assertThat(keys(letters)).isEmpty();
        assertThat(keys("warehouse/_dlq/redriven/" + fx.stream + "/" + TOPIC + "/")).hasSize(2);

        try (TableCatalog catalog = TableCatalog.sqlite(fx)) {
            Map<Long, Integer> copies = catalog.copies(TABLE).get(0);
            assertThat(copies.keySet()).containsExactlyElementsOf(LongStream.range(0, COUNT).boxed().toList());
            assertThat(copies).allSatisfy((offset, n) -> assertThat(n).as("rows of offset %d", offset).isOne());
        }
        E2eFixture.AuditResult audit = fx.audit(fixed);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("committed=" + (COUNT - 1) + " ").contains("rows=" + COUNT + " gaps=[]")
                .contains("AUDIT OK: every committed offset is in its tables exactly once");
    }

    private static CliResult redrive(Path config, String... more) {
        return CliResult.run("redrive", config, more);
    }

    private List<String> keys(String prefix) {
        return fx.objects().stream().map(S3Object::key).filter(k -> k.startsWith(prefix)).toList();
    }
}
