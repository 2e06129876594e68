package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.testkit.iggy.EmbeddedIggyServer;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;
import io.netty.channel.Channel;
import io.netty.channel.pool.ChannelPool;
import java.lang.reflect.Field;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iggy.client.async.tcp.AsyncTcpConnection;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.message.BigIntegerMessageId;
import org.apache.iggy.message.HeaderKey;
import org.apache.iggy.message.HeaderValue;
import org.apache.iggy.message.Message;
import org.apache.iggy.message.MessageHeader;
import org.apache.iggy.message.Partitioning;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link IggyMessageSource} against a real wire: the in-JVM broker, or the server named by {@code IGGY_TCP_ADDRESS}
 * (the socket-fault tests need the embedded one and are skipped otherwise). Every test runs under a hard time bound:
 * a hang is the failure these tests exist to catch.
 */
class IggyMessageSourceIT {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static IggyEndpoint endpoint;
    private static IggyProducer producer;

    private final String stream = "it-" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet();
    private final String topic = "events";
    private final List<IggyMessageSource> opened = new ArrayList<>();

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

    private IggySettings settings(String user, String password) {
        return new IggySettings(endpoint.host(), endpoint.port(), user, Secret.of(password), Optional.empty(), false,
                Optional.empty(), Optional.empty());
    }

    private IggyMessageSource source(String group) {
        IggyMessageSource s = new IggyMessageSource(settings("iggy", "iggy"), stream, topic, group, CALL_TIMEOUT);
        opened.add(s);
        return s;
    }

    private void topicWith(int partitions) {
        producer.createStreamIfMissing(stream);
        producer.createTopicIfMissing(stream, topic, partitions);
    }

    private PartitionRef partition(int id) {
        return new PartitionRef(stream, topic, id);
    }

    private static String json(int i) {
        return "{\"i\":" + i + "}";
    }

    /** Polls from {@code from} until {@code count} records came back; fails on a gap or a repeat. */
    private static List<SinkRecord> read(IggyMessageSource s, PartitionRef p, long from, int count) throws Exception {
        List<SinkRecord> out = new ArrayList<>(count);
        long next = from;
        while (out.size() < count) {
            Batch b = s.poll(p, next, Math.min(1000, count - out.size()));
            assertThat(b.owned()).as("owned %s", p).isTrue();
            assertThat(b.records()).as("records of %s from %d", p, next).isNotEmpty();
            for (SinkRecord r : b.records()) {
                assertThat(r.offset()).isEqualTo(next);
                next++;
                out.add(r);
            }
        }
        return out;
    }

    private void closeAll() {
        opened.forEach(IggyMessageSource::close);
    }

