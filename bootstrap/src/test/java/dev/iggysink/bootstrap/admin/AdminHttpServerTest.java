package dev.iggysink.bootstrap.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.service.SinkService;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.application.settings.SinkSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The admin server over real HTTP, in front of a real SinkService on the application's in-memory fakes. */
class AdminHttpServerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String TOKEN = "t0ken-for-tests";

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("logs", "api", 1);
    private final PrometheusMetrics metrics = new PrometheusMetrics();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private SinkService sink;
    private AdminHttpServer server;
    private String base;

    private void start(long recordsPerFile, Optional<Secret> token, String bind) throws IOException {
        start(recordsPerFile, token, bind, AdminHttpServer.Limits.DEFAULT);
    }

    private void start(long recordsPerFile, Optional<Secret> token, String bind, AdminHttpServer.Limits limits)
            throws IOException {
        SinkSettings settings = TestSettings.countRotation(TestSettings.stream("logs", "api"), recordsPerFile);
        sink = new SinkService(settings, (s, t, g) -> source, s -> new LinesCodec(), store, InstantSource.system(),
                d -> Thread.sleep(Math.min(d.toMillis(), 20)), metrics.forSink("s3"));
        sink.start();
        server = AdminHttpServer.start(new AdminSettings(Optional.of(bind), token),
                () -> List.of(new ManagedSink("s3", sink)), metrics, limits);
        base = "http://127.0.0.1:" + server.address().orElseThrow().getPort();
    }

    private void start(long recordsPerFile, Optional<Secret> token) throws IOException {
        start(recordsPerFile, token, "127.0.0.1:0");
    }

    private final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // the server may have closed it first
            }
        }
        if (server != null) server.close();
        if (sink != null) sink.stop();
        metrics.close();
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String authorization) throws IOException, InterruptedException {
        return post(URI.create(base + path), authorization);
    }

    private HttpResponse<String> post(URI uri, String authorization) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody());
        if (authorization != null) b.header("Authorization", authorization);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }

    @Test
    void health_is_ok_then_degraded_while_the_store_fails_and_ok_again_when_it_recovers() throws Exception {
        start(5, Optional.empty());
        assertThat(get("/health").statusCode()).isEqualTo(200);
        assertThat(get("/health").body()).isEqualTo("{\"status\":\"ok\"}");

        store.down(InMemoryObjectStore.unavailable());
        source.append(0, 5, i -> "{\"i\":" + i + "}");
        await().atMost(WAIT).until(() -> get("/health").statusCode() == 503);
        HttpResponse<String> degraded = get("/health");
        assertThat(json(degraded).get("status").asString()).isEqualTo("degraded");
        assertThat(json(degraded).get("reasons").get(0).asString()).contains("object store failing")
                .contains("503");

        store.up();
        await().atMost(WAIT).until(() -> get("/health").statusCode() == 200);
        assertThat(store.objects()).hasSize(1);
    }

    @Test
    void a_store_refusing_for_good_is_failed_not_degraded() throws Exception {
        start(5, Optional.empty());
        store.down(InMemoryObjectStore.forbidden());
        source.append(0, 5, i -> "{\"i\":" + i + "}");
        await().atMost(WAIT).until(() -> get("/health").statusCode() == 503);
        assertThat(json(get("/health")).get("status").asString()).isEqualTo("failed");
        assertThat(json(get("/status")).get("status").asString()).isEqualTo("failed");
    }

    @Test
    void flush_with_the_token_makes_a_partial_file_durable_and_committed_at_once() throws Exception {
        start(1000, Optional.of(Secret.of(TOKEN)));
        source.append(0, 10, i -> "{\"i\":" + i + "}");
        await().atMost(WAIT).until(() -> json(get("/status")).get("sinks").get(0).get("partitions").get(0)
                .get("position").asLong() == 10);
        assertThat(store.objects()).isEmpty();

        HttpResponse<String> flushed = post("/flush", "Bearer " + TOKEN);
        assertThat(flushed.statusCode()).isEqualTo(202);
        assertThat(json(flushed).get("sinks").get(0).asString()).isEqualTo("s3");

        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 9);
        assertThat(store.objects()).hasSize(1);
        await().atMost(WAIT).until(() -> json(get("/status")).get("sinks").get(0).get("partitions").get(0)
                .get("committed").asLong() == 9);
    }

    @Test
    void control_endpoints_refuse_a_missing_or_wrong_token_and_do_nothing() throws Exception {
        start(1000, Optional.of(Secret.of(TOKEN)));
        source.append(0, 10, i -> "{\"i\":" + i + "}");
        await().atMost(WAIT).until(() -> sink.status().totals().recordsConsumed() == 10);

        HttpResponse<String> missing = post("/flush", null);
        assertThat(missing.statusCode()).isEqualTo(401);
        assertThat(missing.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> v.startsWith("Bearer"));
        assertThat(post("/flush", "Bearer wrong").statusCode()).isEqualTo(401);
        assertThat(post("/pause", "Bearer " + TOKEN + "x").statusCode()).isEqualTo(401);
        assertThat(post("/resume", TOKEN).statusCode()).isEqualTo(401);
        assertThat(missing.body()).doesNotContain(TOKEN);

        Thread.sleep(300);
        assertThat(store.objects()).as("a refused flush must not seal anything").isEmpty();
        assertThat(sink.status().totals().paused()).isFalse();
        // The read-only endpoints stay open.
        assertThat(get("/health").statusCode()).isEqualTo(200);
        assertThat(get("/status").statusCode()).isEqualTo(200);
        assertThat(get("/metrics").statusCode()).isEqualTo(200);
    }

    @Test
    void without_a_token_loopback_may_pause_and_resume_every_sink() throws Exception {
        start(1000, Optional.empty());
        assertThat(post("/pause", null).statusCode()).isEqualTo(200);
        assertThat(json(get("/status")).get("totals").get("paused").asBoolean()).isTrue();
        source.append(0, 10, i -> "{\"i\":" + i + "}");
        Thread.sleep(300);
        assertThat(sink.status().totals().recordsConsumed()).as("paused: nothing read").isZero();

        assertThat(post("/resume", null).statusCode()).isEqualTo(200);
        assertThat(json(get("/status")).get("totals").get("paused").asBoolean()).isFalse();
        await().atMost(WAIT).until(() -> sink.status().totals().recordsConsumed() == 10);
    }

    @Test
    void while_paused_health_says_paused_since_when_and_why_and_readiness_stays_up() throws Exception {
        start(1000, Optional.empty());
        assertThat(post("/pause", null).statusCode()).isEqualTo(200);

        HttpResponse<String> health = get("/health");
        assertThat(json(health).get("status").asString()).isEqualTo("paused");
        assertThat(health.statusCode()).as("a deliberate pause keeps readiness").isEqualTo(200);
        String reason = json(health).get("reasons").get(0).asString();
        assertThat(reason).contains("paused since 20").contains("POST /pause from 127.0.0.1");
        JsonNode status = json(get("/status"));
        assertThat(status.get("status").asString()).isEqualTo("paused");
        assertThat(status.get("sinks").get(0).get("paused_since").asString()).startsWith("20");

        assertThat(post("/resume", null).statusCode()).isEqualTo(200);
        assertThat(get("/health").body()).isEqualTo("{\"status\":\"ok\"}");
        assertThat(json(get("/status")).get("sinks").get(0).get("paused_since").isNull()).isTrue();
    }

    @Test
    void live_answers_alive_while_the_loops_turn_even_when_not_healthy() throws Exception {
        start(5, Optional.empty());
        store.down(InMemoryObjectStore.unavailable());
        source.append(0, 5, i -> "{\"i\":" + i + "}");
        await().atMost(WAIT).until(() -> get("/health").statusCode() == 503);

        HttpResponse<String> live = get("/live");
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(json(live).get("status").asString()).isEqualTo("alive");
        assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/live"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
    }

    @Test
    void without_a_token_a_caller_from_another_address_is_forbidden() throws Exception {
        InetAddress own = nonLoopbackAddress();
        Assumptions.assumeTrue(own != null, "this machine has no non-loopback IPv4 address to call from");
        start(1000, Optional.empty(), own.getHostAddress() + ":0");
        URI uri = URI.create("http://" + own.getHostAddress() + ":" + server.address().orElseThrow().getPort()
                + "/pause");
        assertThat(post(uri, null).statusCode()).isEqualTo(403);
        assertThat(sink.status().totals().paused()).isFalse();
    }

    private static InetAddress nonLoopbackAddress() throws IOException {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nic.isUp() || nic.isLoopback()) continue;
            for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress()) return a;
            }
        }
        return null;
    }

    @Test
    void metrics_are_prometheus_text_counting_what_was_consumed() throws Exception {
        start(5, Optional.empty());
        source.append(0, 12, i -> "{\"i\":" + i + "}");
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 9);

        HttpResponse<String> response = get("/metrics");
        assertThat(response.headers().firstValue("Content-Type")).hasValue(PrometheusMetrics.CONTENT_TYPE);
        PrometheusText text = PrometheusText.parse(response.body());
        assertThat(text.sum("iggysink_consumed_records_total", Map.of("sink", "s3", "partition", "0")))
                .isEqualTo(12);
        assertThat(text.sum("iggysink_uploaded_objects_total", Map.of("partition", "0"))).isEqualTo(2);
        assertThat(text.sum("iggysink_committed_offset", Map.of("partition", "0"))).isEqualTo(9);
        assertThat(text.sum("iggysink_rotations_total", Map.of("reason", "count"))).isEqualTo(2);
    }

    @Test
    void unknown_paths_and_wrong_methods_are_refused() throws Exception {
        start(1000, Optional.empty());
        assertThat(get("/nope").statusCode()).isEqualTo(404);
        HttpResponse<String> getFlush = get("/flush");
        assertThat(getFlush.statusCode()).isEqualTo(405);
        assertThat(getFlush.headers().firstValue("Allow")).hasValue("POST");
        assertThat(post("/health", null).statusCode()).isEqualTo(405);
        assertThat(store.objects()).isEmpty();
    }

    @Test
    void off_means_no_server() throws Exception {
        AdminHttpServer off = AdminHttpServer.start(new AdminSettings(Optional.empty(), Optional.empty()),
                List::of, metrics);
        assertThat(off.address()).isEmpty();
        off.close();
    }

    @Test
    void an_address_in_use_fails_at_start() throws Exception {
        start(1000, Optional.empty());
        int port = server.address().orElseThrow().getPort();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> AdminHttpServer.start(
                        new AdminSettings(Optional.of("127.0.0.1:" + port), Optional.empty()), List::of, metrics))
                .isInstanceOf(IOException.class);
    }

    /** A request line and one header, never the blank line that ends the headers: what a slow client sends. */
    private Socket unfinishedRequest() throws IOException {
        Socket s = new Socket("127.0.0.1", server.address().orElseThrow().getPort());
        sockets.add(s);
        s.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }

    @Test
    void health_answers_while_200_clients_hold_unfinished_requests() throws Exception {
        start(1000, Optional.empty());
        for (int i = 0; i < 200; i++) unfinishedRequest();
        // A bound on correctness (the old server waited for ever), not a performance figure.
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            assertThat(get("/health").statusCode()).isEqualTo(200);
            assertThat(get("/status").statusCode()).isEqualTo(200);
        });
    }

    @Test
    void head_health_answers_like_get_without_a_body() throws Exception {
        start(1000, Optional.empty());
        HttpResponse<String> get = get("/health");
        HttpResponse<String> head = http.send(HttpRequest.newBuilder(URI.create(base + "/health"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValue("Content-Type")).isEqualTo(get.headers().firstValue("Content-Type"));
        assertThat(head.headers().firstValue("Content-Length")).hasValue(String.valueOf(get.body().length()));
    }

    @Test
    void the_banner_for_a_wildcard_bind_prints_a_url_a_browser_can_open() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger logger = (Logger) LoggerFactory.getLogger(AdminHttpServer.class);
        logger.addAppender(logs);
        try {
            start(1000, Optional.empty(), "0.0.0.0:0");
        } finally {
            logger.detachAppender(logs);
        }
        int port = server.address().orElseThrow().getPort();
        String banner = logs.list.stream().map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.startsWith("admin server on")).findFirst().orElseThrow();
        assertThat(banner).contains("http://127.0.0.1:" + port + "/").doesNotContain("0:0:0:0");
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    /** Reads until the server closes the connection; fails the test (by its timeout) if it never does. */
    private static void assertClosedByServer(Socket s) {
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            InputStream in = s.getInputStream();
            while (in.read() != -1) {
                // whatever the server says before closing does not matter here
            }
        });
    }

    private static final AdminHttpServer.Limits SHORT = new AdminHttpServer.Limits(512, Duration.ofMillis(300),
            Duration.ofMillis(300), 64 * 1024);

    @Test
    void unfinished_headers_are_cut_off() throws Exception {
        start(1000, Optional.empty(), "127.0.0.1:0", SHORT);
        assertClosedByServer(unfinishedRequest());
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void an_unfinished_body_is_cut_off_and_does_nothing() throws Exception {
        start(1000, Optional.empty(), "127.0.0.1:0", SHORT);
        Socket s = new Socket("127.0.0.1", server.address().orElseThrow().getPort());
        sockets.add(s);
        s.getOutputStream().write(("POST /pause HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n0123456789")
                .getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        assertClosedByServer(s);
        assertThat(sink.status().totals().paused()).as("a request never completed must not act").isFalse();
    }

    @Test
    void an_idle_keep_alive_connection_is_closed_after_its_answer() throws Exception {
        start(1000, Optional.empty(), "127.0.0.1:0", SHORT);
        Socket s = new Socket("127.0.0.1", server.address().orElseThrow().getPort());
        sockets.add(s);
        s.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        assertClosedByServer(s);
    }

    @Test
    void connections_beyond_the_limit_are_closed_and_the_rest_still_served() throws Exception {
        start(1000, Optional.empty(), "127.0.0.1:0", new AdminHttpServer.Limits(20, Duration.ofSeconds(30),
                Duration.ofSeconds(30), 64 * 1024));
        for (int i = 0; i < 20; i++) unfinishedRequest();
        Socket extra = unfinishedRequest();
        assertClosedByServer(extra);
        for (int i = 0; i < 20; i++) sockets.get(i).close();
        await().atMost(WAIT).until(() -> {
            try {
                return get("/health").statusCode() == 200;
            } catch (IOException e) {
                return false; // closed while the server still counted the old ones
            }
        });
    }

    @Test
    void the_status_page_is_served_at_the_root_with_a_policy_that_loads_nothing_from_elsewhere() throws Exception {
        start(1000, Optional.empty());
        HttpResponse<String> page = get("/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v)
                .startsWith("text/html"));
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(v -> assertThat(v)
                .contains("default-src 'none'").contains("connect-src 'self'"));
        // Nothing fetched from elsewhere: no script, style, image or link with an absolute URL, no CSS import.
        assertThat(page.body()).contains("<html").contains("/status")
                .doesNotContainPattern("(?i)(src|href)\\s*=\\s*[\"']?(https?:)?//")
                .doesNotContainPattern("(?i)url\\(\\s*[\"']?(https?:)?//")
                .doesNotContain("@import");
    }

    @Test
    void status_reports_rotations_by_reason() throws Exception {
        start(5, Optional.empty());
        source.append(0, 12, i -> "{\"i\":" + i + "}");
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 9);
        JsonNode status = json(get("/status"));
        assertThat(status.get("rotations").get("count").asLong()).isEqualTo(2);
        assertThat(status.get("sinks").get(0).get("rotations").get("count").asLong()).isEqualTo(2);
        assertThat(status.get("token_required").asBoolean()).isFalse();
    }

    /** Sends raw bytes, answers the status line. */
    private String rawExchange(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.address().orElseThrow().getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            StringBuilder line = new StringBuilder();
            InputStream in = s.getInputStream();
            for (int c = in.read(); c != -1 && c != '\r'; c = in.read()) line.append((char) c);
            return line.toString();
        }
    }

    @Test
    void oversized_headers_and_bodies_are_refused_and_the_server_keeps_answering() throws Exception {
        start(1000, Optional.empty());
        String hugeHeader = "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n";
        assertThat(rawExchange(hugeHeader)).startsWith("HTTP/1.1 4");
        String hugeBody = "POST /pause HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n";
        assertThat(rawExchange(hugeBody)).startsWith("HTTP/1.1 413");
        assertThat(sink.status().totals().paused()).isFalse();
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void the_printed_url_is_one_a_browser_can_open() {
        assertThat(AdminHttpServer.url(new InetSocketAddress("0.0.0.0", 8098))).isEqualTo("http://127.0.0.1:8098/");
        assertThat(AdminHttpServer.url(new InetSocketAddress("::", 8098))).isEqualTo("http://127.0.0.1:8098/");
        assertThat(AdminHttpServer.url(new InetSocketAddress("10.1.2.3", 80))).isEqualTo("http://10.1.2.3:80/");
        assertThat(AdminHttpServer.url(new InetSocketAddress("::1", 8098))).isEqualTo("http://[0:0:0:0:0:0:0:1]:8098/");
    }
}
