package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Two connector files archive one topic into one bucket under one prefix, with other consumer groups and other path
 * templates (issue 43, item 2). Sink Y's member A stops with its file 0-99 claimed and its PUT under way, and is
 * killed with -9. Sink X cuts 0-99 too, commits it and removes its claim; before, that was Y's claim too, so Y's next
 * member cut 0-149 and A's late PUT put 0-99 in a second object of Y's. Now each sink claims in a space of its own:
 * Y's member B still finds A's claim and cuts the same file, and each sink holds every offset exactly once.
 */
class TwoSinksOnePrefixIT extends E2eTest {
    private static final String TOPIC = "shared";

    @Test
    @Timeout(300)
    void a_kill_9_in_one_sink_while_another_sink_commits_on_the_same_prefix_leaves_each_sink_exactly_once()
            throws Exception {
        fx.topic(TOPIC, 1);
        String rotation = """
                file_rotation = "messages"
                max_messages_per_file = 100000
                shutdown_timeout = "120s"
                """;
        Path sinkY = copy(fx.config(List.of(TOPIC), "json", rotation), "y", "s3_sink");
        Path sinkX = copy(fx.config(List.of(TOPIC), "json", rotation + "path_template = \"copy/{stream}/{topic}\"\n"),
                "x", "s3_copy");
        send(0, 100);
        String yObjects = fx.stream + "/" + TOPIC + "/";
        String xObjects = "copy/" + fx.stream + "/" + TOPIC + "/";

        int portA = E2eFixture.freePort();
        List<String> landedLate;
        try (StoreRelay relay = StoreRelay.start(fx.minio.endpoint());
             SinkProcess a = SinkProcess.run(fx.withAdmin(fx.withEndpoint(sinkY, relay.endpoint(), "y-relayed"),
                     portA, "y-a"), fx.log("y-a"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> E2eFixture.consumed(portA) == 100);
            relay.hold((method, target) -> method.equals("PUT") && target.startsWith("/" + fx.bucket + "/" + yObjects));
            a.terminate();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !relay.held().isEmpty());
            assertThat(claims()).as("A claimed its stop's cut").singleElement().asString()
                    .matches("_claims/s[0-9a-f]{16}/" + fx.stream + "/" + TOPIC + "/00000-0{20}\\.claim");
            String claimOfY = claims().get(0);
            assertThat(a.alive()).as("A waits for its PUT:\n%s", a.logText()).isTrue();
            a.kill9();

            // Sink X cuts the same range at its stop, uploads, commits and removes its own claim.
            int portX = E2eFixture.freePort();
            try (SinkProcess x = SinkProcess.run(fx.withAdmin(sinkX, portX, "x-1"), fx.log("x-1"), Map.of())) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(() -> E2eFixture.consumed(portX) == 100 || !x.alive());
                x.terminate();
                assertThat(x.waitFor(Duration.ofSeconds(60))).as("graceful stop of X:\n%s", x.logText()).isZero();
            }
            assertThat(fx.committed(sinkX, 0)).isEqualTo(99);
            assertThat(claims()).as("sink Y's claim outlives sink X's commit").contains(claimOfY);

            // Y's member B, straight to the store, with more records than A's cut.
            send(0, 50);
            int portB = E2eFixture.freePort();
            try (SinkProcess b = SinkProcess.run(fx.withAdmin(sinkY, portB, "y-b"), fx.log("y-b"), Map.of())) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(() -> E2eFixture.consumed(portB) == 150 || !b.alive());
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                        .until(() -> fx.committedOffsets(sinkY).getOrDefault(0, -1L) == 99 || !b.alive());
                assertThat(b.logText()).contains("offsets 0-99 were claimed by another member");
                b.terminate();
                assertThat(b.waitFor(Duration.ofSeconds(60))).as("graceful stop of B:\n%s", b.logText()).isZero();
            }
            landedLate = relay.release();
        }
        assertThat(landedLate).as("the store's answer to A's late PUT").singleElement().asString()
                .startsWith("HTTP/1.1 200");

        // Sink X reads the rest too.
        int portX = E2eFixture.freePort();
        try (SinkProcess x = SinkProcess.run(fx.withAdmin(sinkX, portX, "x-2"), fx.log("x-2"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> E2eFixture.consumed(portX) == 50 || !x.alive());
            x.terminate();
            assertThat(x.waitFor(Duration.ofSeconds(60))).as("graceful stop of X:\n%s", x.logText()).isZero();
        }

        assertThat(ranges(yObjects)).as("sink Y's objects").containsExactly("0-99", "100-149");
        assertThat(ranges(xObjects)).as("sink X's objects").containsExactly("0-99", "100-149");
        for (String keysStart : List.of(yObjects, xObjects)) {
            Map<Long, Integer> seen = copies(keysStart);
            assertThat(seen.keySet()).as(keysStart)
                    .containsExactlyElementsOf(LongStream.range(0, 150).boxed().toList());
            assertThat(seen).allSatisfy((offset, n) -> assertThat(n).as("copies of %s%d", keysStart, offset).isOne());
        }
        for (Path config : List.of(sinkY, sinkX)) {
            E2eFixture.AuditResult audit = fx.audit(config);
            assertThat(audit.exitCode()).as(audit.output()).isZero();
            assertThat(audit.output()).as(audit.output())
                    .contains("AUDIT OK: every committed offset is in exactly one object")
                    .contains("committed=149 objects=2 covered=[0-149] gaps=[] overlaps=0 mismatches=0");
        }
    }

    /** {@code config} as {@code <name>.toml} with {@code group} as its consumer group. */
    private Path copy(Path config, String name, String group) throws java.io.IOException {
        String toml = Files.readString(config, StandardCharsets.UTF_8)
                .replace("consumer_group = \"s3_sink\"", "consumer_group = \"" + group + "\"");
        Path file = fx.dir.resolve(name + ".toml");
        Files.writeString(file, toml, StandardCharsets.UTF_8);
        return file;
    }

    private void send(int partition, int count) {
        fx.producer.sendJson(fx.stream, TOPIC, partition, count, i -> "{\"p\":" + partition + ",\"i\":" + i + "}");
    }

    private List<String> claims() {
        return fx.objectsAndClaims().stream().map(S3Object::key).filter(k -> k.startsWith("_claims/")).sorted()
                .toList();
    }

    private List<String> ranges(String keysStart) {
        return fx.ranges(keysStart);
    }

    private Map<Long, Integer> copies(String keysStart) {
        Map<String, String> objects = new TreeMap<>();
        for (S3Object o : fx.objects()) if (o.key().startsWith(keysStart)) objects.put(o.key(), fx.read(o.key()));
        return E2eFixture.copies(objects).getOrDefault(0, Map.of());
    }
}