    @Test
    void polls_50000_records_past_the_committed_offset_without_moving_it() {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            topicWith(1);
            producer.sendJson(stream, topic, 0, 50_010, IggyMessageSourceIT::json);
            IggyMessageSource s = source("ahead");
            s.commit(partition(0), 9);

            List<SinkRecord> records = read(s, partition(0), 10, 50_000);

            assertThat(records.get(0).offset()).isEqualTo(10);
            assertThat(records.get(49_999).offset()).isEqualTo(50_009);
            assertThat(new String(records.get(49_999).payload(), StandardCharsets.UTF_8)).isEqualTo(json(50_009));
            assertThat(s.committedOffset(partition(0))).isEqualTo(OptionalLong.of(9));
            Batch end = s.poll(partition(0), 50_010, 10);
            assertThat(end.records()).isEmpty();
            assertThat(end.currentOffset()).isEqualTo(50_009);
            closeAll();
        });
    }

    @Test
    void a_new_instance_resumes_right_after_the_committed_offset() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            topicWith(1);
            producer.sendJson(stream, topic, 0, 100, IggyMessageSourceIT::json);
            IggyMessageSource first = source("restart");
            assertThat(first.committedOffset(partition(0))).isEmpty();
            read(first, partition(0), 0, 60);
            first.commit(partition(0), 59);
            first.close();

            IggyMessageSource second = source("restart");
            OptionalLong committed = second.committedOffset(partition(0));
            assertThat(committed).isEqualTo(OptionalLong.of(59));
            List<SinkRecord> rest = read(second, partition(0), committed.getAsLong() + 1, 40);

            assertThat(rest.get(0).offset()).isEqualTo(60);
            assertThat(new String(rest.get(0).payload(), StandardCharsets.UTF_8)).isEqualTo(json(60));
            closeAll();
        });
    }

    @Test
    void two_members_split_the_partitions_and_a_leaving_member_hands_its_share_over() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            topicWith(4);
            for (int p = 0; p < 4; p++) {
                producer.sendJson(stream, topic, p, 5, IggyMessageSourceIT::json);
            }
            IggyMessageSource a = source("split");
            IggyMessageSource b = source("split");
            a.connect();
            b.connect();

            Set<Integer> ownedByA = owned(a);
            Set<Integer> ownedByB = owned(b);
            assertThat(ownedByA).isNotEmpty().doesNotContainAnyElementsOf(ownedByB);
            assertThat(ownedByB).isNotEmpty();
            Set<Integer> all = new HashSet<>(ownedByA);
            all.addAll(ownedByB);
            assertThat(all).containsExactlyInAnyOrder(0, 1, 2, 3);

            // a partition B does not own refuses its commit; it is not retried
            int notB = ownedByA.iterator().next();
            assertThat(catchThrowableOfType(SourceException.class, () -> b.commit(partition(notB), 0)).retryable())
                    .isFalse();

            a.close();
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(owned(b)).containsExactlyInAnyOrder(0, 1, 2, 3));
            b.commit(partition(notB), 4);
            assertThat(b.committedOffset(partition(notB))).isEqualTo(OptionalLong.of(4));
            closeAll();
        });
    }

    @Test
    void partition_zero_ownership_is_told_apart_when_the_answer_is_zero_zero_empty() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            topicWith(2);
            IggyMessageSource a = source("zero");
            // alone in the group and partition 0 empty: owned, nothing in it
            Batch empty = a.poll(partition(0), 0, 10);
            assertThat(empty.owned()).isTrue();
            assertThat(empty.currentOffset()).isEqualTo(-1);

            producer.sendJson(stream, topic, 0, 1, IggyMessageSourceIT::json);
            IggyMessageSource b = source("zero");
            b.connect();
            Set<Integer> ownedByB = new HashSet<>();
            for (PartitionRef p : b.partitions()) {
                if (b.poll(p, 0, 1).owned()) ownedByB.add(p.partitionId());
            }
            IggyMessageSource owner = ownedByB.contains(0) ? b : a;
            IggyMessageSource other = owner == a ? b : a;

            // one message at offset 0, polled from 1: current_offset 0 and no messages for owner and non-owner alike
            Batch past = owner.poll(partition(0), 1, 10);
            assertThat(past.owned()).isTrue();
            assertThat(past.currentOffset()).isZero();
            Batch notOurs = other.poll(partition(0), 1, 10);
            assertThat(notOurs.owned()).isFalse();
            assertThat(notOurs.currentOffset()).isEqualTo(-1);
            closeAll();
        });
    }

    private Set<Integer> owned(IggyMessageSource s) throws SourceException {
        Set<Integer> owned = new HashSet<>();
        for (PartitionRef p : s.partitions()) {
            Batch b = s.poll(p, 0, 1);
            if (b.owned()) {
                owned.add(p.partitionId());
                assertThat(b.records()).hasSize(1);
                assertThat(b.currentOffset()).isEqualTo(4);
            } else {
                assertThat(b.records()).isEmpty();
            }
        }
        return owned;
    }

    @Test
    void a_fin_while_a_poll_is_in_flight_is_survived_and_nothing_is_skipped_after_the_restart() {
        survivesASocketCloseMidPoll(EmbeddedIggyServer::dropConnections);
    }

    @Test
    void a_reset_while_a_poll_is_in_flight_is_survived_and_nothing_is_skipped_after_the_restart() {
        survivesASocketCloseMidPoll(EmbeddedIggyServer::resetConnections);
    }

    private void survivesASocketCloseMidPoll(java.util.function.Consumer<EmbeddedIggyServer> fault) {
        assumeTrue(endpoint.embedded(), "socket faults need the embedded broker");
        EmbeddedIggyServer server = endpoint.server().orElseThrow();
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            topicWith(1);
            producer.sendJson(stream, topic, 0, 1_000, IggyMessageSourceIT::json);
            IggyMessageSource s = source("faults");
            read(s, partition(0), 0, 100);
            s.commit(partition(0), 99);
            long epochBefore = s.sessionEpoch();

            ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
            try {
                server.stallResponses(true);
                timer.schedule(() -> {
                    fault.accept(server);
                    server.stallResponses(false);
                }, 300, TimeUnit.MILLISECONDS);
                // the producer's connection is dropped too; it reconnects on its own (idle)

                SourceException e = catchThrowableOfType(SourceException.class,
                        () -> s.poll(partition(0), 100, 100));
                assertThat(e).as("the poll in flight fails").isNotNull();
                assertThat(e.retryable()).isTrue();
            } finally {
                server.stallResponses(false);
                timer.shutdownNow();
            }
            assertThat(s.sessionEpoch()).isGreaterThan(epochBefore);

            // the caller restarts from the committed offset: every record after it arrives, once, in order
            OptionalLong committed = retry(() -> s.committedOffset(partition(0)));
            assertThat(committed).isEqualTo(OptionalLong.of(99));
            // Until the server has processed the old socket's close, the old member still holds the partition and
            // the new one is told "not owned"; the pipeline just polls again.
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> retry(() -> s.poll(partition(0), 100, 1)).owned());
            List<SinkRecord> rest = read(s, partition(0), 100, 900);
            assertThat(rest).extracting(SinkRecord::offset).first().isEqualTo(100L);
            assertThat(rest).extracting(SinkRecord::offset).last().isEqualTo(999L);
            closeAll();
        });
    }

    @Test
    void an_idle_connection_closed_by_the_server_is_rejoined_on_the_next_call() {
        assumeTrue(endpoint.embedded(), "socket faults need the embedded broker");
        EmbeddedIggyServer server = endpoint.server().orElseThrow();
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            topicWith(1);
            producer.sendJson(stream, topic, 0, 10, IggyMessageSourceIT::json);
            IggyMessageSource s = source("idle");
            read(s, partition(0), 0, 5);

            server.dropConnections();

            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> retry(() -> s.poll(partition(0), 5, 1)).owned());
            Batch b = retry(() -> s.poll(partition(0), 5, 100));
            assertThat(s.sessionEpoch()).isGreaterThanOrEqualTo(1);
            assertThat(b.owned()).isTrue();
            assertThat(b.records()).extracting(SinkRecord::offset).containsExactly(5L, 6L, 7L, 8L, 9L);
            closeAll();
        });
    }

    @Test
    void ids_headers_and_timestamps_arrive_as_sent() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            topicWith(1);
            BigInteger id = new BigInteger("0102030405060708090a0b0c0d0e0f10", 16);
            byte[] payload = "hello".getBytes(StandardCharsets.UTF_8);
            Map<HeaderKey, HeaderValue> headers = Map.of(HeaderKey.fromString("tenant"), HeaderValue.fromString("a"),
                    HeaderKey.fromString("n"), HeaderValue.fromInt32(7));
            long headersLength = 0;
            for (var h : headers.entrySet()) {
                headersLength += 10 + h.getKey().value().length + h.getValue().value().length;
            }
            MessageHeader header = new MessageHeader(BigInteger.ZERO, new BigIntegerMessageId(id), BigInteger.ZERO,
                    BigInteger.ZERO, BigInteger.valueOf(1_600_000_000_000_000L), headersLength,
                    (long) payload.length, BigInteger.ZERO);
            producer.client().messages().sendMessages(StreamId.of(stream), TopicId.of(topic),
                    Partitioning.partitionId(0L), List.of(new Message(header, payload, headers)));

            IggyMessageSource s = source("ids");
            SinkRecord r = read(s, partition(0), 0, 1).get(0);

            assertThat(r.id().toBigInteger()).isEqualTo(id);
            assertThat(r.id().high()).isEqualTo(0x0102030405060708L);
            assertThat(r.originTimestampMicros()).isEqualTo(1_600_000_000_000_000L);
            assertThat(r.timestampMicros()).isGreaterThan(1_600_000_000_000_000L);
            assertThat(r.headers()).contains(RecordHeader.ofStrings("tenant", "a"));
            assertThat(r.headers()).hasSize(2);
            assertThat(new String(r.payload(), StandardCharsets.UTF_8)).isEqualTo("hello");
            closeAll();
        });
    }

    @Test
    void a_wrong_password_is_not_retryable_and_the_message_does_not_show_it() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            topicWith(1);
            IggyMessageSource s = new IggyMessageSource(settings("iggy", "wrong-pass-123"), stream, topic, "g",
                    CALL_TIMEOUT);
            opened.add(s);

            SourceException e = catchThrowableOfType(SourceException.class, s::connect);

            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).contains("user 'iggy'").doesNotContain("wrong-pass-123");
            assertThat(String.valueOf(e.getCause())).doesNotContain("wrong-pass-123");
            closeAll();
        });
    }

    @Test
    void a_missing_topic_or_stream_is_named_and_not_retryable() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            producer.createStreamIfMissing(stream);
            IggyMessageSource s = new IggyMessageSource(settings("iggy", "iggy"), stream, "no-such-topic", "g",
                    CALL_TIMEOUT);
            opened.add(s);
            SourceException e = catchThrowableOfType(SourceException.class, s::connect);
            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).contains("topic 'no-such-topic'").contains("stream '" + stream + "'");

            IggyMessageSource noStream = new IggyMessageSource(settings("iggy", "iggy"), stream + "-missing", topic,
                    "g", CALL_TIMEOUT);
            opened.add(noStream);
            e = catchThrowableOfType(SourceException.class, noStream::connect);
            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).contains("stream '" + stream + "-missing'");
            closeAll();
        });
    }

    @FunctionalInterface
    private interface SourceCall<T> {
        T run() throws SourceException;
    }

    /** What the pipeline does with a retryable failure: back off briefly and call again. */
    private static <T> T retry(SourceCall<T> call) throws Exception {
        SourceException last = null;
        for (int attempt = 0; attempt < 20; attempt++) {
            try {
                return call.run();
            } catch (SourceException e) {
                if (!e.retryable()) throw e;
                last = e;
                Thread.sleep(200);
            }
        }
        throw last;
    }

    // ---- the connection's framing of answers ----

    @Test
    void a_connection_frames_its_answers_with_the_sinks_decoder_and_polls_answers_of_megabytes_through_it() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            producer.createStreamIfMissing(stream);
            producer.createTopicIfMissing(stream, "big", 1);
            // 1,000 x 2 KiB: an answer of about 2 MiB, which arrives in many reads.
            producer.sendJson(stream, "big", 0, 1_000, IggyMessageSourceIT::padded);
            AsyncIggyConnection connection = new AsyncIggyConnection(settings("iggy", "iggy"), Duration.ofSeconds(5));
            try {
                connection.connect().get(10, TimeUnit.SECONDS);
                assertThat(decoderOf(connection)).isInstanceOf(AnswerFrameDecoder.class);
                connection.login("iggy", "iggy").get(10, TimeUnit.SECONDS);
                connection.createGroup(stream, "big", "framer").get(10, TimeUnit.SECONDS);
                connection.joinGroup(stream, "big", "framer").get(10, TimeUnit.SECONDS);

                PolledRecords polled = connection.poll(new PartitionRef(stream, "big", 0), "framer", 0, 1_000)
                        .get(10, TimeUnit.SECONDS);

                assertThat(polled.records()).hasSize(1_000);
                for (int i : new int[] {0, 1, 500, 999}) {
                    assertThat(polled.records().get(i).offset()).isEqualTo(i);
                    assertThat(new String(polled.records().get(i).payload(), StandardCharsets.UTF_8))
                            .isEqualTo(padded(i));
                }
            } finally {
                connection.close().get(10, TimeUnit.SECONDS);
                producer.deleteStream(stream);
            }
        });
    }

    private static String padded(int i) {
        return "{\"i\":" + i + ",\"pad\":\"" + "x".repeat(2_000) + "\"}";
    }

    /** The handler under the client's decoder name on the connection's channel. */
    private static Object decoderOf(AsyncIggyConnection connection) throws Exception {
        Field clients = AsyncIggyConnection.class.getDeclaredField("clients");
        clients.setAccessible(true);
        Object held = clients.get(connection);
        Field conn = held.getClass().getDeclaredField("connection");
        conn.setAccessible(true);
        ChannelPool pool = IggyClientShape.channelPool((AsyncTcpConnection) conn.get(held));
        Channel channel = pool.acquire().get(10, TimeUnit.SECONDS);
        try {
            return channel.pipeline().get("frameDecoder");
        } finally {
            pool.release(channel).get(10, TimeUnit.SECONDS);
        }
    }

    /** A connection under the source, logged in and a member of {@code group}. */
    private AsyncIggyConnection member(String group) throws Exception {
        AsyncIggyConnection c = new AsyncIggyConnection(settings("iggy", "iggy"), Duration.ofSeconds(5));
        c.connect().get(5, TimeUnit.SECONDS);
        c.login("iggy", "iggy").get(5, TimeUnit.SECONDS);
        c.createGroup(stream, topic, group).get(5, TimeUnit.SECONDS);
        c.joinGroup(stream, topic, group).get(5, TimeUnit.SECONDS);
        return c;
    }

    /**
     * The connection's polls and offset requests go past the client's channel pool ({@link DirectRequestHandler}); the
     * client's own calls share the channel.
     */
    @Test
    void polls_on_the_channel_and_the_clients_calls_from_other_threads_each_get_their_own_answers() {
        producer.createStreamIfMissing(stream);
        producer.createTopicIfMissing(stream, topic, 2);
        producer.sendJson(stream, topic, 0, 500, i -> "{\"i\":" + i + "}");
        producer.sendJson(stream, topic, 1, 300, i -> "{}"); // an offset can be stored only where there are messages
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            String group = "sink";
            AsyncIggyConnection c = member(group);
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
                // Offsets, past the pool as polls go, meanwhile: stores and reads back partition 1's offset (a poll's
                // answer routed here would not read as an offset); and the client's own calls, through its pool, on
                // the same channel: the topic's partition ends.
                Future<?> offsets = threads.submit(() -> {
                    for (int round = 0; round < 300; round++) {
                        c.storeOffset(stream, topic, group, 1, round).get(5, TimeUnit.SECONDS);
                        OptionalLong stored = c.storedOffset(stream, topic, group, 1).get(5, TimeUnit.SECONDS);
                        assertThat(stored).as("round %d", round).hasValue(round);
                        assertThat(c.partitionEnds(stream, topic).get(5, TimeUnit.SECONDS)).as("round %d", round)
                                .hasValue(java.util.Map.of(0, 499L, 1, 299L));
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
            }
        });
    }
}
