package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three sinks in one consumer group while records keep arriving: one joins late, one is killed with -9, one stops
 * gracefully, the last one finishes. Whatever moved where, the bucket must hold every offset exactly once (one open
 * file per partition, count or size rotation: files sealed at the stop are found by key, the rest are replayed under
 * the same keys).
 */
class RebalanceIT extends E2eTest {
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 6;
    private static final int PER_ROUND = 25;
    /** A bound on what a slow machine produces while the members come and go. */
    private static final int MAX_ROUNDS = 400;

    @Test
    @Timeout(240)
    void join_kill_9_stop_and_finish_leave_every_offset_exactly_once_count_rotation() throws Exception {
        scene("count", """
                file_rotation = "messages"
                max_messages_per_file = 70
                """, 70);
    }

    @Test
    @Timeout(240)
    void join_kill_9_stop_and_finish_leave_every_offset_exactly_once_size_rotation() throws Exception {
        // About 90 bytes a line: a file holds some 45 records.
        scene("size", """
                file_rotation = "size"
                max_file_size = "4KB"
                """, 60);
    }

    private void scene(String name, String rotation, long recordsPerFileAtMost) throws Exception {
        fx.topic(TOPIC, PARTITIONS);
        Path config = fx.config(List.of(TOPIC), "json", rotation);
        long perPartition;
        try (SinkProcess a = SinkProcess.run(config, fx.log(name + "-a"), Map.of());
             SinkProcess b = SinkProcess.run(config, fx.log(name + "-b"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> a.logText().contains("consuming ")
                    && b.logText().contains("consuming "));
            Rounds rounds = Rounds.start(fx, TOPIC, PARTITIONS, PER_ROUND, MAX_ROUNDS,
                    (round, partition, i) -> "{\"round\":" + round + ",\"p\":" + partition + ",\"i\":" + i + "}");
            rounds.awaitSent(5);
            try (SinkProcess c = SinkProcess.run(config, fx.log(name + "-c"), Map.of())) {
                // c is a member now; with 0.8's cooperative join it gets partitions once their holders let go.
                await().atMost(Duration.ofSeconds(60)).until(() -> c.logText().contains("consuming "));
                rounds.awaitMore(5);
                a.kill9();

                rounds.awaitMore(10);
                b.terminate();
                assertThat(b.waitFor(Duration.ofSeconds(60))).as("graceful stop of b:\n%s", b.logText()).isZero();

                rounds.awaitMore(5);
                perPartition = rounds.finish();
                // Within one file of the end everywhere: the rest is c's open file, sealed and committed by its stop.
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> {
                    Map<Integer, Long> committed = fx.committedOffsets(config);
                    return IntStream.range(0, PARTITIONS).allMatch(p ->
                            committed.getOrDefault(p, -1L) >= perPartition - 1 - recordsPerFileAtMost);
                });
                Thread.sleep(1000);
                c.terminate();
                assertThat(c.waitFor(Duration.ofSeconds(60))).as("graceful stop of c:\n%s", c.logText()).isZero();
            }
        }

        Map<Integer, Long> committed = fx.committedOffsets(config);
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(committed.get(p)).as("committed offset of partition %d", p).isEqualTo(perPartition - 1);
        }
        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).as(audit.output())
                .contains("AUDIT OK: every committed offset is in exactly one object");
        E2eFixture.assertEveryOffsetOnce(fx.copies(TOPIC), "bucket", PARTITIONS, perPartition);
    }
}
