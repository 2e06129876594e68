package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.testkit.iggy.IggyProducer;
import dev.iggysink.testkit.s3.MinioServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Store outages and broker disconnects: the sink rides them out by itself and loses nothing. */
class OutageIT {
    private E2eFixture fx;

    @BeforeEach
    void setUp() throws Exception {
        // A MinIO of its own: these tests stop and restart it.
        fx = new E2eFixture(MinioServer.start(), true);
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    @Test
    @Timeout(300)
    void minio_down_for_30_seconds_mid_run_loses_nothing_and_the_sink_recovers_by_itself() throws Exception {
        Assumptions.assumeTrue(fx.minio.managed(), "needs a MinIO this test can stop (not S3_TEST_ENDPOINT)");
        fx.topic("clicks", 2);
        Path config = fx.config(List.of("clicks"), "json", """
                file_rotation = "messages"
                max_messages_per_file = 100
                """);
        try (SinkProcess sink = SinkProcess.run(config, fx.log("outage"), Map.of())) {
            for (int p = 0; p < 2; p++) fx.producer.sendJson(fx.stream, "clicks", p, 1000, i -> "{\"i\":" + i + "}");
            await().atMost(Duration.ofSeconds(60)).until(() -> fx.committed(config, 0) == 999);

            fx.minio.stop();
            for (int p = 0; p < 2; p++) fx.producer.sendJson(fx.stream, "clicks", p, 1000, i -> "{\"i\":" + i + "}");
            Thread.sleep(30_000);
            assertThat(sink.logText()).contains("object store degraded");
            assertThat(sink.alive()).isTrue();
            fx.minio.restart();

            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> fx.committed(config, 0) == 1999 && fx.committed(config, 1) == 1999);
            assertThat(sink.logText()).contains("object store recovered");
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("AUDIT OK: every committed offset is in exactly one object");
    }

    @Test
    @Timeout(300)
    void uploads_waiting_out_an_hour_of_backoff_go_up_once_minio_is_back() throws Exception {
        Assumptions.assumeTrue(fx.minio.managed(), "needs a MinIO this test can stop (not S3_TEST_ENDPOINT)");
        fx.topic("clicks", 2);
        // An hour between attempts: only the probe of the store (issue 35 item 4) brings these uploads up.
        Path config = fx.config(List.of("clicks"), "json", """
                file_rotation = "messages"
                max_messages_per_file = 100
                retry_delay = "1h"
                retry_max_delay = "1h"
                """);
        try (SinkProcess sink = SinkProcess.run(config, fx.log("probe"), Map.of())) {
            for (int p = 0; p < 2; p++) fx.producer.sendJson(fx.stream, "clicks", p, 100, i -> "{\"i\":" + i + "}");
            await().atMost(Duration.ofSeconds(60)).until(() -> fx.committed(config, 0) == 99
                    && fx.committed(config, 1) == 99 || !sink.alive());

            fx.minio.stop();
            for (int p = 0; p < 2; p++) fx.producer.sendJson(fx.stream, "clicks", p, 100, i -> "{\"i\":" + i + "}");
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("object store degraded")
                    || !sink.alive());
            // Long enough for the probe (every second) to find the store down at least once.
            Thread.sleep(3_000);
            fx.minio.restart();

            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() ->
                    fx.committed(config, 0) == 199 && fx.committed(config, 1) == 199 || !sink.alive());
            assertThat(sink.logText()).contains("object store answers again").contains("object store recovered");
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
    }

    @Test
    @Timeout(300)
    void sigterm_with_minio_down_exits_non_zero_and_the_next_start_completes_the_data() throws Exception {
        Assumptions.assumeTrue(fx.minio.managed(), "needs a MinIO this test can stop (not S3_TEST_ENDPOINT)");
        fx.topic("late", 1);
        fx.producer.sendJson(fx.stream, "late", 0, 500, i -> "{\"i\":" + i + "}");
        Path config = fx.config(List.of("late"), "json", "shutdown_timeout = \"3s\"");
        try (SinkProcess sink = SinkProcess.run(config, fx.log("down-stop"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("consuming "));
            Thread.sleep(1500);
            fx.minio.stop();
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(1);
            assertThat(sink.logText()).contains("will be read again");
        }
        fx.minio.restart();
        assertThat(fx.committed(config, 0)).isEqualTo(-1);
        try (SinkProcess sink = SinkProcess.run(config, fx.log("down-restart"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("consuming "));
            Thread.sleep(1500);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        assertThat(fx.committed(config, 0)).isEqualTo(499);
        assertThat(fx.audit(config).exitCode()).isZero();
    }

    @Test
    @Timeout(300)
    void the_broker_closing_the_sinks_connection_mid_run_is_survived_with_full_coverage() throws Exception {
        Assumptions.assumeTrue(fx.iggy.embedded(), "needs the in-JVM broker to cut connections");
        fx.topic("stream", 2);
        Path config = fx.config(List.of("stream"), "json", """
                file_rotation = "messages"
                max_messages_per_file = 250
                """);
        try (SinkProcess sink = SinkProcess.run(config, fx.log("drop"), Map.of())) {
            for (int round = 0; round < 3; round++) {
                // A connection of its own each round: the cuts below close every connection of the broker, the
                // test's own too, and a client whose idle socket was reset fails its next call.
                try (IggyProducer producer = IggyProducer.connect(fx.iggy.host(), fx.iggy.port())) {
                    for (int p = 0; p < 2; p++) {
                        producer.sendJson(fx.stream, "stream", p, 1000, i -> "{\"i\":" + i + "}");
                    }
                }
                long target = (round + 1) * 1000L - 1;
                await().atMost(Duration.ofSeconds(90)).until(() -> fx.committed(config, 0) >= target - 500);
                if (round == 0) fx.iggy.server().orElseThrow().dropConnections();
                else fx.iggy.server().orElseThrow().resetConnections();
            }
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> fx.committed(config, 0) == 2999 && fx.committed(config, 1) == 2999);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
            // The sink says what happened, once per cut; the Iggy client's own ERROR lines would only repeat it.
            assertThat(sink.logText().lines().filter(l -> l.contains(" ERROR ")).toList()).as(sink.logText())
                    .isEmpty();
            assertThat(sink.logText()).contains("Iggy session lost");
        }
        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("committed=2999 ");
    }
}
