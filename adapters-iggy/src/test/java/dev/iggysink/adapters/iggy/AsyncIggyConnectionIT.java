package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.iggysink.application.settings.Secret;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The connection's polls, sent past the client's channel pool ({@link DirectRequests}), against a real wire: the
 * in-JVM broker or the server at {@code IGGY_TCP_ADDRESS}.
 */
class AsyncIggyConnectionIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static IggyEndpoint endpoint;
    private static IggyProducer producer;

    private final String stream = "conn-it-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    private final String topic = "events";
    private final String group = "sink";

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

    private AsyncIggyConnection member() throws Exception {
        AsyncIggyConnection c = new AsyncIggyConnection(new IggySettings(endpoint.host(), endpoint.port(), "iggy",
                Secret.of("iggy"), Optional.empty(), false, Optional.empty(), Optional.empty()), TIMEOUT);
        c.connect().get(5, TimeUnit.SECONDS);
        c.login("iggy", "iggy").get(5, TimeUnit.SECONDS);
        c.createGroup(stream, topic, group).get(5, TimeUnit.SECONDS);
        c.joinGroup(stream, topic, group).get(5, TimeUnit.SECONDS);
        return c;
    }

    @Test
    void polls_on_the_channel_and_the_clients_calls_from_other_threads_each_get_their_own_answers() {
        producer.createStreamIfMissing(stream);
        producer.createTopicIfMissing(stream, topic, 2);
        producer.sendJson(stream, topic, 0, 500, i -> "{\"i\":" + i + "}");
        producer.sendJson(stream, topic, 1, 300, i -> "{}"); // an offset can be stored only where there are messages
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            AsyncIggyConnection c = member();
            ExecutorService threads = Executors.newFixedThreadPool(3);
            try {
                assertThat(c.pollsGoDirect()).as("polls bypass the pool on a plain TCP channel").isTrue();
                PartitionRef p0 = new PartitionRef(stream, topic, 0);
                Future<?> polls = threads.submit(() -> {
                    Random random = new Random(7);
                    for (int round = 0; round < 300; round++) {
                        long from = random.nextInt(500);
                        int count = 1 + random.nextInt(20);
                        PolledRecords r = c.poll(p0, group, from, count).get(5, TimeUnit.SECONDS);
                        assertThat(r.records()).as("round %d", round).hasSize((int) Math.min(count, 500 - from));
                        for (int i = 0; i < r.records().size(); i++) {
                            SinkRecord record = r.records().get(i);
                            assertThat(record.offset()).isEqualTo(from + i);
                            assertThat(new String(record.payload(), StandardCharsets.UTF_8))
                                    .isEqualTo("{\"i\":" + (from + i) + "}");
                        }
                    }
                    return null;
                });
                // The client's own calls, through its pool, on the same channel meanwhile: stores and reads back
                // partition 1's offset (a poll's answer routed here would not read as an offset).
                Future<?> offsets = threads.submit(() -> {
                    for (int round = 0; round < 300; round++) {
                        c.storeOffset(stream, topic, group, 1, round).get(5, TimeUnit.SECONDS);
                        OptionalLong stored = c.storedOffset(stream, topic, group, 1).get(5, TimeUnit.SECONDS);
                        assertThat(stored).as("round %d", round).hasValue(round);
                    }
                    return null;
                });
                // Several polls in flight at once, from two threads: answered in order, each to its caller.
                Future<?> bursts = threads.submit(() -> {
                    for (int round = 0; round < 50; round++) {
                        CompletableFuture<?>[] inFlight = new CompletableFuture<?>[5];
                        for (int k = 0; k < inFlight.length; k++) {
                            long from = round * 5L + k;
                            inFlight[k] = c.poll(p0, group, from, 1).thenAccept(r ->
                                    assertThat(r.records().get(0).offset()).isEqualTo(from));
                        }
                        CompletableFuture.allOf(inFlight).get(5, TimeUnit.SECONDS);
                    }
                    return null;
                });
                polls.get();
                offsets.get();
                bursts.get();
            } finally {
                threads.shutdownNow();
                c.close();
                producer.deleteStream(stream);
            }
        });
    }
}
