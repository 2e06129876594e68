package dev.iggysink.testkit.iggy;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.iggy.client.blocking.tcp.IggyTcpClient;
import org.apache.iggy.exception.IggyServerException;
import org.apache.iggy.identifier.StreamId;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Shared set-up of the server-agnostic suites: the endpoint comes from {@code IGGY_TCP_ADDRESS} or is embedded; every
 * test works in its own uniquely named stream, deleted afterwards.
 */
abstract class ConformanceSupport {

    static IggyEndpoint endpoint;
    /** Shared per class: closing a 0.8 client takes about 2 s (Netty's graceful shutdown quiet period). */
    static IggyTcpClient admin;

    private final List<IggyTcpClient> clients = new ArrayList<>();
    String stream;

    @BeforeAll
    static void startEndpoint() {
        endpoint = IggyEndpoint.fromEnvOrEmbedded();
        admin = newClient();
    }

    @AfterAll
    static void stopEndpoint() {
        closeAll(List.of(admin));
        endpoint.close();
    }

    @BeforeEach
    void createStream() {
        stream = uniqueName("it");
        admin.streams().createStream(stream);
    }

    @AfterEach
    void cleanUp() {
        try {
            admin.streams().deleteStream(StreamId.of(stream));
        } catch (IggyServerException ignored) {
            // a test may have deleted it already
        }
        closeAll(clients);
        clients.clear();
    }

    /** In parallel, so that the clients' 2 s shutdown quiet periods overlap. */
    private static void closeAll(List<IggyTcpClient> toClose) {
        CompletableFuture.allOf(toClose.stream().map(c -> CompletableFuture.runAsync(() -> {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // already closed by the test
            }
        })).toArray(CompletableFuture[]::new)).join();
    }

    static String uniqueName(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 13);
    }

    /** A logged-in client with one pooled connection, so that all its calls share one server-side client. */
    IggyTcpClient client() {
        IggyTcpClient c = newClient();
        clients.add(c);
        return c;
    }

    private static IggyTcpClient newClient() {
        return IggyTcpClient.builder()
                .host(endpoint.host())
                .port(endpoint.port())
                .credentials("iggy", "iggy")
                .connectionPoolSize(1)
                .buildAndLogin();
    }

    /** Connected, not logged in. */
    IggyTcpClient anonymousClient() {
        IggyTcpClient c = IggyTcpClient.builder()
                .host(endpoint.host())
                .port(endpoint.port())
                .connectionPoolSize(1)
                .build();
        c.connect();
        clients.add(c);
        return c;
    }

    static void assertIggyError(ThrowingCallable call, int code) {
        assertThatThrownBy(call)
                .isInstanceOf(IggyServerException.class)
                .extracting(e -> ((IggyServerException) e).getRawErrorCode())
                .isEqualTo(code);
    }
}
