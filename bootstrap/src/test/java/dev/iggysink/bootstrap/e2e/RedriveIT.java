package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Issue 48 item 2 with the fat jar and MinIO: records that fail to decode go to dead letters under
 * {@code errors_tolerance = "all"}; after a config fix, {@code redrive} is killed with -9 right after its first
 * record became durable, and a second run finishes. Every offset is then in exactly one object, the audit is clean and
 * every dead letter is marked redriven.
 */
class RedriveIT extends E2eTest {
    private static final String TOPIC = "orders";
    private static final int COUNT = 24;
    private static final List<Long> BAD = List.of(2L, 7L, 12L, 17L, 22L);
    private static final Pattern OFFSET = Pattern.compile("^\\{\"offset\":(\\d+),", Pattern.MULTILINE);
    private static final String ROTATION = "file_rotation = \"messages\"\nmax_messages_per_file = 4\n"
            + "errors_tolerance = \"all\"";

    @Test
    @Timeout(180)
    void dead_letters_redriven_after_a_fix_with_a_kill_9_between_two_runs_land_exactly_once() throws Exception {
        fx.topic(TOPIC, 1);
        fx.producer.sendJson(fx.stream, TOPIC, 0, COUNT,
                i -> BAD.contains((long) i) ? "level=warn order=" + i : "{\"order\":" + i + "}");
        Path strict = fx.config(List.of(TOPIC), "json", ROTATION);
        try (SinkProcess sink = SinkProcess.run(strict, fx.log("strict"), Map.of())) {
            // Four files of four records are committed (up to 19); 20, 21 and 23 wait in the open file for the stop.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300)).until(() ->
                    letters("_dlq/").size() == BAD.size() && fx.committed(strict, 0) == 19);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        assertThat(fx.committed(strict, 0)).isEqualTo(COUNT - 1);
        assertThat(letters("_dlq/" + fx.stream + "/" + TOPIC + "/")).hasSize(BAD.size());
        assertThat(copies().keySet()).doesNotContainAnyElementsOf(BAD);

        // The fix: the payloads are text, not JSON.
        Path fixed = fx.config(List.of(TOPIC), "text", ROTATION);
        CliResult dry = redrive(fixed, "--dry-run");
        assertThat(dry.code()).as(dry.output()).isZero();
        assertThat(dry.output()).contains("REDRIVE DRY RUN (nothing written): 5 would be redriven");
        assertThat(letters("_dlq/redriven/")).isEmpty();

        try (StoreRelay relay = StoreRelay.start(fx.minio.endpoint())) {
            // The first record's object reaches MinIO; redrive never hears so and is killed while it waits.
            relay.swallowAnswersAfter((m, t) -> m.equals("PUT") && t.startsWith("/" + fx.bucket + "/" + fx.stream + "/"));
            Path relayed = fx.withEndpoint(fixed, relay.endpoint(), "relayed");
            try (SinkProcess first = SinkProcess.start(List.of(SinkProcess.javaBinary(), "-jar",
                    SinkProcess.jar().toString(), "redrive", "--config", relayed.toString()), fx.log("redrive-1"),
                    Map.of())) {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> copies().containsKey(2L));
                assertThat(first.alive()).as(first.logText()).isTrue();
                first.kill9();
            }
        }
        assertThat(letters("_dlq/" + fx.stream + "/" + TOPIC + "/")).as("no dead letter goes before its record is"
                + " durable").hasSize(BAD.size());

        CliResult second = redrive(fixed);
        assertThat(second.code()).as(second.output()).isZero();
        assertThat(second.output()).contains("finished _dlq/" + fx.stream + "/" + TOPIC
                        + "/00000-00000000000000000002.json")
                .contains("REDRIVE: 4 redriven, 1 finished from an earlier run, 0 already delivered, 0 still failing");

        Map<Long, Integer> copies = copies();
        assertThat(copies.keySet()).containsExactlyElementsOf(LongStream.range(0, COUNT).boxed().toList());
        assertThat(copies).allSatisfy((offset, n) -> assertThat(n).as("copies of offset %d", offset).isOne());
        assertThat(letters("_dlq/" + fx.stream + "/" + TOPIC + "/")).isEmpty();
        List<String> notes = letters("_dlq/redriven/" + fx.stream + "/" + TOPIC + "/");
        assertThat(notes).hasSize(BAD.size());
        assertThat(fx.read(notes.get(0))).contains("\"offset\":2", "\"redriven_to\":\"" + fx.stream + "/" + TOPIC);
        E2eFixture.AuditResult audit = fx.audit(fixed);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("committed=" + (COUNT - 1) + " ")
                .contains("AUDIT OK: every committed offset is in exactly one object").doesNotContain("dead letters");

        CliResult third = redrive(fixed);
        assertThat(third.output()).contains("REDRIVE: 0 redriven, 0 finished");
    }

    private static CliResult redrive(Path config, String... more) {
        return CliResult.run("redrive", config, more);
    }

    private List<String> letters(String prefix) {
        return fx.objects().stream().map(S3Object::key).filter(k -> k.startsWith(prefix)).toList();
    }

    /** Offset → how many objects of the topic hold it, read from the lines themselves. */
    private Map<Long, Integer> copies() {
        Map<Long, Integer> seen = new TreeMap<>();
        for (S3Object o : fx.objects()) {
            if (!o.key().startsWith(fx.stream + "/" + TOPIC + "/")) continue;
            Matcher m = OFFSET.matcher(fx.read(o.key()));
            while (m.find()) seen.merge(Long.parseLong(m.group(1)), 1, Integer::sum);
        }
        return seen;
    }
}
