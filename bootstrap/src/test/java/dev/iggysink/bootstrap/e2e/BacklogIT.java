package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.testkit.s3.MinioServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The fat jar on the in-JVM broker and MinIO: lag in {@code /status} and {@code /metrics} is the partition's backlog
 * while the sink is paused and while the store is down, not what its last poll saw.
 */
class BacklogIT {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration WAIT = Duration.ofSeconds(90);
    private E2eFixture fx;

    @BeforeEach
    void setUp() throws Exception {
        // A MinIO of its own: the outage test stops and restarts it.
        fx = new E2eFixture(MinioServer.start(), true);
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    /** Partition 0 in {@code /status}; null while the admin server does not answer or the sink has no partition. */
    private static JsonNode partition0(int port) {
        HttpResponse<String> r = E2eFixture.admin(port, "/status");
        if (r == null) return null;
        JsonNode p = JSON.readTree(r.body()).path("sinks").path(0).path("partitions").path(0);
        return p.isMissingNode() ? null : p;
    }

    private static long field(int port, String name) {
        JsonNode p = partition0(port);
        return p == null ? Long.MIN_VALUE : p.get(name).asLong();
    }

    private static HttpResponse<String> post(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @Timeout(300)
    void paused_with_unread_records_the_lag_is_the_backlog_and_health_says_paused() throws Exception {
        fx.topic("clicks", 1);
        int port = E2eFixture.freePort();
        Path config = fx.withAdmin(fx.config(List.of("clicks"), "json", ""), port, "paused");
        try (SinkProcess sink = SinkProcess.run(config, fx.log("paused"), Map.of())) {
            fx.producer.sendJson(fx.stream, "clicks", 0, 100, i -> "{\"i\":" + i + "}");
            await().atMost(WAIT).until(() -> field(port, "position") == 100);
            assertThat(post(port, "/pause").statusCode()).isEqualTo(200);

            fx.producer.sendJson(fx.stream, "clicks", 0, 300, i -> "{\"late\":" + i + "}");
            // Nothing committed yet (the open file holds 0-99): offsets 0-399 are all backlog.
            await().atMost(WAIT).untilAsserted(() -> assertThat(field(port, "lag")).isEqualTo(400));
            assertThat(field(port, "position")).as("paused: nothing more read").isEqualTo(100);
            assertThat(E2eFixture.admin(port, "/metrics").body())
                    .containsPattern("iggysink_lag_records\\{[^}]*partition=\"0\"[^}]*} 400\\.0");
            HttpResponse<String> health = E2eFixture.admin(port, "/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(health.body()).get("status").asString()).isEqualTo("paused");
            assertThat(E2eFixture.admin(port, "/live").statusCode()).isEqualTo(200);

            assertThat(post(port, "/resume").statusCode()).isEqualTo(200);
            await().atMost(WAIT).until(() -> field(port, "position") == 400);
            assertThat(post(port, "/flush").statusCode()).isEqualTo(202);
            await().atMost(WAIT).until(() -> field(port, "committed") == 399);
            await().atMost(WAIT).untilAsserted(() -> assertThat(field(port, "lag")).isZero());
            assertThat(field(port, "oldest_pending_record_age_seconds")).isZero();
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
    }

    @Test
    @Timeout(300)
    void with_the_store_down_the_lag_grows_with_the_backlog_and_falls_once_it_is_back() throws Exception {
        Assumptions.assumeTrue(fx.minio.managed(), "needs a MinIO this test can stop (not S3_TEST_ENDPOINT)");
        fx.topic("clicks", 1);
        int port = E2eFixture.freePort();
        Path config = fx.withAdmin(fx.config(List.of("clicks"), "json", """
                file_rotation = "messages"
                max_messages_per_file = 100
                """), port, "outage");
        try (SinkProcess sink = SinkProcess.run(config, fx.log("outage-lag"), Map.of())) {
            fx.producer.sendJson(fx.stream, "clicks", 0, 100, i -> "{\"i\":" + i + "}");
            await().atMost(WAIT).until(() -> field(port, "committed") == 99);

            fx.minio.stop();
            fx.producer.sendJson(fx.stream, "clicks", 0, 100, i -> "{\"i\":" + i + "}");
            // 100-199 cannot go up: once its failure is shown, the partition reads no further.
            await().atMost(WAIT).until(() -> field(port, "pending_uploads") == 1 && partition0(port) != null
                    && !partition0(port).get("last_error").isNull());
            fx.producer.sendJson(fx.stream, "clicks", 0, 600, i -> "{\"late\":" + i + "}");
            await().atMost(WAIT).untilAsserted(() -> assertThat(field(port, "lag")).as("799 - 99").isEqualTo(700));
            assertThat(field(port, "oldest_pending_record_age_seconds")).isNotNegative();

            fx.minio.restart();
            await().atMost(Duration.ofSeconds(180)).until(() -> field(port, "committed") == 799);
            await().atMost(WAIT).untilAsserted(() -> assertThat(field(port, "lag")).isZero());
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
    }
}
