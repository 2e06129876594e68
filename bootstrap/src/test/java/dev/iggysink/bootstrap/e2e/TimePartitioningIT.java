package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Time-based layout end to end. Iggy stamps records with the server's clock, so time boundaries are real ones:
 * the minute boundary stands in for the hour.
 */
class TimePartitioningIT extends E2eTest {
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
        // Send from 3 s before a minute ends to 3 s into the next. The broker stamps each record when it appends it:
        // a sender held up past the boundary (a pause of the test JVM) would put everything in one minute and test
        // nothing, so such an attempt is dropped (its topic is not read) and the next minute is tried.
        String topic = null;
        int total = 0;
        for (int attempt = 0; attempt < 3 && topic == null; attempt++) {
            String name = "hive" + attempt;
            fx.topic(name, 1);
            // The first minute boundary at least 3 s away.
            Instant boundary = Instant.now().plusSeconds(3).truncatedTo(ChronoUnit.MINUTES).plusSeconds(60);
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), boundary.minusSeconds(3)).toMillis()));
            int sent = 0;
            Instant firstSent = null;
            Instant until = boundary.plusSeconds(3);
            while (Instant.now().isBefore(until)) {
                int base = sent;
                fx.producer.sendJson(fx.stream, name, 0, 20, i -> "{\"i\":" + (base + i) + "}");
                if (firstSent == null) firstSent = Instant.now();
                sent += 20;
                Thread.sleep(200);
            }
            if (firstSent != null && firstSent.isBefore(boundary)) {
                topic = name;
                total = sent;
            }
        }
        assertThat(topic).as("three attempts to send across a minute boundary were all held up past it")
                .isNotNull();
        Path config = fx.config(List.of(topic), "json", """
                path_template = "{topic}/year={year}/month={month}/day={day}/hour={hour}/minute={minute}"
                max_open_files_per_partition = 4
                accept_at_least_once = true
                file_rotation = "messages"
                max_messages_per_file = 50
                rotate_interval = "20s"
                """);
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
        Pattern folder = Pattern.compile("^" + topic
                + "/year=\\d{4}/month=\\d{2}/day=\\d{2}/hour=\\d{2}/minute=(\\d{2})/");
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
