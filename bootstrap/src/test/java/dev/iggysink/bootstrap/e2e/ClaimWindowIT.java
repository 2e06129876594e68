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
 * The rolling stop with a PUT under way, the window a key lookup cannot close: member A's stop cuts its open file
 * (offsets 0-99, a cut a replay would not repeat), claims it, and sends the PUT, which the store does not see yet; A is
 * killed with the PUT under way. Member B gets the partition, finds no object at the committed offset + 1 but A's
 * claim, cuts the same file, reads on and stops cleanly; only then does A's PUT land. Without the claim, B would
 * have cut 0-149 at its stop and the late PUT would have put 0-99 in a second object.
 */
class ClaimWindowIT extends E2eTest {
    private static final String TOPIC = "window";

    @Test
    @Timeout(240)
    void a_put_of_a_killed_member_that_lands_after_the_new_owner_stopped_leaves_every_offset_exactly_once()
            throws Exception {
        fx.topic(TOPIC, 1);
        // Nothing seals by itself: every cut here is a stop's, or the claim's.
        Path config = fx.config(List.of(TOPIC), "json", """
                file_rotation = "messages"
                max_messages_per_file = 100000
                shutdown_timeout = "120s"
                """);
        send(0, 100);
        // The sink's claims are in a space of its own: _claims/<space>/<stream>/<topic>/...
        String claims = "_claims/s[0-9a-f]{16}/" + fx.stream + "/" + TOPIC + "/";

        int portA = E2eFixture.freePort();
        List<String> landedLate;
        try (StoreRelay relay = StoreRelay.start(fx.minio.endpoint());
             SinkProcess a = SinkProcess.run(fx.withAdmin(fx.withEndpoint(config, relay.endpoint(), "relayed"),
                     portA, "a"), fx.log("a"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> E2eFixture.consumed(portA) == 100);
            // A PUT of a data object is held from now on; claims (under _claims/), HEADs and LISTs pass.
            String dataObjects = "/" + fx.bucket + "/" + fx.stream + "/";
            relay.hold((method, target) -> method.equals("PUT") && target.startsWith(dataObjects));
            a.terminate();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !relay.held().isEmpty());
            assertThat(relay.held()).as("A's PUT, held whole").singleElement().asString()
                    .startsWith("PUT " + dataObjects);
            assertThat(keys()).as("A claimed its stop's cut; its object is not in the store").singleElement()
                    .asString().matches(claims + "00000-0{20}\\.claim");
            assertThat(fx.read(keys().get(0))).contains("\"first\":0,\"last\":99");
            assertThat(a.alive()).as("A waits for its PUT:\n%s", a.logText()).isTrue();
            a.kill9();

            // B, in the same group, straight to the store, with more records than A's cut.
            send(0, 50);
            int portB = E2eFixture.freePort();
            try (SinkProcess b = SinkProcess.run(fx.withAdmin(config, portB, "b"), fx.log("b"), Map.of())) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(() -> E2eFixture.consumed(portB) == 150 || !b.alive());
                // The claimed file 0-99 is cut, uploaded and committed while B runs; 100-149 is open.
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                        .until(() -> fx.committedOffsets(config).getOrDefault(0, -1L) == 99 || !b.alive());
                assertThat(b.logText()).contains("offsets 0-99 were claimed by another member");
                b.terminate();
                assertThat(b.waitFor(Duration.ofSeconds(60))).as("graceful stop of B:\n%s", b.logText()).isZero();
            }
            assertThat(fx.committed(config, 0)).isEqualTo(149);
            assertThat(ranges()).as("B's objects").containsExactly("0-99", "100-149");

            // Only now does the killed member's PUT reach the store.
            landedLate = relay.release();
        }
        assertThat(landedLate).as("the store's answer to A's late PUT").singleElement().asString()
                .startsWith("HTTP/1.1 200");

        assertThat(ranges()).as("objects after A's PUT landed: the same key as B's").containsExactly("0-99", "100-149");
        Map<Long, Integer> seen = fx.copies(TOPIC).get(0);
        assertThat(seen.keySet()).containsExactlyElementsOf(LongStream.range(0, 150).boxed().toList());
        assertThat(seen).allSatisfy((offset, n) -> assertThat(n).as("copies of offset %d", offset).isOne());
        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).as(audit.output())
                .contains("AUDIT OK: every committed offset is in exactly one object")
                .contains("committed=149 objects=2 covered=[0-149] gaps=[] overlaps=0 mismatches=0");
        // A's claim, left by the kill, was removed by B's commit past it (README: the member that commits past a
        // claim removes it). B's own last claim (100, at or below the committed 149: it decides nothing) may be left:
        // its removal is queued on the upload pool at the stop's last commit and Uploader.abandon() can drop it first
        // (seen in about 1 run of 4). Tighten to no claim at all once a clean stop waits for that removal.
        assertThat(keys().stream().filter(k -> k.startsWith("_claims/")).toList()).as("claims left")
                .allSatisfy(k -> assertThat(k).matches(claims + "00000-0{17}100\\.claim"));
    }

    private void send(int partition, int count) {
        fx.producer.sendJson(fx.stream, TOPIC, partition, count, i -> "{\"p\":" + partition + ",\"i\":" + i + "}");
    }

    private List<String> keys() {
        return fx.objectsAndClaims().stream().map(S3Object::key).sorted().toList();
    }

    /** The offset ranges of the topic's objects, as their keys name them, in order. */
    private List<String> ranges() {
        return fx.ranges(fx.stream + "/" + TOPIC + "/");
    }
}
