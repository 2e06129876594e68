package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.testkit.s3.MinioServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Stop signals as a supervisor sends them: SIGHUP like SIGTERM, and a second signal that cuts a long drain short. */
class SignalsIT {

    @Test
    @Timeout(180)
    void sighup_stops_the_sink_gracefully_like_sigterm() throws Exception {
        // A process started with SIGHUP ignored (under nohup) hands that on to the sink, and the JVM then leaves it
        // ignored: the sink would rightly not stop, and there is nothing of ours to test.
        Assumptions.assumeFalse(sighupIgnoredHere(), "SIGHUP is ignored in this process (started under nohup?)");
        try (E2eFixture fx = E2eFixture.shared()) {
            fx.topic("hup", 1);
            fx.producer.sendJson(fx.stream, "hup", 0, 50, i -> "{\"i\":" + i + "}");
            Path config = fx.config(List.of("hup"), "json", "");
            try (SinkProcess sink = SinkProcess.run(config, fx.log("hup"), Map.of())) {
                await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("reading from offset"));
                Thread.sleep(1500);
                sink.signal("HUP");
                assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
                assertThat(sink.logText()).contains("stop requested");
            }
            assertThat(fx.committed(config, 0)).isEqualTo(49);
        }
    }

    /** Bit 0 of {@code SigIgn} in {@code /proc/self/status} is SIGHUP (signal 1). */
    private static boolean sighupIgnoredHere() throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("SigIgn:")) return (Long.parseLong(line.substring(7).trim(), 16) & 1) != 0;
        }
        return false;
    }

    @Test
    @Timeout(180)
    void a_second_signal_during_a_stop_ends_the_wait_for_uploads_and_exits_1() throws Exception {
        try (E2eFixture fx = new E2eFixture(MinioServer.start(), true)) {
            Assumptions.assumeTrue(fx.minio.managed(), "needs a MinIO this test can stop (not S3_TEST_ENDPOINT)");
            fx.topic("twice", 1);
            fx.producer.sendJson(fx.stream, "twice", 0, 50, i -> "{\"i\":" + i + "}");
            Path config = fx.config(List.of("twice"), "json", "shutdown_timeout = \"120s\"");
            try (SinkProcess sink = SinkProcess.run(config, fx.log("twice"), Map.of())) {
                await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("reading from offset"));
                Thread.sleep(1500);
                fx.minio.stop();
                sink.terminate();
                await().atMost(Duration.ofSeconds(30)).until(() -> sink.logText().contains("stop requested"));
                Thread.sleep(1000);
                sink.terminate();
                // Well inside the 120 s shutdown timeout: the second signal, not the timeout, ended the stop.
                assertThat(sink.waitFor(Duration.ofSeconds(40))).as(sink.logText()).isEqualTo(1);
                assertThat(sink.logText()).contains("second stop signal").contains("will be read again");
            } finally {
                fx.minio.restart();
            }
        }
    }
}
