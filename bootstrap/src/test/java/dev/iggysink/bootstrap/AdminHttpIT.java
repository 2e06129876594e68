package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import dev.iggysink.adapters.config.ConnectorConfig;
import dev.iggysink.bootstrap.admin.AdminHttpServer;
import dev.iggysink.bootstrap.admin.PrometheusMetrics;
import dev.iggysink.bootstrap.admin.PrometheusText;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;
import dev.iggysink.testkit.s3.MinioServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The admin endpoints in front of a real sink: the in-JVM Iggy broker (or IGGY_TCP_ADDRESS), a MinIO of its own
 * (stopped and restarted here), the connector file read by the config adapter, and the same wiring as {@code run}.
 */
class AdminHttpIT {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String TOKEN = "admin-" + UUID.randomUUID();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private MinioServer minio;
    private IggyEndpoint iggy;
    private IggyProducer producer;
    private String stream;
    private PrometheusMetrics metrics;
    private SinkRunner runner;
    private AdminHttpServer admin;
    private String base;

    @BeforeEach
    void setUp() throws Exception {
        // Application logs go through System.Logger: bridged as in Main, so the secret check sees them too.
        Logging.bridgeJul();
        logs.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
        minio = MinioServer.start();
        iggy = IggyEndpoint.fromEnvOrEmbedded();
        String id = UUID.randomUUID().toString().substring(0, 8);
        stream = "admin_" + id;
        String bucket = "admin-" + id;
        minio.createBucket(bucket);
        producer = IggyProducer.connect(iggy.host(), iggy.port());
        producer.createStreamIfMissing(stream);
        producer.createTopicIfMissing(stream, "clicks", 2);

        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path dir = Files.createTempDirectory("sink-admin-");
        Path file = dir.resolve("s3_sink.toml");
        Files.writeString(file, config(bucket, port), StandardCharsets.UTF_8);
        ConfigResult config = ConnectorConfigLoader.load(file, Map.of());
        assertThat(config.errors()).isEmpty();
        ConnectorConfig settings = config.sinks().get(0);

        metrics = new PrometheusMetrics();
        runner = new SinkRunner();
        // The same two steps as RunCommand: the admin server first, then each sink with its meters.
        admin = RunCommand.startAdmin(config.sinks(), runner, metrics).orElseThrow();
        runner.start(settings, metrics.forSink(settings.key()));
        base = "http://127.0.0.1:" + admin.address().orElseThrow().getPort();
    }

    private String config(String bucket, int adminPort) {
        return S3SinkFiles.text(iggy.address(), stream, "clicks", "s3_sink", minio, bucket, """
                max_messages_per_file = 50

                [admin]
                address = "127.0.0.1:%d"
                token = "%s"
                """.formatted(adminPort, TOKEN));
    }

    @AfterEach
    void tearDown() throws Exception {
        try {
            if (runner != null) {
                runner.requestStop();
                runner.awaitAll();
                runner.close();
            }
            if (admin != null) admin.close();
            if (metrics != null) metrics.close();
        } finally {
            ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
            try {
                producer.deleteStream(stream);
            } catch (RuntimeException ignored) {
                // best effort
            }
            producer.close();
            iggy.close();
            minio.close();
        }
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String authorization) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .POST(HttpRequest.BodyPublishers.noBody());
        if (authorization != null) b.header("Authorization", authorization);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private long committed(int partition) throws IOException, InterruptedException {
        for (JsonNode p : JSON.readTree(get("/status").body()).get("sinks").get(0).get("partitions")) {
            if (p.get("partition").asInt() == partition) return p.get("committed").asLong();
        }
        return Long.MIN_VALUE;
    }

    /** The data objects: claims of committed files may wait for their batch delete (ADR 0013). */
    private long objects() {
        return minio.client().listObjectsV2(b -> b.bucket(bucketName())).contents().stream()
                .filter(o -> dev.iggysink.domain.naming.ObjectKey.parse(o.key()).isPresent()).count();
    }

    private String bucketName() {
        return "admin-" + stream.substring("admin_".length());
    }

