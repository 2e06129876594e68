package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.reflect.Field;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.apache.iggy.client.async.tcp.AsyncTcpConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.iggysink.application.settings.Secret;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;

import io.netty.channel.Channel;
import io.netty.channel.pool.ChannelPool;

/** {@link AnswerFramer} on a real wire: the in-JVM broker, or the server named by {@code IGGY_TCP_ADDRESS}. */
class AnswerFramerIT {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
    private static IggyEndpoint endpoint;
    private static IggyProducer producer;

    private final String stream = "framer-" + ProcessHandle.current().pid();

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

    @Test
    void a_connection_frames_its_answers_with_the_framer_and_polls_answers_of_megabytes_through_it() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            producer.createStreamIfMissing(stream);
            producer.createTopicIfMissing(stream, "big", 1);
            // 1,000 x 2 KiB: an answer of about 2 MiB, which arrives in many reads.
            producer.sendJson(stream, "big", 0, 1_000, AnswerFramerIT::json);
            AsyncIggyConnection connection = new AsyncIggyConnection(new IggySettings(endpoint.host(),
                    endpoint.port(), "iggy", Secret.of("iggy"), Optional.empty(), false, Optional.empty(),
                    Optional.empty()), CALL_TIMEOUT);
            try {
                connection.connect().get(10, TimeUnit.SECONDS);
                assertThat(decoderOf(connection)).isInstanceOf(AnswerFramer.class);
                connection.login("iggy", "iggy").get(10, TimeUnit.SECONDS);
                connection.createGroup(stream, "big", "framer").get(10, TimeUnit.SECONDS);
                connection.joinGroup(stream, "big", "framer").get(10, TimeUnit.SECONDS);

                PolledRecords polled = connection.poll(new PartitionRef(stream, "big", 0), "framer", 0, 1_000)
                        .get(10, TimeUnit.SECONDS);

                assertThat(polled.records()).hasSize(1_000);
                for (int i : new int[] {0, 1, 500, 999}) {
                    assertThat(polled.records().get(i).offset()).isEqualTo(i);
                    assertThat(new String(polled.records().get(i).payload(), StandardCharsets.UTF_8))
                            .isEqualTo(json(i));
                }
            } finally {
                connection.close().get(10, TimeUnit.SECONDS);
                producer.deleteStream(stream);
            }
        });
    }

    private static String json(int i) {
        return "{\"i\":" + i + ",\"pad\":\"" + "x".repeat(2_000) + "\"}";
    }

    /** The handler under the client's decoder name on the connection's channel. */
    private static Object decoderOf(AsyncIggyConnection connection) throws Exception {
        Field clients = AsyncIggyConnection.class.getDeclaredField("clients");
        clients.setAccessible(true);
        Object held = clients.get(connection);
        Field conn = held.getClass().getDeclaredField("connection");
        conn.setAccessible(true);
        Field poolField = AsyncTcpConnection.class.getDeclaredField("channelPool");
        poolField.setAccessible(true);
        ChannelPool pool = (ChannelPool) poolField.get(conn.get(held));
        Channel channel = pool.acquire().get(10, TimeUnit.SECONDS);
        try {
            return channel.pipeline().get("frameDecoder");
        } finally {
            pool.release(channel).get(10, TimeUnit.SECONDS);
        }
    }
}
