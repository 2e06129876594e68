package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.domain.naming.KeyRange;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kill -9 during the drain of a graceful stop, after the files sealed by the stop became durable but before their
 * commit: the next start must find them by key and not write their records a second time.
 */
class DrainKillIT extends E2eTest {
    private static final String TOPIC = "drain";
    private static final int PARTITIONS = 2;

    @Test
    @Timeout(180)
    void kill_9_after_the_stops_files_are_durable_but_not_committed_leaves_every_offset_exactly_once()
            throws Exception {
        fx.topic(TOPIC, PARTITIONS);
        Path config = fx.config(List.of(TOPIC), "json", """
                file_rotation = "messages"
                max_messages_per_file = 300
                shutdown_timeout = "60s"
                """);
        for (int p = 0; p < PARTITIONS; p++) send(p, 1000);

        try (StoreRelay relay = StoreRelay.start(fx.minio.endpoint());
             SinkProcess sink = SinkProcess.run(fx.withEndpoint(config, relay.endpoint(), "relayed"),
                     fx.log("draining"), Map.of())) {
            // 0-299, 300-599 and 600-899 rotated by count and committed; 900-999 is open.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
                    fx.committedOffsets(config).equals(Map.of(0, 899L, 1, 899L)));
            Thread.sleep(1000);

            // Only the data PUTs' answers: the claim before each must still be answered (docs/adr/0013).
            relay.swallowAnswersAfter((m, t) -> m.equals("PUT") && t.startsWith("/" + fx.bucket + "/" + fx.stream + "/"));
            sink.terminate();
            // The stop seals 900-999 of both partitions; the store keeps them, the sink never hears so.
            await().atMost(Duration.ofSeconds(30)).until(() -> firstAt(900, 0).isPresent()
                    && firstAt(900, 1).isPresent());
            assertThat(sink.alive()).as("the sink still waits for its uploads:\n%s", sink.logText()).isTrue();
            sink.kill9();
        }
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(fx.committed(config, p)).as("the commit after the stop's upload did not land").isEqualTo(899);
            assertThat(firstAt(900, p).orElseThrow().lastOffset()).isEqualTo(999);
        }

        // More records, so a replay from 900 would cut 900-1199 beside the stored 900-999.
        for (int p = 0; p < PARTITIONS; p++) send(p, 500);
        try (SinkProcess sink = SinkProcess.run(config, fx.log("after"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
                Map<Integer, Long> committed = fx.committedOffsets(config);
                return committed.size() == PARTITIONS && committed.values().stream().allMatch(c -> c >= 1199);
            });
            Thread.sleep(1000);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }

        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).as(audit.output())
                .contains("AUDIT OK: every committed offset is in exactly one object");
        Map<Integer, Map<Long, Integer>> copies = fx.copies(TOPIC);
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(fx.committed(config, p)).isEqualTo(1499);
            Map<Long, Integer> seen = copies.get(p);
            assertThat(seen.keySet()).as("offsets of partition %d", p)
                    .containsExactlyElementsOf(LongStream.range(0, 1500).boxed().toList());
            int partition = p;
            assertThat(seen).as("copies per offset of partition %d", p)
                    .allSatisfy((offset, n) -> assertThat(n).as("copies of %d/%d", partition, offset).isOne());
        }
    }

    private void send(int partition, int count) {
        fx.producer.sendJson(fx.stream, TOPIC, partition, count, i -> "{\"p\":" + partition + ",\"i\":" + i + "}");
    }

    /** The stored object of {@code partition} whose first offset is {@code first}, read straight from MinIO. */
    private Optional<KeyRange> firstAt(long first, int partition) {
        return fx.objects().stream().map(o -> ObjectKey.parse(o.key())).flatMap(Optional::stream)
                .filter(r -> r.partitionId() == partition && r.firstOffset() == first).findFirst();
    }
}
