package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.domain.naming.KeyRange;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/** The sink as users run it: the fat jar as a child process, the real Iggy client producing, a real MinIO. */
class DeliveryIT extends E2eTest {
    private static final Pattern LINE_OFFSET = Pattern.compile("^\\{\"offset\":(\\d+),", Pattern.MULTILINE);

    /** Offset → how many objects hold it, for one partition, checking each object's key against its lines. */
    private Map<Long, Integer> coverage(String topic, int partition) {
        Map<Long, Integer> seen = new TreeMap<>();
        for (S3Object o : fx.objects()) {
            if (!o.key().contains("/" + topic + "/") || o.key().contains("/_dlq/")) continue;
            Optional<KeyRange> range = ObjectKey.parse(o.key());
            if (range.isEmpty() || range.get().partitionId() != partition) continue;
            Matcher m = LINE_OFFSET.matcher(fx.read(o.key()));
            long first = -1;
            long last = -1;
            while (m.find()) {
                long off = Long.parseLong(m.group(1));
                if (first < 0) first = off;
                last = off;
                seen.merge(off, 1, Integer::sum);
            }
            assertThat(first).as("first offset in %s", o.key()).isEqualTo(range.get().firstOffset());
            assertThat(last).as("last offset in %s", o.key()).isEqualTo(range.get().lastOffset());
        }
        return seen;
    }

    private static void assertExactlyOnce(Map<Long, Integer> seen, long count) {
        assertThat(seen).as("offsets covered").hasSize((int) count);
        assertThat(seen.keySet()).allSatisfy(o -> assertThat(o).isBetween(0L, count - 1));
        assertThat(seen.values()).as("copies per offset").containsOnly(1);
    }

    @Test
    @Timeout(120)
    void the_seed_minio_example_writes_one_object_with_the_seeds_key_layout_and_line() throws Exception {
        fx.topic("api_requests", 1);
        fx.producer.sendJson(fx.stream, "api_requests", 0, 1,
                i -> "{\"method\":\"GET\",\"path\":\"/api/users\",\"status\":200}");
        Path config = fx.config(List.of("api_requests"), "json", """
                file_rotation = "messages"
                max_messages_per_file = 1
                output_format = "json_lines"
                """);
        try (SinkProcess sink = SinkProcess.run(config, fx.log("seed"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> fx.objects().size() == 1);
            String key = fx.objects().get(0).key();
            Matcher k = Pattern.compile("^" + fx.stream + "/api_requests/(\\d{4}-\\d{2}-\\d{2})/(\\d{2})/"
                    + "00000-00000000000000000000-00000000000000000000\\.jsonl$").matcher(key);
            assertThat(k.matches()).as("key %s", key).isTrue();
            String line = fx.read(key);
            assertThat(line).matches("\\{\"offset\":0,\"timestamp\":\"" + k.group(1) + "T" + k.group(2)
                    + ":\\d{2}:\\d{2}Z\",\"stream\":\"" + fx.stream + "\",\"topic\":\"api_requests\","
                    + "\"partition_id\":0,\"payload\":\\{\"method\":\"GET\",\"path\":\"/api/users\",\"status\":200}}\n");
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
    }

    @Test
    @Timeout(300)
    void three_partitions_of_20000_messages_with_count_rotation_are_covered_exactly_once() throws Exception {
        fx.topic("orders", 3);
        Path config = fx.config(List.of("orders"), "json", """
                file_rotation = "messages"
                max_messages_per_file = 1000
                """);
        for (int p = 0; p < 3; p++) {
            int part = p;
            fx.producer.sendJson(fx.stream, "orders", p, 20_000, i -> "{\"p\":" + part + ",\"i\":" + i + "}");
        }
        try (SinkProcess sink = SinkProcess.run(config, fx.log("three"), Map.of())) {
            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> fx.objects().size() == 60);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        for (int p = 0; p < 3; p++) assertExactlyOnce(coverage("orders", p), 20_000);
        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("AUDIT OK: every committed offset is in exactly one object")
                .contains("committed=19999");
    }

    @Test
    @Timeout(600)
    void kill_9_at_random_points_loses_nothing_and_leaves_exactly_one_copy_count_rotation() throws Exception {
        crashAndRecover("count", """
                file_rotation = "messages"
                max_messages_per_file = 500
                """);
    }

    @Test
    @Timeout(600)
    void kill_9_at_random_points_loses_nothing_and_leaves_exactly_one_copy_size_rotation() throws Exception {
        crashAndRecover("size", """
                file_rotation = "size"
                max_file_size = "20KB"
                """);
    }

    private void crashAndRecover(String name, String rotation) throws Exception {
        fx.topic("events", 2);
        Path config = fx.config(List.of("events"), "json", rotation);
        int perRound = 3000;
        int rounds = 5;
        long recoveryMillis = 0;
        Map<String, Integer> uploads = new HashMap<>();
        for (int round = 0; round < rounds; round++) {
            SinkProcess sink = SinkProcess.run(config, fx.log(name + "-" + round), Map.of());
            long started = System.nanoTime();
            int r = round;
            for (int p = 0; p < 2; p++) {
                int part = p;
                fx.producer.sendJson(fx.stream, "events", p, perRound,
                        i -> "{\"round\":" + r + ",\"p\":" + part + ",\"i\":" + i + ",\"pad\":\"" + "x".repeat(40)
                                + "\"}");
            }
            int before = fx.objects().size();
            await().atMost(Duration.ofSeconds(90)).until(() -> fx.objects().size() > before);
            recoveryMillis += (System.nanoTime() - started) / 1_000_000;
            Thread.sleep(ThreadLocalRandom.current().nextInt(50, 1500));
            sink.kill9();
            countUploads(sink.logText(), uploads);
        }
        try (SinkProcess last = SinkProcess.run(config, fx.log(name + "-final"), Map.of())) {
            long total = (long) perRound * rounds;
            await().atMost(Duration.ofSeconds(60)).until(() -> last.logText().contains("consuming "));
            // Within one file of the end on both partitions; the graceful stop then seals and commits the tail.
            Pattern committed = Pattern.compile("committed=(-?\\d+) ");
            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                Matcher m = committed.matcher(fx.audit(config).output());
                int near = 0;
                while (m.find()) if (Long.parseLong(m.group(1)) >= total - 600) near++;
                return near == 2;
            });
            Thread.sleep(1000);
            last.terminate();
            assertThat(last.waitFor(Duration.ofSeconds(60))).as(last.logText()).isZero();
            countUploads(last.logText(), uploads);
            for (int p = 0; p < 2; p++) assertExactlyOnce(coverage("events", p), total);
        }
        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("AUDIT OK: every committed offset is in exactly one object")
                .contains("committed=" + (perRound * rounds - 1) + " ");
        long rewritten = uploads.values().stream().filter(n -> n > 1).count();
        System.out.printf("crash test (%s rotation): %d objects, %d keys uploaded more than once (identical"
                + " content, overwritten), mean time to first new object after restart %d ms%n", name,
                fx.objects().size(), rewritten, recoveryMillis / rounds);
    }

