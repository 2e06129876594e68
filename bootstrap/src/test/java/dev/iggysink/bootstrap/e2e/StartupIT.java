package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fat jar's {@code run} before it consumes: a stop is honoured at any moment, a silent service is logged while
 * waited for, every refusal is one line and exit 3, and an unreachable Iggy or store is retried, or fails at once
 * with {@code --fail-fast}.
 */
class StartupIT {
    private E2eFixture fx;
    private final List<ServerSocket> servers = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        fx = E2eFixture.shared();
        fx.topic("events", 1);
    }

    @AfterEach
    void tearDown() throws IOException {
        for (ServerSocket s : servers) s.close();
        fx.close();
    }

    private Path config() throws IOException {
        return fx.config(List.of("events"), "json", "");
    }

    /** A config whose Iggy address is 127.0.0.1:{@code port}. */
    private Path iggyAt(int port) throws IOException {
        return edit(config(), "address = \"" + fx.iggy.address() + "\"", "address = \"127.0.0.1:" + port + "\"");
    }

    private static Path edit(Path config, String from, String to) throws IOException {
        String toml = Files.readString(config, StandardCharsets.UTF_8);
        assertThat(toml).contains(from);
        Files.writeString(config, toml.replace(from, to), StandardCharsets.UTF_8);
        return config;
    }

    private SinkProcess run(Path config, String log, String... extra) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(SinkProcess.javaBinary(), "-Xmx256m", "-jar",
                SinkProcess.jar().toString(), "run", "--config", config.toString()));
        cmd.addAll(List.of(extra));
        return SinkProcess.start(cmd, fx.log(log), Map.of());
    }

    /** Accepts connections and reads what is sent, never answering: a store or server that hangs. */
    private int silentServer() throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        servers.add(server);
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread drain = new Thread(() -> {
                        try (s; InputStream in = s.getInputStream()) {
                            while (in.read() >= 0) {
                                // discard
                            }
                        } catch (IOException ignored) {
                            // the test is over
                        }
                    });
                    drain.setDaemon(true);
                    drain.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "silent-server");
        t.setDaemon(true);
        t.start();
        return server.getLocalPort();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void assertOneLineNoTrace(String log) {
        assertThat(log).doesNotContain("\tat ").doesNotContain("Caused by");
    }

    @Test
    @Timeout(120)
    void sigterm_while_the_store_never_answers_is_honoured_at_once_and_the_wait_is_logged() throws Exception {
        int port = silentServer();
        Path config = edit(config(), fx.minio.endpoint().toString(), "http://127.0.0.1:" + port);
        try (SinkProcess sink = run(config, "silent-store")) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText()
                    .contains("no answer from http://127.0.0.1:" + port + " after 10 s, still waiting"));
            sink.terminate();
            // A correctness bound, not a timing claim: before the fix the process took close to a minute.
            assertThat(sink.waitFor(Duration.ofSeconds(15))).as(sink.logText()).isZero();
            assertThat(sink.logText()).contains("stop requested while starting; nothing was consumed");
        }
    }

    @Test
    @Timeout(120)
    void a_taken_admin_port_is_one_line_and_exit_3() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Path config = edit(config(), "address = \"off\"", "address = \"127.0.0.1:" + taken.getLocalPort()
                    + "\"");
            try (SinkProcess sink = run(config, "admin-port-taken")) {
                assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(3);
                assertThat(sink.logText()).contains("admin server: cannot listen on 127.0.0.1:"
                        + taken.getLocalPort());
                assertOneLineNoTrace(sink.logText());
            }
        }
    }

    @Test
    @Timeout(120)
    void a_wrong_iggy_password_is_one_line_and_exit_3() throws Exception {
        Path config = edit(config(), "password = \"iggy\"", "password = \"wrong-pass-123\"");
        try (SinkProcess sink = run(config, "wrong-password")) {
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(3);
            assertThat(sink.logText()).contains("rejected the credentials of user 'iggy' (wrong password")
                    .doesNotContain("wrong-pass-123");
            assertOneLineNoTrace(sink.logText());
        }
    }

    @Test
    @Timeout(120)
    void a_wrong_iggy_personal_access_token_is_refused_like_a_wrong_password_in_one_line_and_exit_3()
            throws Exception {
        // An Iggy 0.8 server answers a token it does not know with error 20 (resource not found).
        Path config = edit(config(), "password = \"iggy\"", "password = \"iggy\"\ntoken = \"not-a-token-4711\"");
        try (SinkProcess sink = run(config, "wrong-token")) {
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(3);
            assertThat(sink.logText())
                    .contains("Iggy at " + fx.iggy.address() + " rejected the credentials of the personal access"
                            + " token (no such token: wrong, deleted or never created, error 20)")
                    .doesNotContain("did not answer the Iggy 0.8 protocol").doesNotContain("not-a-token-4711");
            assertOneLineNoTrace(sink.logText());
        }
    }

    @Test
    @Timeout(120)
    void a_personal_access_token_logs_the_sink_in_instead_of_the_password() throws Exception {
        String name = "sink-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        String token = fx.producer.client().personalAccessTokens()
                .createPersonalAccessToken(name, java.math.BigInteger.ONE.shiftLeft(64).subtract(
                        java.math.BigInteger.ONE)).token();
        try {
            Path config = edit(config(), "password = \"iggy\"",
                    "password = \"wrong-pass-123\"\ntoken = \"" + token + "\"");
            try (SinkProcess sink = run(config, "token")) {
                await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("Joined consumer group"));
                sink.terminate();
                assertThat(sink.waitFor(Duration.ofSeconds(30))).as(sink.logText()).isZero();
                assertThat(sink.logText()).doesNotContain(token);
            }
        } finally {
            fx.producer.client().personalAccessTokens().deletePersonalAccessToken(name);
        }
    }

    @Test
    @Timeout(120)
    void a_missing_stream_is_named_and_exit_3() throws Exception {
        Path config = edit(config(), "stream = \"" + fx.stream + "\"", "stream = \"nostream\"");
        try (SinkProcess sink = run(config, "no-stream")) {
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(3);
            assertThat(sink.logText()).contains("stream 'nostream' does not exist on Iggy at");
            assertOneLineNoTrace(sink.logText());
        }
    }

    @Test
    @Timeout(120)
    void an_iggy_server_that_does_not_speak_0_8_is_named_and_exit_3() throws Exception {
        int port = silentServer();
        Path config = iggyAt(port);
        try (SinkProcess sink = run(config, "not-iggy-08")) {
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(3);
            assertThat(sink.logText()).contains("the server at 127.0.0.1:" + port + " did not answer the Iggy 0.8"
                    + " protocol; this sink supports Iggy server 0.8.x");
            assertOneLineNoTrace(sink.logText());
        }
    }

    /**
     * {@code java -jar} opens java.nio to Netty (the manifest) and the sink lets it use it, so its buffers are not
     * zero-filled; where that is refused the sink says what it costs and how to fix it.
     */
    @Test
    @Timeout(120)
    void java_jar_gives_netty_its_unzeroed_buffers_and_a_refusal_is_told() throws Exception {
        int port = closedPort();
        Path config = iggyAt(port);
        String notice = "Netty zero-fills its buffers";
        try (SinkProcess sink = run(config, "netty-opened", "--fail-fast")) {
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(3);
            assertThat(sink.logText()).contains("cannot reach Iggy").doesNotContain(notice);
        }
        List<String> refused = new ArrayList<>(List.of(SinkProcess.javaBinary(), "-Xmx256m",
                "-Dio.netty.tryReflectionSetAccessible=false", "-jar", SinkProcess.jar().toString(), "run",
                "--config", config.toString(), "--fail-fast"));
        try (SinkProcess sink = SinkProcess.start(refused, fx.log("netty-refused"), Map.of())) {
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(3);
            assertThat(sink.logText()).contains(notice).contains("--add-opens=java.base/java.nio=ALL-UNNAMED");
        }
    }

    private static HttpResponse<String> get(int adminPort, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + adminPort + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @Timeout(120)
    void an_unreachable_iggy_is_retried_with_a_log_line_and_a_stop_ends_it_or_fail_fast_exits_3()
            throws Exception {
        int port = closedPort();
        int adminPort = closedPort();
        Path config = iggyAt(port);
        edit(config, "address = \"off\"", "address = \"127.0.0.1:" + adminPort + "\"");
        try (SinkProcess sink = run(config, "iggy-down")) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText()
                    .contains("Iggy at 127.0.0.1:" + port + " cannot be used yet: cannot reach Iggy"));
            assertThat(sink.alive()).isTrue();
            HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + adminPort + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).contains("degraded")
                    .as("health names what the start waits for").contains("waiting for Iggy at 127.0.0.1:" + port)
                    .contains("attempt").doesNotContain("no sink is running");
            assertThat(get(adminPort, "/live").statusCode()).as("waiting is not stuck").isEqualTo(200);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(15))).as(sink.logText()).isZero();
        }
        try (SinkProcess sink = run(config, "iggy-down-fail-fast", "--fail-fast")) {
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(3);
            assertThat(sink.logText()).contains("cannot reach Iggy at 127.0.0.1:" + port).contains("--fail-fast");
            assertOneLineNoTrace(sink.logText());
        }
    }

    @Test
    @Timeout(120)
    void an_unreachable_store_is_retried_like_iggy_or_fail_fast_exits_3() throws Exception {
        int port = closedPort();
        int adminPort = closedPort();
        Path config = edit(config(), fx.minio.endpoint().toString(), "http://127.0.0.1:" + port);
        edit(config, "address = \"off\"", "address = \"127.0.0.1:" + adminPort + "\"");
        try (SinkProcess sink = run(config, "store-down")) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText()
                    .contains("the object store at http://127.0.0.1:" + port + " cannot be used yet"));
            assertThat(sink.alive()).isTrue();
            HttpResponse<String> health = get(adminPort, "/health");
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).as("health names what the start waits for")
                    .contains("waiting for the object store at http://127.0.0.1:" + port).contains("attempt");
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(15))).as(sink.logText()).isZero();
        }
        try (SinkProcess sink = run(config, "store-down-fail-fast", "--fail-fast")) {
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(3);
            assertThat(sink.logText()).contains("the object store at http://127.0.0.1:" + port)
                    .contains("--fail-fast");
            assertOneLineNoTrace(sink.logText());
        }
    }
}
