package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Time-based layout end to end. Iggy stamps records with the server's clock, so time boundaries are real ones:
 * the minute boundary stands in for the hour.
 */
class TimePartitioningIT {
    private E2eFixture fx;

    @BeforeEach
    void setUp() throws Exception {
        fx = E2eFixture.shared();
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    @Test
    @Timeout(180)
    void a_quiet_partition_is_flushed_by_the_wall_clock_schedule_within_the_interval() throws Exception {
        fx.topic("quiet", 1);
        Path config = fx.config(List.of("quiet"), "json", """
                max_file_size = "8MiB"
                rotate_schedule_interval = "2s"
                """);
        try (SinkProcess sink = SinkProcess.run(config, fx.log("schedule"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("consuming "));
            long sent = System.nanoTime();
            fx.producer.sendJson(fx.stream, "quiet", 0, 7, i -> "{\"i\":" + i + "}");
            await().atMost(Duration.ofSeconds(30)).until(() -> fx.committed(config, 0) == 6);
            long took = (System.nanoTime() - sent) / 1_000_000;
            System.out.printf("schedule flush: 7 records durable and committed %d ms after sending%n", took);
            // interval (2 s) + one upload + polling slack; far below the 8 MiB size threshold.
            assertThat(took).isLessThan(15_000);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
    }

    @Test
    @Timeout(400)
    void records_across_a_minute_boundary_land_in_two_hive_folders_and_kill_9_keeps_exactly_one_copy()
            throws Exception {
        fx.topic("hive", 1);
        Path config = fx.config(List.of("hive"), "json", """
                path_template = "{topic}/year={year}/month={month}/day={day}/hour={hour}/minute={minute}"
                max_open_files_per_partition = 4
                file_rotation = "messages"
                max_messages_per_file = 50
                rotate_interval = "20s"
                """);
        // Start sending 3 s before a minute ends and go on 3 s into the next.
        LocalTime now = LocalTime.now(ZoneOffset.UTC);
        long waitMs = ((60 - now.getSecond()) % 60) * 1000L - 3000 - now.getNano() / 1_000_000;
        if (waitMs < 0) waitMs += 60_000;
        Thread.sleep(waitMs);
        int sent = 0;
        Instant until = Instant.now().plusSeconds(6);
        while (Instant.now().isBefore(until)) {
            int base = sent;
            fx.producer.sendJson(fx.stream, "hive", 0, 20, i -> "{\"i\":" + (base + i) + "}");
            sent += 20;
            Thread.sleep(200);
        }
        int total = sent;
        SinkProcess first = SinkProcess.run(config, fx.log("hive-1"), Map.of());
        await().atMost(Duration.ofSeconds(60)).until(() -> !fx.objects().isEmpty());
        first.kill9();
        try (SinkProcess second = SinkProcess.run(config, fx.log("hive-2"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> second.logText().contains("consuming "));
            Thread.sleep(3000);
            second.terminate();
            assertThat(second.waitFor(Duration.ofSeconds(60))).as(second.logText()).isZero();
        }
        Set<String> minuteFolders = new TreeSet<>();
        Map<Long, Integer> seen = new java.util.TreeMap<>();
        Pattern folder = Pattern.compile("^hive/year=\\d{4}/month=\\d{2}/day=\\d{2}/hour=\\d{2}/minute=(\\d{2})/");
        Pattern line = Pattern.compile("^\\{\"offset\":(\\d+),\"timestamp\":\"[^\"]*:(\\d{2}):\\d{2}Z\"",
                Pattern.MULTILINE);
        for (S3Object o : fx.objects()) {
            Matcher f = folder.matcher(o.key());
            assertThat(f.find()).as(o.key()).isTrue();
            minuteFolders.add(f.group(1));
            Matcher l = line.matcher(fx.read(o.key()));
            while (l.find()) {
                assertThat(l.group(2)).as("record minute matches the folder of %s", o.key()).isEqualTo(f.group(1));
                seen.merge(Long.parseLong(l.group(1)), 1, Integer::sum);
            }
        }
        assertThat(minuteFolders).hasSize(2);
        assertThat(seen).hasSize(total);
        assertThat(seen.values()).as("copies per offset").containsOnly(1);
        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("committed=" + (total - 1) + " ");
    }
}
