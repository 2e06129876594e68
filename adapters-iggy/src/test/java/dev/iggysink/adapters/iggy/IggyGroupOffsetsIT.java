package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link IggyGroupOffsets}, which {@code run} uses to check Iggy before consuming and {@code audit} to read offsets:
 * every failure is one classified line that says what is wrong.
 */
class IggyGroupOffsetsIT {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static IggyEndpoint endpoint;
    private static IggyProducer producer;

    private final String stream = "go-" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet();

    @BeforeAll
    static void startBroker() {
        endpoint = IggyEndpoint.fromEnvOrEmbedded();
        producer = IggyProducer.connect(endpoint.host(), endpoint.port());
    }

    @AfterAll
    static void stopBroker() {
        producer.close();
        endpoint.close();
    }

    private static IggySettings settings(String host, int port, String password) {
        return new IggySettings(host, port, "iggy", Secret.of(password), Optional.empty(), false, Optional.empty(),
                Optional.empty());
    }

    @Test
    void a_missing_stream_is_named_as_the_stream() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (IggyGroupOffsets o = new IggyGroupOffsets(settings(endpoint.host(), endpoint.port(), "iggy"),
                    "nostream", "json", "g", CALL_TIMEOUT)) {
                SourceException e = catchThrowableOfType(SourceException.class, o::partitions);

                assertThat(e.retryable()).isFalse();
                assertThat(e.getMessage()).isEqualTo("stream 'nostream' does not exist on Iggy at "
                        + endpoint.host() + ":" + endpoint.port());
            }
        });
    }

    @Test
    void a_missing_topic_is_named_with_its_stream() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            producer.createStreamIfMissing(stream);
            try (IggyGroupOffsets o = new IggyGroupOffsets(settings(endpoint.host(), endpoint.port(), "iggy"),
                    stream, "json", "g", CALL_TIMEOUT)) {
                SourceException e = catchThrowableOfType(SourceException.class, o::partitions);

                assertThat(e.retryable()).isFalse();
                assertThat(e.getMessage()).startsWith("topic 'json' does not exist in stream '" + stream + "'");
            } finally {
                producer.deleteStream(stream);
            }
        });
    }

    @Test
    void a_wrong_password_is_refused_without_showing_it() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            SourceException e = catchThrowableOfType(SourceException.class, () -> new IggyGroupOffsets(
                    settings(endpoint.host(), endpoint.port(), "wrong-pass-123"), stream, "json", "g",
                    CALL_TIMEOUT));

            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).contains("rejected the credentials of user 'iggy'")
                    .contains("wrong password").doesNotContain("wrong-pass-123").doesNotContain("\n");
        });
    }

    @Test
    void a_wrong_personal_access_token_is_refused_like_a_wrong_password_without_showing_it() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            IggySettings withToken = new IggySettings(endpoint.host(), endpoint.port(), "iggy", Secret.of("iggy"),
                    Optional.of(Secret.of("not-a-token-4711")), false, Optional.empty(), Optional.empty());
            SourceException e = catchThrowableOfType(SourceException.class, () -> new IggyGroupOffsets(withToken,
                    stream, "json", "g", CALL_TIMEOUT));

            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).isEqualTo("Iggy at " + endpoint.host() + ":" + endpoint.port()
                    + " rejected the credentials of the personal access token (no such token: wrong, deleted or"
                    + " never created, error 20)");
        });
    }

    @Test
    void nobody_listening_is_retryable_and_says_so() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        int closedPort = port;
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            SourceException e = catchThrowableOfType(SourceException.class, () -> new IggyGroupOffsets(
                    settings("127.0.0.1", closedPort, "iggy"), stream, "json", "g", CALL_TIMEOUT));

            assertThat(e.retryable()).isTrue();
            assertThat(e.getMessage()).startsWith("cannot reach Iggy at 127.0.0.1:" + closedPort)
                    .doesNotContain("\n");
        });
    }

    @Test
    void a_server_that_takes_the_login_and_never_answers_is_not_iggy_0_8() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread reader = silentServer(server);
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                SourceException e = catchThrowableOfType(SourceException.class, () -> new IggyGroupOffsets(
                        settings("127.0.0.1", server.getLocalPort(), "iggy"), stream, "json", "g", CALL_TIMEOUT));

                assertThat(e.retryable()).isFalse();
                assertThat(e.getMessage()).isEqualTo("the server at 127.0.0.1:" + server.getLocalPort()
                        + " did not answer the Iggy 0.8 protocol; this sink supports Iggy server 0.8.x");
            });
            reader.interrupt();
        }
    }

    @Test
    void a_server_that_answers_the_login_with_an_error_no_0_8_server_gives_is_not_iggy_0_8() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread answering = new Thread(() -> {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    byte[] head = in.readNBytes(8);
                    int length = java.nio.ByteBuffer.wrap(head).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
                    in.readNBytes(length - 4);
                    // status 3 ("invalid command"), no payload
                    s.getOutputStream().write(new byte[] {3, 0, 0, 0, 0, 0, 0, 0});
                    s.getOutputStream().flush();
                    in.read();
                } catch (Exception ignored) {
                    // the test is over
                }
            });
            answering.setDaemon(true);
            answering.start();
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                SourceException e = catchThrowableOfType(SourceException.class, () -> new IggyGroupOffsets(
                        settings("127.0.0.1", server.getLocalPort(), "iggy"), stream, "json", "g", CALL_TIMEOUT));

                assertThat(e.retryable()).isFalse();
                assertThat(e.getMessage()).startsWith("the server at 127.0.0.1:" + server.getLocalPort()
                        + " did not answer the Iggy 0.8 protocol").endsWith("this sink supports Iggy server 0.8.x");
            });
        }
    }

    /** Accepts connections and reads everything sent, answering nothing (a server speaking another protocol). */
    static Thread silentServer(ServerSocket server) {
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread drain = new Thread(() -> {
                        try (s; InputStream in = s.getInputStream()) {
                            while (in.read() >= 0) {
                                // discard
                            }
                        } catch (Exception ignored) {
                            // the test is over
                        }
                    });
                    drain.setDaemon(true);
                    drain.start();
                } catch (Exception e) {
                    return;
                }
            }
        }, "silent-server");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
