package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.domain.naming.ObjectKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The first-offset key layout (ADR 0019) on the real MinIO: kill -9 after the stop's files became durable but before
 * their commit. The next start finds them by one HEAD at the committed offset + 1 (no claims, no LIST), commits them,
 * and a replay's longer cut at the same start is never written: `audit` finds every offset in exactly one object.
 * The self-audit runs at its default budget all along and finds nothing in the objects it reads back.
 */
class FirstOffsetKeysIT extends E2eTest {
    private static final String TOPIC = "first";

    @Test
    @Timeout(180)
    void kill_9_before_the_commit_of_durable_files_leaves_every_offset_exactly_once() throws Exception {
        fx.topic(TOPIC, 1);
        Path config = fx.config(List.of(TOPIC), "json", """
                file_rotation = "messages"
                max_messages_per_file = 300
                shutdown_timeout = "60s"
                key_layout = "first_offset"
                """);
        send(1000);

        try (StoreRelay relay = StoreRelay.start(fx.minio.endpoint());
             SinkProcess sink = SinkProcess.run(fx.withEndpoint(config, relay.endpoint(), "relayed"),
                     fx.log("first-offset"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
                    fx.committedOffsets(config).equals(Map.of(0, 899L)));
            // The data PUTs' answers are lost from now on: the store keeps the stop's file, the sink never hears so.
            relay.swallowAnswersAfter((m, t) -> m.equals("PUT") && t.startsWith("/" + fx.bucket + "/" + fx.stream + "/"));
            sink.terminate();
            await().atMost(Duration.ofSeconds(30)).until(() -> startsAt(900));
            assertThat(sink.alive()).as("the sink still waits for its upload:\n%s", sink.logText()).isTrue();
            sink.kill9();
        }
        assertThat(fx.committed(config, 0)).as("the commit after the stop's upload did not land").isEqualTo(899);

        // More records, so a replay from 900 would cut 900-1199 where 900-999 is stored.
        send(500);
        int port = E2eFixture.freePort();
        try (SinkProcess sink = SinkProcess.run(fx.withAdmin(config, port, "admin"), fx.log("after"), Map.of())) {
            // 1000-1299 by count; the stop seals 1300-1499.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
                    fx.committedOffsets(config).getOrDefault(0, -1L) >= 1299);
            // A round over the objects the lookup found at start (0-999, written by the killed run) and this run's.
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> auditedUpTo(port) >= 999);
            JsonNode audit = selfAudit(port);
            assertThat(audit.get("problems").isEmpty()).as("self-audit: %s", audit).isTrue();
            assertThat(audit.get("objects_verified").asLong()).as("self-audit: %s", audit).isPositive();
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        assertThat(fx.committed(config, 0)).isEqualTo(1499);

        assertThat(fx.objectsAndClaims()).as("no claims under this layout")
                .noneMatch(o -> o.key().contains("_claims/") && o.key().endsWith(".claim"));
        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).as(audit.output())
                .contains("AUDIT OK: every committed offset is in exactly one object");
        E2eFixture.assertEveryOffsetOnce(fx.copies(TOPIC), "MinIO", 1, 1500);
    }

    /** The sink's {@code self_audit} in {@code /status}; null while the admin server does not answer. */
    private static JsonNode selfAudit(int port) {
        java.net.http.HttpResponse<String> r = E2eFixture.admin(port, "/status");
        return r == null ? null : JsonMapper.builder().build().readTree(r.body()).path("sinks").path(0)
                .path("self_audit");
    }

    /** The last offset of partition 0 the last self-audit round covered; -1 before such a round. */
    private static long auditedUpTo(int port) {
        JsonNode audit = selfAudit(port);
        if (audit == null) return -1;
        for (JsonNode c : audit.path("covered")) {
            if (c.path("partition").asInt() == 0) return c.path("to_offset").asLong();
        }
        return -1;
    }

    private void send(int count) {
        fx.producer.sendJson(fx.stream, TOPIC, 0, count, i -> "{\"i\":" + i + "}");
    }

    private boolean startsAt(long first) {
        return fx.objects().stream().map(o -> ObjectKey.parseFirst(o.key())).flatMap(java.util.Optional::stream)
                .anyMatch(r -> r.partitionId() == 0 && r.firstOffset() == first);
    }
}