    private static void countUploads(String log, Map<String, Integer> uploads) {
        Matcher m = Pattern.compile("uploaded (\\S+) \\(").matcher(log);
        while (m.find()) uploads.merge(m.group(1), 1, Integer::sum);
    }

    @Test
    @Timeout(180)
    void sigterm_with_the_store_up_exits_0_with_everything_durable() throws Exception {
        fx.topic("logs", 1);
        fx.producer.sendJson(fx.stream, "logs", 0, 777, i -> "{\"i\":" + i + "}");
        Path config = fx.config(List.of("logs"), "json", "max_file_size = \"8MiB\"");
        try (SinkProcess sink = SinkProcess.run(config, fx.log("term"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("consuming "));
            Thread.sleep(1500);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        assertExactlyOnce(coverage("logs", 0), 777);
        assertThat(fx.audit(config).output()).contains("committed=776 ");
    }

    @Test
    @Timeout(240)
    void a_malformed_json_payload_halts_the_partition_with_tolerance_none_and_is_dead_lettered_with_all()
            throws Exception {
        fx.topic("bad", 1);
        fx.producer.sendJson(fx.stream, "bad", 0, 10, i -> i == 4 ? "{\"broken\": " : "{\"i\":" + i + "}");
        Path none = fx.config(List.of("bad"), "json", "file_rotation = \"messages\"\nmax_messages_per_file = 2");
        try (SinkProcess sink = SinkProcess.run(none, fx.log("bad-none"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("offset 4"));
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as("exit code of a halted sink").isEqualTo(1);
            assertThat(sink.logText()).contains("bad record at stream " + fx.stream + ", topic bad, partition 0, offset 4");
        }
        assertThat(coverage("bad", 0).keySet()).containsExactly(0L, 1L, 2L, 3L);
        assertThat(fx.audit(none).output()).contains("committed=3 ");

        Path all = fx.config(List.of("bad"), "json",
                "file_rotation = \"messages\"\nmax_messages_per_file = 2\nerrors_tolerance = \"all\"");
        try (SinkProcess sink = SinkProcess.run(all, fx.log("bad-all"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> fx.objects().stream()
                    .anyMatch(o -> o.key().equals("_dlq/" + fx.stream + "/bad/00000-00000000000000000004.json")));
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        String letter = fx.read("_dlq/" + fx.stream + "/bad/00000-00000000000000000004.json");
        assertThat(letter).contains("\"offset\":4", "\"payload_base64\":\"eyJicm9rZW4iOiA=\"");
        Map<Long, Integer> seen = coverage("bad", 0);
        assertThat(seen.keySet()).containsExactly(0L, 1L, 2L, 3L, 5L, 6L, 7L, 8L, 9L);
        assertThat(seen.values()).containsOnly(1);
        E2eFixture.AuditResult audit = fx.audit(all);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("committed=9 ")
                .contains("offset 4 is in dead-letter objects under _dlq/" + fx.stream + "/bad/")
                .contains("1 offset(s) are only in dead-letter objects");
    }
}
