package dev.iggysink.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.iggy.client.blocking.tcp.IggyTcpClient;
import org.apache.iggy.consumergroup.Consumer;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.message.Message;
import org.apache.iggy.message.PollingStrategy;
import org.junit.jupiter.api.Test;

import dev.iggysink.testkit.iggy.EmbeddedIggyServer;
import dev.iggysink.testkit.iggy.IggyProducer;

/** The freshness window's raw producer, read back through the official 0.8 client. */
class RawSenderTest {

    @Test
    void batches_cut_from_the_ring_arrive_in_order_whole_and_stamped_by_the_broker() throws Exception {
        try (EmbeddedIggyServer server = EmbeddedIggyServer.start()) {
            try (IggyProducer producer = IggyProducer.connect(server.host(), server.port())) {
                producer.createStreamIfMissing("s");
                producer.createTopicIfMissing("s", "t", 2);
            }
            List<byte[]> ring = new ArrayList<>();
            for (int i = 0; i < 5; i++) ring.add(("{\"n\":" + i + ",\"pad\":\"" + "x".repeat(i * 7) + "\"}")
                    .getBytes(StandardCharsets.UTF_8));
            try (RawSender sender = new RawSender(server.host(), server.port(), "iggy", "iggy", "s", "t", 1, ring)) {
                sender.send(0, 3);
                sender.send(3, 4); // wraps: 3, 4, 0, 1
                sender.send(2, 1);
            }
            IggyTcpClient client = IggyTcpClient.builder().host(server.host()).port(server.port())
                    .credentials("iggy", "iggy").connectionPoolSize(1).buildAndLogin();
            try {
                List<Message> read = client.messages().pollMessages(StreamId.of("s"), TopicId.of("t"), Optional.of(1L),
                        Consumer.of(1L), PollingStrategy.first(), 100L, false).messages();
                assertThat(read).extracting(m -> new String(m.payload(), StandardCharsets.UTF_8)).containsExactly(
                        text(ring, 0), text(ring, 1), text(ring, 2), text(ring, 3), text(ring, 4), text(ring, 0),
                        text(ring, 1), text(ring, 2));
                assertThat(read).extracting(m -> m.header().offset().longValueExact())
                        .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
                assertThat(read).allSatisfy(m -> {
                    assertThat(m.header().timestamp().signum()).isPositive();
                    assertThat(m.header().id().toBigInteger().signum()).as("an id the broker gave").isNotZero();
                });
                assertThat(client.messages().pollMessages(StreamId.of("s"), TopicId.of("t"), Optional.of(0L),
                        Consumer.of(1L), PollingStrategy.first(), 100L, false).messages()).isEmpty();
            } finally {
                client.close();
            }
        }
    }

    @Test
    void a_refused_login_or_send_names_the_status() throws Exception {
        try (EmbeddedIggyServer server = EmbeddedIggyServer.start()) {
            assertThatThrownBy(() -> new RawSender(server.host(), server.port(), "iggy", "wrong", "s", "t", 0,
                    List.of(new byte[1]))).isInstanceOf(IOException.class).hasMessageContaining("status");
            try (RawSender sender = new RawSender(server.host(), server.port(), "iggy", "iggy", "nope", "t", 0,
                    List.of(new byte[1]))) {
                assertThatThrownBy(() -> sender.send(0, 1)).isInstanceOf(IOException.class)
                        .hasMessageContaining("command 101");
            }
        }
    }

    private static String text(List<byte[]> ring, int i) {
        return new String(ring.get(i), StandardCharsets.UTF_8);
    }
}
