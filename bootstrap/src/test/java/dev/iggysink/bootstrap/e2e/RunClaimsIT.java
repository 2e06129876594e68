package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.domain.naming.KeyRange;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Run claims (docs/adr/0020-run-claims.md) on a real store: the claim with its run's end in its metadata, the
 * lookup's LIST below the committed offset and its HEAD of the run claim it finds, against MinIO. Member A finds 100
 * records in the partition, cuts its first file of 10 and claims offsets 0-99 as one run; it commits 0-29, its later
 * PUTs are held under way, and it is killed. Member B, whose own rotation cuts every 7 records, takes the partition
 * at offset 30, where no object and no claim starts, finds the run below it and cuts where the run does. Only after B
 * stopped do A's PUTs land, on B's keys. Without the run, B would cut 30-36 beside A's late 30-39.
 */
class RunClaimsIT extends E2eTest {
    private static final String TOPIC = "runs";

    @Test
    @Timeout(240)
    void a_new_owner_inside_a_run_cuts_where_the_run_does_and_the_old_owners_late_puts_land_on_its_keys()
            throws Exception {
        fx.topic(TOPIC, 1);
        send(0, 100);
        Path configA = fx.config(List.of(TOPIC), "json", """
                file_rotation = "messages"
                max_messages_per_file = 10
                """);
        String claims = "_claims/s[0-9a-f]{16}/" + fx.stream + "/" + TOPIC + "/";
        String dataObjects = "/" + fx.bucket + "/" + fx.stream + "/" + TOPIC + "/";

        int portA = E2eFixture.freePort();
        List<String> landedLate;
        Path configB;
        try (StoreRelay relay = StoreRelay.start(fx.minio.endpoint())) {
            // The data PUTs of files from offset 30 on are held; claims, HEADs, LISTs and the first three files pass.
            relay.hold((method, target) -> method.equals("PUT") && target.startsWith(dataObjects)
                    && firstOffset(target) >= 30);
            Path a = fx.withAdmin(fx.withEndpoint(configA, relay.endpoint(), "relayed"), portA, "a");
            try (SinkProcess sinkA = SinkProcess.run(a, fx.log("a"), Map.of())) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(() -> fx.committedOffsets(configA).getOrDefault(0, -1L) == 29 || !sinkA.alive());
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(() -> !relay.held().isEmpty() || !sinkA.alive());
                assertThat(sinkA.alive()).as("A runs:\n%s", sinkA.logText()).isTrue();
                assertThat(claimKeys()).as("one claim for A's ten files").singleElement().asString()
                        .matches(claims + "00000-0{20}\\.claim");
                assertThat(fx.read(claimKeys().get(0))).contains("\"first\":0,\"last\":9,\"run_end\":99");
                assertThat(ranges()).as("A's durable objects").containsExactly("0-9", "10-19", "20-29");
                sinkA.kill9();
            }

            // B, same group and store, straight to MinIO, with a rotation of its own.
            configB = fx.config(List.of(TOPIC), "json", """
                    file_rotation = "messages"
                    max_messages_per_file = 7
                    """);
            int portB = E2eFixture.freePort();
            try (SinkProcess b = SinkProcess.run(fx.withAdmin(configB, portB, "b"), fx.log("b"), Map.of())) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(() -> fx.committedOffsets(configB).getOrDefault(0, -1L) == 99 || !b.alive());
                assertThat(b.logText()).contains("offsets 0-99 were claimed as a run of files of 10 offsets each;"
                        + " this member cuts its files there from offset 30");
                // Past the run, B's own rotation.
                send(100, 14);
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(() -> fx.committedOffsets(configB).getOrDefault(0, -1L) == 113 || !b.alive());
                b.terminate();
                assertThat(b.waitFor(Duration.ofSeconds(60))).as("graceful stop of B:\n%s", b.logText()).isZero();
            }
            assertThat(ranges()).as("B's objects").containsExactly("0-9", "10-19", "20-29", "30-39", "40-49", "50-59",
                    "60-69", "70-79", "80-89", "90-99", "100-106", "107-113");

