package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A heap far smaller than the default memory budget needs: the sink lowers its budget at start instead of dying of
 * OutOfMemoryError (which a supervisor would restart into the same death), and delivers everything.
 */
class SmallHeapIT extends E2eTest {
    private static final int PARTITIONS = 8;
    private static final int PER_PARTITION = 10_000;

    @Test
    @Timeout(300)
    void with_a_128_mib_heap_and_the_default_budget_the_sink_keeps_running_and_delivers_everything()
            throws Exception {
        // Open files on the heap: the default max_buffered_bytes (72 MiB) is more than 128 MiB of heap holds, so it
        // is lowered at start with a warning.
        String log = runWithSmallHeap("buffer_directory = \"\"", "small-heap");
        assertThat(log).contains("does not fit a heap of");
    }

    @Test
    @Timeout(300)
    void with_open_files_on_disk_a_128_mib_heap_holds_the_default_budget() throws Exception {
        String log = runWithSmallHeap("", "small-heap-disk");
        assertThat(log).doesNotContain("does not fit a heap of");
    }

    /** Sends, runs the sink with -Xmx128m until everything is committed, stops it, audits; the sink's log. */
    private String runWithSmallHeap(String pluginExtra, String logName) throws Exception {
        fx.topic("events", PARTITIONS);
        String payload = "{\"pad\":\"" + "x".repeat(1000) + "\",\"i\":%d}";
        for (int p = 0; p < PARTITIONS; p++) {
            fx.producer.sendJson(fx.stream, "events", p, PER_PARTITION, i -> payload.formatted(i));
        }
        // Default max_buffered_bytes and default 8 MiB files; the schedule seals the last partial files.
        Path config = fx.config(List.of("events"), "json", "rotate_schedule_interval = \"2s\"\n" + pluginExtra);
        List<String> cmd = new ArrayList<>(List.of(SinkProcess.javaBinary(), "-Xmx128m", "-XX:+UseSerialGC",
                "-jar", SinkProcess.jar().toString(), "run", "--config", config.toString(),
                "--status-interval", "2s"));
        String log;
        try (SinkProcess sink = SinkProcess.start(cmd, fx.log(logName), Map.of())) {
            fx.awaitCommitted(config, PARTITIONS, PER_PARTITION - 1, sink, Duration.ofSeconds(240),
                    Duration.ofSeconds(2));
            stopsCleanlyWithoutRunningOut(sink);
            log = sink.logText();
        }
        auditsClean(config);
        return log;
    }

    @Test
    @Timeout(300)
    void records_of_64_kib_do_not_run_a_small_heap_out_through_the_size_of_a_poll() throws Exception {
        // 1,000 records of 64 KiB are 64 MiB in one poll (batch_length), and one more poll runs ahead: polls must be
        // sized by the budget, from the very first one, before the sink has seen how large the records are.
        int partitions = 4;
        int perPartition = 1_000;
        fx.topic("large", partitions);
        String payload = "{\"pad\":\"" + "x".repeat(64 * 1024 - 40) + "\",\"i\":%d}";
        for (int p = 0; p < partitions; p++) {
            fx.producer.sendJson(fx.stream, "large", p, perPartition, i -> payload.formatted(i));
        }
        Path config = fx.config(List.of("large"), "json", "rotate_schedule_interval = \"2s\"");
        List<String> cmd = new ArrayList<>(List.of(SinkProcess.javaBinary(), "-Xmx128m", "-XX:+UseSerialGC",
                "-XX:+ExitOnOutOfMemoryError", "-jar", SinkProcess.jar().toString(), "run", "--config",
                config.toString(), "--status-interval", "2s"));
        try (SinkProcess sink = SinkProcess.start(cmd, fx.log("small-heap-64kib"), Map.of())) {
            fx.awaitCommitted(config, partitions, perPartition - 1, sink, Duration.ofSeconds(240),
                    Duration.ofSeconds(2));
            stopsCleanlyWithoutRunningOut(sink);
        }
        auditsClean(config);
    }

    @Test
    @Timeout(300)
    void a_first_poll_of_records_of_4_mib_does_not_run_the_launchers_heap_out() throws Exception {
        // 80 records of 4 MiB in one partition: a first poll sized by a guess of 64 KiB a record asks 288 of them,
        // 320 MiB on a 256 MiB heap; the first poll must not take more than the sink has room for.
        hugeRecordsLand(0, 80, List.of(), "small-heap-4mib");
    }

    @Test
    @Timeout(300)
    void records_that_grow_at_once_from_100_bytes_to_4_mib_are_read_on() throws Exception {
        // The polls after 10 small records are sized by them: batch_length records, of 4 MiB more than the client's
        // direct memory takes in, refused alike on every retry unless the next poll asks for less. The direct memory
        // is capped at 64 MiB so that the broker in this JVM answers that poll with 100 MB, not 335 as at the
        // launcher's 256 MiB.
        hugeRecordsLand(10, 24, List.of("-XX:MaxDirectMemorySize=64m"), "small-heap-grow");
    }

    /** {@code small} records of about 100 B, then {@code large} of 4 MiB, in one partition, on the launcher's heap. */
    private void hugeRecordsLand(int small, int large, List<String> jvmExtra, String logName) throws Exception {
        int perPartition = small + large;
        fx.topic("huge", 1);
        fx.producer.sendJson(fx.stream, "huge", 0, small, i -> "{\"pad\":\"" + "x".repeat(80) + "\",\"i\":" + i + "}");
        String payload = "{\"pad\":\"" + "x".repeat((4 << 20) - 40) + "\",\"i\":%d}";
        for (int i = small; i < perPartition; i += 2) {
            fx.producer.send(fx.stream, "huge", 0, List.of(payload.formatted(i).getBytes(StandardCharsets.UTF_8),
                    payload.formatted(i + 1).getBytes(StandardCharsets.UTF_8)));
        }
        Path config = fx.config(List.of("huge"), "json", "rotate_schedule_interval = \"2s\"");
        // the launcher's heap and collector (distribution/src/dist/bin/iggy-s3-sink)
        List<String> cmd = new ArrayList<>(List.of(SinkProcess.javaBinary(), "-Xmx256m", "-Xms48m", "-Xmn24m",
                "-XX:+UseSerialGC", "-XX:PretenureSizeThreshold=60k", "-XX:MinHeapFreeRatio=20",
                "-XX:+ExitOnOutOfMemoryError"));
        cmd.addAll(jvmExtra);
        cmd.addAll(List.of("-jar", SinkProcess.jar().toString(), "run", "--config", config.toString(),
                "--status-interval", "2s"));
        try (SinkProcess sink = SinkProcess.start(cmd, fx.log(logName), Map.of())) {
            fx.awaitCommitted(config, 1, perPartition - 1, sink, Duration.ofSeconds(240), Duration.ofSeconds(2));
            stopsCleanlyWithoutRunningOut(sink);
        }
        auditsClean(config);
    }

    private static void stopsCleanlyWithoutRunningOut(SinkProcess sink) throws Exception {
        assertThat(sink.alive()).as(sink.logText()).isTrue();
        sink.terminate();
        assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        assertThat(sink.logText()).doesNotContain("OutOfMemoryError");
    }

    private void auditsClean(Path config) {
        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("every committed offset is in exactly one object");
    }
}