    @Test
    @Timeout(300)
    void health_status_metrics_and_controls_follow_the_real_sink_through_a_store_outage() throws Exception {
        assertThat(get("/health").statusCode()).isEqualTo(200);
        for (int p = 0; p < 2; p++) producer.sendJson(stream, "clicks", p, 100, i -> "{\"i\":" + i + "}");

        // /status shows the group's offsets once the files are durable.
        await().atMost(WAIT).until(() -> committed(0) == 99 && committed(1) == 99);
        JsonNode status = JSON.readTree(get("/status").body());
        assertThat(status.get("status").asString()).isEqualTo("ok");
        assertThat(status.get("totals").get("records_consumed").asLong()).isEqualTo(200);
        assertThat(status.get("totals").get("objects_uploaded").asLong()).isEqualTo(4);
        JsonNode p0 = status.get("sinks").get(0).get("partitions").get(0);
        assertThat(p0.get("stream").asString()).isEqualTo(stream);
        assertThat(p0.get("owned").asBoolean()).isTrue();
        assertThat(p0.get("last_upload_key").asString()).contains("clicks");

        // /metrics is Prometheus text; its consumed counter is what was sent.
        HttpResponse<String> scraped = get("/metrics");
        assertThat(scraped.headers().firstValue("Content-Type")).hasValue(PrometheusMetrics.CONTENT_TYPE);
        PrometheusText text = PrometheusText.parse(scraped.body());
        assertThat(text.sum("iggysink_consumed_records_total", Map.of("sink", "s3", "stream", stream)))
                .isEqualTo(200);
        assertThat(text.sum("iggysink_committed_offset", Map.of("partition", "1"))).isEqualTo(99);
        assertThat(text.sum("iggysink_upload_duration_seconds_count", Map.of("sink", "s3"))).isEqualTo(4);
        assertThat(text.has("jvm_memory_used_bytes")).isTrue();

        // A partial file (10 of 50 records) stays in memory until /flush; only the right token may ask.
        producer.sendJson(stream, "clicks", 0, 10, i -> "{\"late\":" + i + "}");
        await().atMost(WAIT).until(() -> JSON.readTree(get("/status").body()).get("totals")
                .get("records_consumed").asLong() == 210);
        assertThat(post("/flush", null).statusCode()).isEqualTo(401);
        assertThat(post("/flush", "Bearer not-" + TOKEN).statusCode()).isEqualTo(401);
        Thread.sleep(500);
        assertThat(committed(0)).isEqualTo(99);
        assertThat(objects()).isEqualTo(4);
        assertThat(post("/flush", "Bearer " + TOKEN).statusCode()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(15)).until(() -> committed(0) == 109);
        assertThat(objects()).isEqualTo(5);

        // The store goes away: degraded (still working toward delivery), with the reason; back to ok after.
        minio.stop();
        producer.sendJson(stream, "clicks", 1, 50, i -> "{\"i\":" + i + "}");
        await().atMost(WAIT).until(() -> get("/health").statusCode() == 503);
        JsonNode degraded = JSON.readTree(get("/health").body());
        assertThat(degraded.get("status").asString()).isEqualTo("degraded");
        assertThat(degraded.get("reasons").get(0).asString()).contains("object store failing since");
        minio.restart();
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1))
                .until(() -> get("/health").statusCode() == 200);
        await().atMost(WAIT).until(() -> committed(1) == 149);
        assertThat(PrometheusText.parse(get("/metrics").body())
                .sum("iggysink_upload_retries_total", Map.of("sink", "s3"))).isPositive();

        runner.requestStop();
        assertThat(runner.awaitAll()).isTrue();
        assertNoSecretIn(logs);
    }

    private void assertNoSecretIn(ListAppender<ILoggingEvent> appender) {
        StringBuilder all = new StringBuilder();
        for (ILoggingEvent e : appender.list) {
            all.append(e.getFormattedMessage()).append('\n');
            if (e.getThrowableProxy() != null) all.append(ThrowableProxyUtil.asString(e.getThrowableProxy()));
        }
        assertThat(all).contains("admin: flush requested").contains("refused");
        assertThat(all.toString()).doesNotContain(minio.secretKey()).doesNotContain(TOKEN);
    }
}
