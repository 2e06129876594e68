package dev.iggysink.testkit.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.iggy.client.blocking.tcp.IggyTcpClient;
import org.apache.iggy.consumergroup.Consumer;
import org.apache.iggy.exception.IggyException;
import org.apache.iggy.exception.IggyServerException;
import org.apache.iggy.identifier.ConsumerId;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.message.PollingStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What only the embedded broker can do: misbehave on purpose, shortened revocation timeout, introspection. */
class EmbeddedIggyServerIT {

    private EmbeddedIggyServer server;
    private final ExecutorService callers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "blocked-iggy-call");
        t.setDaemon(true); // a wedged call never returns; it must not keep the JVM alive
        return t;
    });

    @AfterEach
    void stop() {
        callers.shutdownNow();
        if (server != null) {
            server.close();
        }
    }

    private IggyTcpClient client() {
        return IggyTcpClient.builder()
                .host(server.host())
                .port(server.port())
                .credentials("iggy", "iggy")
                .connectionPoolSize(1)
                .buildAndLogin();
    }

    private <T> CompletableFuture<T> inBackground(java.util.function.Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, callers);
    }

    private void awaitInFlight(int requests) {
        await().atMost(Duration.ofSeconds(5)).until(() -> server.heldRequests() == requests);
    }

    @Test
    void reports_its_address_connections_and_message_counts() {
        server = EmbeddedIggyServer.start();
        assertThat(server.address()).isEqualTo("127.0.0.1:" + server.port());
        assertThat(server.connectionCount()).isZero();

        try (IggyProducer producer = IggyProducer.connect(server.host(), server.port())) {
            producer.createStreamIfMissing("s");
            producer.createStreamIfMissing("s");
            producer.createTopicIfMissing("s", "t", 2);
            producer.createTopicIfMissing("s", "t", 2);
            producer.send("s", "t", 1, List.of(new byte[1], new byte[2], new byte[3]));
            assertThat(server.connectionCount()).isEqualTo(1);
        }

        assertThat(server.messageCount("s", "t", 1)).isEqualTo(3);
        assertThat(server.messageCount("s", "t", 0)).isZero();
        assertThat(server.messageCount("s", "missing", 0)).isZero();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.connectionCount() == 0);
    }

    @Test
    void a_fin_while_a_request_is_in_flight_wedges_the_blocking_client() throws Exception {
        server = EmbeddedIggyServer.start();
        IggyTcpClient client = client();
        server.stallResponses(true);
        CompletableFuture<?> call = inBackground(() -> client.streams().getStream(StreamId.of("any")));
        awaitInFlight(1);

        server.dropConnections();
        server.stallResponses(false);

        // No answer and no error: the 0.8 client has no channelInactive handler, so the future never completes.
        assertThatThrownBy(() -> call.get(2, TimeUnit.SECONDS)).isInstanceOf(TimeoutException.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> server.connectionCount() == 0);
        // Its pool slot is never released: with a pool of one every later call fails after the 3 s acquire timeout.
        CompletableFuture<?> next = inBackground(() -> client.system().getMe());
        assertThatThrownBy(() -> next.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        // Recovery is a new client.
        try (IggyTcpClient fresh = client()) {
            assertThat(fresh.streams().getStream(StreamId.of("any"))).isEmpty();
        }
        client.close();
    }

    @Test
    void an_rst_while_a_request_is_in_flight_fails_the_call_and_the_next_call_reconnects() throws Exception {
        server = EmbeddedIggyServer.start();
        IggyTcpClient client = client();
        client.streams().createStream("s");
        server.stallResponses(true);
        CompletableFuture<?> call = inBackground(() -> client.streams().getStream(StreamId.of("s")));
        awaitInFlight(1);

        server.resetConnections();
        server.stallResponses(false);

        assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IggyException.class);
        // The pool replaces the dead channel and logs in again on its own.
        assertThat(client.streams().getStream(StreamId.of("s"))).isPresent();
        // The reset socket's server thread notices on its own time; then only the new connection remains.
        await().atMost(Duration.ofSeconds(5)).until(() -> server.connectionCount() == 1);
        client.close();
    }

    @Test
    void after_an_idle_rst_or_fin_the_next_call_reconnects_and_logs_in_again() {
        server = EmbeddedIggyServer.start();
        IggyTcpClient client = client();
        client.streams().createStream("s");

        server.resetConnections();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.connectionCount() == 0);
        assertThat(client.streams().getStream(StreamId.of("s"))).isPresent();

        server.dropConnections();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.connectionCount() == 0);
        await().pollDelay(Duration.ofMillis(100)).atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(client.streams().getStream(StreamId.of("s"))).isPresent());
        client.close();
    }

    @Test
    void messages_are_stamped_with_the_clock_it_is_given_and_never_earlier_than_before() {
        server = EmbeddedIggyServer.start();
        java.util.concurrent.atomic.AtomicReference<java.time.Instant> now =
                new java.util.concurrent.atomic.AtomicReference<>(java.time.Instant.parse("2031-01-02T10:15:00Z"));
        server.stampMessagesWith(now::get);
        IggyTcpClient client = client();
        try (IggyProducer producer = IggyProducer.connect(server.host(), server.port())) {
            producer.createStreamIfMissing("s");
            producer.createTopicIfMissing("s", "t", 1);
            producer.send("s", "t", 0, List.of(new byte[1], new byte[1]));
            now.set(java.time.Instant.parse("2031-01-02T12:00:00Z"));
            producer.send("s", "t", 0, List.of(new byte[1]));
            now.set(java.time.Instant.parse("2031-01-02T11:00:00Z")); // a clock set back
            producer.send("s", "t", 0, List.of(new byte[1]));
        }
        List<Long> stamps = client.messages().pollMessages(StreamId.of("s"), TopicId.of("t"), Optional.of(0L),
                        Consumer.of(1L), PollingStrategy.first(), 10L, false).messages().stream()
                .map(m -> m.header().timestamp().longValueExact()).toList();
        long at1015 = 1_925_115_300_000_000L;
        long at1200 = at1015 + 105 * 60_000_000L;
        assertThat(stamps).containsExactly(at1015, at1015, at1200, at1200 + 1);
        client.close();
    }

    @Test
    void a_reconnected_client_is_no_longer_a_group_member() {
        server = EmbeddedIggyServer.start();
        IggyTcpClient client = client();
        try (IggyProducer producer = IggyProducer.connect(server.host(), server.port())) {
            producer.createStreamIfMissing("s");
            producer.createTopicIfMissing("s", "t", 1);
            producer.client().consumerGroups().createConsumerGroup(StreamId.of("s"), TopicId.of("t"), "g");
        }
        client.consumerGroups().joinConsumerGroup(StreamId.of("s"), TopicId.of("t"), ConsumerId.of("g"));

        server.resetConnections();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.connectionCount() == 0);

        assertThatThrownBy(() -> client.messages().pollMessages(StreamId.of("s"), TopicId.of("t"), Optional.empty(),
                Consumer.group(ConsumerId.of("g")), PollingStrategy.next(), 1L, false))
                .isInstanceOf(IggyServerException.class)
                .extracting(e -> ((IggyServerException) e).getRawErrorCode())
                .isEqualTo(5006);
        assertThat(client.consumerGroups().getConsumerGroup(StreamId.of("s"), TopicId.of("t"), ConsumerId.of("g"))
                .orElseThrow().membersCount()).isZero();
        client.close();
    }

    @Test
    void a_pending_revocation_is_forced_after_the_rebalancing_timeout() {
        server = EmbeddedIggyServer.start(EmbeddedIggyServer.Options.defaults()
                .withRebalancingTimeout(Duration.ofMillis(300)));
        StreamId s = StreamId.of("s");
        TopicId t = TopicId.of("t");
        ConsumerId g = ConsumerId.of("g");
        try (IggyTcpClient a = client(); IggyTcpClient b = client();
                IggyProducer producer = IggyProducer.connect(server.host(), server.port())) {
            producer.createStreamIfMissing("s");
            producer.createTopicIfMissing("s", "t", 2);
            producer.send("s", "t", 1, List.of("x".getBytes(StandardCharsets.UTF_8)));
            a.consumerGroups().createConsumerGroup(s, t, "g");
            a.consumerGroups().joinConsumerGroup(s, t, g);
            a.messages().pollMessages(s, t, Optional.of(1L), Consumer.group(g), PollingStrategy.next(), 1L, false);
            b.consumerGroups().joinConsumerGroup(s, t, g);
            assertThat(a.consumerGroups().getConsumerGroup(s, t, g).orElseThrow().members().get(1).partitions())
                    .isEmpty();

            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                    a.consumerGroups().getConsumerGroup(s, t, g).orElseThrow().members())
                    .extracting(m -> m.partitions())
                    .containsExactly(List.of(0L), List.of(1L)));
            assertThat(b.messages().pollMessages(s, t, Optional.empty(), Consumer.group(g), PollingStrategy.next(),
                    10L, false).messages()).hasSize(1);
        }
    }

    @Test
    void extra_users_can_log_in_with_their_own_ids() {
        server = EmbeddedIggyServer.start(EmbeddedIggyServer.Options.defaults()
                .withUser("sink", "sink-secret")
                .withUser("other", "other-secret"));
        try (IggyTcpClient c = IggyTcpClient.builder().host(server.host()).port(server.port())
                .connectionPoolSize(1).build()) {
            c.connect();
            assertThatThrownBy(() -> c.users().login("sink", "wrong"))
                    .isInstanceOf(IggyServerException.class)
                    .extracting(e -> ((IggyServerException) e).getRawErrorCode())
                    .isEqualTo(42);
            assertThat(c.users().login("other", "other-secret").userId()).isEqualTo(2L);
            assertThat(c.users().login("sink", "sink-secret").userId()).isEqualTo(1L);
            assertThat(c.system().getMe().userId()).contains(1L);
        }
    }

    @Test
    void close_stops_accepting_and_disconnects_clients() throws IOException {
        server = EmbeddedIggyServer.start();
        int port = server.port();
        try (IggyTcpClient client = client()) {
            client.streams().createStream("s");
            server.close();

            assertThat(server.connectionCount()).isZero();
            assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void a_fixed_port_can_be_requested() throws IOException {
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        server = EmbeddedIggyServer.start(EmbeddedIggyServer.Options.defaults().withPort(port));
        assertThat(server.port()).isEqualTo(port);
        try (IggyTcpClient client = client()) {
            assertThat(client.system().ping()).isEqualTo("pong");
        }
    }
}