            // Only now do the killed member's PUTs reach the store.
            landedLate = relay.release();
        }
        assertThat(landedLate).as("the store's answers to A's late PUTs").isNotEmpty()
                .allSatisfy(answer -> assertThat(answer).startsWith("HTTP/1.1 200"));

        assertThat(ranges()).as("objects after A's PUTs landed: the same keys as B's").containsExactly("0-9", "10-19",
                "20-29", "30-39", "40-49", "50-59", "60-69", "70-79", "80-89", "90-99", "100-106", "107-113");
        Map<Long, Integer> seen = fx.copies(TOPIC).get(0);
        assertThat(seen.keySet()).containsExactlyElementsOf(LongStream.range(0, 114).boxed().toList());
        assertThat(seen).allSatisfy((offset, n) -> assertThat(n).as("copies of offset %d", offset).isOne());
        E2eFixture.AuditResult audit = fx.audit(configB);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).as(audit.output())
                .contains("AUDIT OK: every committed offset is in exactly one object");
        assertThat(claimKeys()).as("the run's claim, removed once B committed past its end")
                .noneMatch(k -> k.matches(claims + "00000-0{20}\\.claim"));
    }

    /**
     * A run of size cuts (docs/adr/0022-run-claims-of-size-cuts.md) on MinIO: A, whose files are cut at 2,000 bytes,
     * claims the partition's 100 records (payloads of different lengths) as one run; its PUTs of files from offset
     * 25 on are held and it is killed. B, whose own limit is 1,000 bytes, takes the partition where A's commits
     * stopped, finds the run below (LIST, HEAD of the claim with its rule) and cuts by the run's 2,000 bytes. A's late
     * PUTs then land on B's keys. Cut by B's own limit, they would put offsets in two objects.
     */
    @Test
    @Timeout(240)
    void a_new_owner_of_another_size_limit_inside_a_run_of_size_cuts_cuts_by_the_runs_limit() throws Exception {
        fx.topic(TOPIC, 1);
        fx.producer.sendJson(fx.stream, TOPIC, 0, 100, i -> "{\"i\":" + i + ",\"p\":\"" + "x".repeat((i * 37) % 60)
                + "\"}");
        Path configA = fx.config(List.of(TOPIC), "json", """
                file_rotation = "size"
                max_file_size = "2000B"
                """);
        String claims = "_claims/s[0-9a-f]{16}/" + fx.stream + "/" + TOPIC + "/";
        String dataObjects = "/" + fx.bucket + "/" + fx.stream + "/" + TOPIC + "/";

        List<String> landedLate;
        List<String> objectsOfB;
        long committedByA;
        try (StoreRelay relay = StoreRelay.start(fx.minio.endpoint())) {
            relay.hold((method, target) -> method.equals("PUT") && target.startsWith(dataObjects)
                    && firstOffset(target) >= 25);
            Path a = fx.withAdmin(fx.withEndpoint(configA, relay.endpoint(), "relayed"), E2eFixture.freePort(), "a");
            try (SinkProcess sinkA = SinkProcess.run(a, fx.log("a"), Map.of())) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(() -> !relay.held().isEmpty() && fx.committedOffsets(configA).getOrDefault(0, -1L)
                                == firstHeld(relay) - 1 || !sinkA.alive());
                assertThat(sinkA.alive()).as("A runs:\n%s", sinkA.logText()).isTrue();
                committedByA = fx.committedOffsets(configA).get(0);
                assertThat(claimKeys()).as("one claim for A's files").singleElement().asString()
                        .matches(claims + "00000-0{20}\\.claim");
                assertThat(fx.read(claimKeys().get(0))).contains("\"run_end\":99,\"run_rule\":\"json_lines:")
                        .contains(";size=2000;count=-\"");
                sinkA.kill9();
            }

            Path configB = fx.config(List.of(TOPIC), "json", """
                    file_rotation = "size"
                    max_file_size = "1000B"
                    """);
            try (SinkProcess b = SinkProcess.run(fx.withAdmin(configB, E2eFixture.freePort(), "b"), fx.log("b"),
                    Map.of())) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(() -> fx.committedOffsets(configB).getOrDefault(0, -1L) >= 90 || !b.alive());
                assertThat(b.logText()).contains("offsets 0-99 were claimed as a run of files of the size rule"
                        + " json_lines:").contains("this member cuts its files there from offset " + (committedByA + 1));
                b.terminate();
                assertThat(b.waitFor(Duration.ofSeconds(60))).as("graceful stop of B:\n%s", b.logText()).isZero();
                assertThat(fx.committedOffsets(configB)).containsEntry(0, 99L);
            }
            objectsOfB = ranges();
            landedLate = relay.release();
        }
        assertThat(landedLate).as("the store's answers to A's late PUTs").isNotEmpty()
                .allSatisfy(answer -> assertThat(answer).startsWith("HTTP/1.1 200"));
        assertThat(ranges()).as("objects after A's PUTs landed: B's keys").containsExactlyElementsOf(objectsOfB);
        Map<Long, Integer> seen = fx.copies(TOPIC).get(0);
        assertThat(seen.keySet()).containsExactlyElementsOf(LongStream.range(0, 100).boxed().toList());
        assertThat(seen).allSatisfy((offset, n) -> assertThat(n).as("copies of offset %d", offset).isOne());
    }

    /** The least first offset of the held data PUTs. */
    private long firstHeld(StoreRelay relay) {
        return relay.held().stream().mapToLong(line -> firstOffset(line.split(" ")[1])).min().orElse(-1);
    }

    private void send(int from, int count) {
        fx.producer.sendJson(fx.stream, TOPIC, 0, count, i -> "{\"i\":" + (from + i) + "}");
    }

    /** The first offset a data PUT's target names (-1 for another key). */
    private long firstOffset(String target) {
        String key = target.substring(("/" + fx.bucket + "/").length());
        int query = key.indexOf('?');
        if (query >= 0) key = key.substring(0, query);
        return ObjectKey.parse(key).map(KeyRange::firstOffset).orElse(-1L);
    }

    private List<String> claimKeys() {
        return fx.objectsAndClaims().stream().map(S3Object::key).filter(k -> k.startsWith("_claims/")).sorted()
                .toList();
    }

    /** The offset ranges of the topic's objects, as their keys name them, in order. */
    private List<String> ranges() {
        return fx.ranges(fx.stream + "/" + TOPIC + "/");
    }
}
