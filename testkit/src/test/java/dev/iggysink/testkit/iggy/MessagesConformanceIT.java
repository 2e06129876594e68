package dev.iggysink.testkit.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import net.openhft.hashing.LongHashFunction;
import org.apache.iggy.client.async.tcp.AsyncIggyTcpClient;
import org.apache.iggy.consumergroup.Consumer;
import org.apache.iggy.consumeroffset.ConsumerOffsetInfo;
import org.apache.iggy.exception.IggyServerException;
import org.apache.iggy.identifier.ConsumerId;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.message.BigIntegerMessageId;
import org.apache.iggy.message.HeaderKey;
import org.apache.iggy.message.HeaderKind;
import org.apache.iggy.message.HeaderValue;
import org.apache.iggy.message.Message;
import org.apache.iggy.message.MessageHeader;
import org.apache.iggy.message.MessageId;
import org.apache.iggy.message.Partitioning;
import org.apache.iggy.message.PolledMessages;
import org.apache.iggy.message.PollingStrategy;
import org.apache.iggy.message.UuidMessageId;
import org.apache.iggy.topic.CompressionAlgorithm;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** SEND_MESSAGES, POLL_MESSAGES and single-consumer offsets, through the real 0.8 clients. */
class MessagesConformanceIT extends ConformanceSupport {

    private static final Consumer CONSUMER = Consumer.of(7L);

    private StreamId streamId;
    private final TopicId topicId = TopicId.of("t");

    @BeforeEach
    void createTopic() {
        streamId = StreamId.of(stream);
        admin.topics().createTopic(streamId, 3L, CompressionAlgorithm.None, BigInteger.ZERO, BigInteger.ZERO,
                Optional.empty(), "t");
    }

    private static Message text(String payload) {
        return IggyProducer.message(payload.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    private static Message withId(MessageId id, String payload) {
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        return new Message(new MessageHeader(BigInteger.ZERO, id, BigInteger.ZERO, BigInteger.ZERO, BigInteger.ZERO,
                0L, (long) bytes.length, BigInteger.ZERO), bytes, Map.of());
    }

    private void send(long partition, String... payloads) {
        List<Message> messages = new ArrayList<>();
        for (String p : payloads) {
            messages.add(text(p));
        }
        admin.messages().sendMessages(streamId, topicId, Partitioning.partitionId(partition), messages);
    }

    private PolledMessages poll(long partition, PollingStrategy strategy, long count) {
        return admin.messages().pollMessages(streamId, topicId, Optional.of(partition), CONSUMER, strategy, count,
                false);
    }

    private static List<String> payloads(PolledMessages polled) {
        return polled.messages().stream().map(m -> new String(m.payload(), StandardCharsets.UTF_8)).toList();
    }

    private static List<Long> offsets(PolledMessages polled) {
        return polled.messages().stream().map(m -> m.header().offset().longValueExact()).toList();
    }

    private static long nowMicros() {
        return TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
    }

    @Test
    void the_server_assigns_offsets_one_timestamp_per_batch_and_random_ids() {
        long before = nowMicros();
        send(0, "a", "b", "c");
        long after = nowMicros() + 1_000;

        PolledMessages polled = poll(0, PollingStrategy.offset(BigInteger.ZERO), 10);

        assertThat(polled.partitionId()).isZero();
        assertThat(polled.currentOffset()).isEqualTo(BigInteger.TWO);
        assertThat(polled.count()).isEqualTo(3);
        assertThat(payloads(polled)).containsExactly("a", "b", "c");
        assertThat(offsets(polled)).containsExactly(0L, 1L, 2L);
        List<BigInteger> timestamps = polled.messages().stream().map(m -> m.header().timestamp()).toList();
        assertThat(timestamps).containsOnly(timestamps.get(0));
        assertThat(timestamps.get(0).longValueExact()).isBetween(before - 1_000_000, after + 1_000_000);
        assertThat(polled.messages()).allSatisfy(m -> {
            assertThat(m.header().originTimestamp()).isEqualTo(BigInteger.ZERO);
            assertThat(m.header().id().toBigInteger()).isNotEqualTo(BigInteger.ZERO);
            assertThat(m.header().payloadLength()).isEqualTo(1L);
            assertThat(m.header().userHeadersLength()).isZero();
            assertThat(m.userHeaders()).isEmpty();
        });
        assertThat(polled.messages().stream().map(m -> m.header().id().toBigInteger()).distinct()).hasSize(3);
    }

    @Test
    void a_later_batch_continues_the_offsets_with_a_later_timestamp() {
        send(1, "a", "b");
        send(1, "c");

        PolledMessages polled = poll(1, PollingStrategy.first(), 10);

        assertThat(offsets(polled)).containsExactly(0L, 1L, 2L);
        assertThat(polled.messages().get(2).header().timestamp())
                .isGreaterThan(polled.messages().get(1).header().timestamp());
        assertThat(polled.partitionId()).isEqualTo(1L);
    }

    @Test
    void client_chosen_ids_are_kept() {
        UUID uuid = UUID.randomUUID();
        admin.messages().sendMessages(streamId, topicId, Partitioning.partitionId(0L), List.of(
                withId(new BigIntegerMessageId(BigInteger.valueOf(42)), "x"),
                withId(new UuidMessageId(uuid), "y"),
                withId(new BigIntegerMessageId(BigInteger.ONE.shiftLeft(100).add(BigInteger.TEN)), "z")));

        PolledMessages polled = poll(0, PollingStrategy.first(), 10);

        assertThat(polled.messages()).extracting(m -> m.header().id().toBigInteger()).containsExactly(
                BigInteger.valueOf(42), new UuidMessageId(uuid).toBigInteger(),
                BigInteger.ONE.shiftLeft(100).add(BigInteger.TEN));
    }

    @Test
    void user_headers_of_every_kind_round_trip() {
        Map<HeaderKey, HeaderValue> headers = new LinkedHashMap<>();
        headers.put(HeaderKey.fromString("string"), HeaderValue.fromString("héllo"));
        headers.put(HeaderKey.fromString("bool"), HeaderValue.fromBool(true));
        headers.put(HeaderKey.fromString("i8"), HeaderValue.fromInt8((byte) -5));
        headers.put(HeaderKey.fromString("i16"), HeaderValue.fromInt16((short) -300));
        headers.put(HeaderKey.fromString("i32"), HeaderValue.fromInt32(-70_000));
        headers.put(HeaderKey.fromString("i64"), HeaderValue.fromInt64(-5_000_000_000L));
        headers.put(HeaderKey.fromString("i128"), new HeaderValue(HeaderKind.Int128, bytes(16, 1)));
        headers.put(HeaderKey.fromString("u8"), HeaderValue.fromUint8((short) 200));
        headers.put(HeaderKey.fromString("u16"), HeaderValue.fromUint16(60_000));
        headers.put(HeaderKey.fromString("u32"), HeaderValue.fromUint32(4_000_000_000L));
        headers.put(HeaderKey.fromString("u64"), new HeaderValue(HeaderKind.Uint64, bytes(8, 2)));
        headers.put(HeaderKey.fromString("u128"), new HeaderValue(HeaderKind.Uint128, bytes(16, 3)));
        headers.put(HeaderKey.fromString("f32"), HeaderValue.fromFloat32(1.5f));
        headers.put(HeaderKey.fromString("f64"), HeaderValue.fromFloat64(-2.25));
        headers.put(HeaderKey.fromString("raw"), HeaderValue.fromRaw(new byte[] {0, 1, 2, (byte) 255}));
        headers.put(new HeaderKey(HeaderKind.Raw, new byte[] {9, 8, 7}), HeaderValue.fromString("raw key"));
        admin.messages().sendMessages(streamId, topicId, Partitioning.partitionId(2L),
                List.of(IggyProducer.message("payload".getBytes(StandardCharsets.UTF_8), headers)));

        Message polled = poll(2, PollingStrategy.first(), 1).messages().get(0);

        assertThat(polled.userHeaders()).isEqualTo(new HashMap<>(headers));
        assertThat(polled.userHeaders().get(HeaderKey.fromString("string")).asString()).isEqualTo("héllo");
        assertThat(polled.userHeaders().get(HeaderKey.fromString("i64")).asInt64()).isEqualTo(-5_000_000_000L);
        assertThat(polled.userHeaders().get(HeaderKey.fromString("u32")).asUint32()).isEqualTo(4_000_000_000L);
        assertThat(polled.userHeaders().get(HeaderKey.fromString("f64")).asFloat64()).isEqualTo(-2.25);
        assertThat(new String(polled.payload(), StandardCharsets.UTF_8)).isEqualTo("payload");
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    @Test
    void the_checksum_is_xxh3_over_everything_after_the_checksum_field() {
        Map<HeaderKey, HeaderValue> header = Map.of(HeaderKey.fromString("k"), HeaderValue.fromString("v"));
        admin.messages().sendMessages(streamId, topicId, Partitioning.partitionId(0L), List.of(
                text("no headers"),
                IggyProducer.message("one header".getBytes(StandardCharsets.UTF_8), header)));

        List<Message> polled = poll(0, PollingStrategy.first(), 10).messages();

        assertThat(polled).hasSize(2).allSatisfy(m -> assertThat(m.header().checksum())
                .isEqualTo(new BigInteger(Long.toUnsignedString(expectedChecksum(m)))));
    }

    /** Re-encodes a polled message as stored (ids come back big-endian from the client) and hashes bytes 8..end. */
    private static long expectedChecksum(Message m) {
        MessageHeader h = m.header();
        ByteBuffer buf = ByteBuffer.allocate(64 + m.payload().length + h.userHeadersLength().intValue())
                .order(ByteOrder.LITTLE_ENDIAN);
        buf.putLong(0);
        BigInteger id = h.id().toBigInteger();
        buf.putLong(id.longValue()).putLong(id.shiftRight(64).longValue());
        buf.putLong(h.offset().longValue()).putLong(h.timestamp().longValue()).putLong(h.originTimestamp().longValue());
        buf.putInt(h.userHeadersLength().intValue()).putInt(h.payloadLength().intValue()).putLong(0);
        buf.put(m.payload());
        m.userHeaders().forEach((k, v) -> {
            buf.put((byte) k.kind().asCode()).putInt(k.value().length).put(k.value());
            buf.put((byte) v.kind().asCode()).putInt(v.value().length).put(v.value());
        });
        byte[] bytes = buf.array();
        return LongHashFunction.xx3().hashBytes(bytes, 8, bytes.length - 8);
    }

    @Test
    void balanced_partitioning_goes_round_robin_over_the_partitions() {
        for (int i = 0; i < 3; i++) {
            admin.messages().sendMessages(streamId, topicId, Partitioning.balanced(), List.of(text("m" + i)));
        }

        for (long p = 0; p < 3; p++) {
            assertThat(poll(p, PollingStrategy.first(), 10).messages()).hasSize(1);
        }
    }

    @Test
    void messages_key_partitioning_is_xxh32_of_the_key_modulo_the_partition_count() {
        String key = "customer-17";
        long expected = Integer.toUnsignedLong(Xxh32.hash(key.getBytes(StandardCharsets.UTF_8))) % 3;

        admin.messages().sendMessages(streamId, topicId, Partitioning.messagesKey(key),
                List.of(text("k1"), text("k2")));

        for (long p = 0; p < 3; p++) {
            assertThat(payloads(poll(p, PollingStrategy.first(), 10)))
                    .isEqualTo(p == expected ? List.of("k1", "k2") : List.of());
        }
    }

    @Test
    void sending_to_missing_targets_and_empty_batches_fails() {
        assertIggyError(() -> admin.messages().sendMessages(streamId, topicId, Partitioning.partitionId(3L),
                List.of(text("x"))), 3007);
        assertIggyError(() -> admin.messages().sendMessages(StreamId.of(uniqueName("missing")), topicId,
                Partitioning.balanced(), List.of(text("x"))), 1009);
        assertIggyError(() -> admin.messages().sendMessages(streamId, TopicId.of("missing"),
                Partitioning.balanced(), List.of(text("x"))), 2010);
        assertIggyError(() -> admin.messages().sendMessages(streamId, topicId, Partitioning.balanced(), List.of()),
                4009);
    }

    private long sendTwoBatchesOfFive() throws InterruptedException {
        send(0, "0", "1", "2", "3", "4");
        Thread.sleep(5); // distinct batch timestamps also on a real server
        send(0, "5", "6", "7", "8", "9");
        return poll(0, PollingStrategy.offset(BigInteger.valueOf(5)), 1).messages().get(0).header().timestamp()
                .longValueExact();
    }

    @Test
    void every_polling_strategy() throws InterruptedException {
        long secondBatch = sendTwoBatchesOfFive();

        assertThat(payloads(poll(0, PollingStrategy.offset(BigInteger.valueOf(3)), 4)))
                .containsExactly("3", "4", "5", "6");
        assertThat(payloads(poll(0, PollingStrategy.timestamp(BigInteger.valueOf(secondBatch)), 100)))
                .containsExactly("5", "6", "7", "8", "9");
        assertThat(payloads(poll(0, PollingStrategy.first(), 2))).containsExactly("0", "1");
        assertThat(payloads(poll(0, PollingStrategy.last(), 3))).containsExactly("7", "8", "9");
        assertThat(payloads(poll(0, PollingStrategy.last(), 50))).hasSize(10);
        // Next without a stored offset behaves like First.
        assertThat(payloads(poll(0, PollingStrategy.next(), 2))).containsExactly("0", "1");
        admin.consumerOffsets().storeConsumerOffset(streamId, topicId, Optional.of(0L), CONSUMER,
                BigInteger.valueOf(4));
        assertThat(payloads(poll(0, PollingStrategy.next(), 2))).containsExactly("5", "6");
    }

    @Test
    void polls_past_the_end_or_with_count_zero_are_empty_but_report_the_partition() throws InterruptedException {
        sendTwoBatchesOfFive();

        PolledMessages beyond = poll(0, PollingStrategy.offset(BigInteger.TEN), 10);
        PolledMessages none = poll(0, PollingStrategy.first(), 0);
        PolledMessages emptyPartition = poll(2, PollingStrategy.first(), 10);

        assertThat(beyond.messages()).isEmpty();
        assertThat(beyond.currentOffset()).isEqualTo(BigInteger.valueOf(9));
        assertThat(none.messages()).isEmpty();
        assertThat(none.count()).isZero();
        assertThat(emptyPartition.messages()).isEmpty();
        assertThat(emptyPartition.partitionId()).isEqualTo(2L);
        assertThat(emptyPartition.currentOffset()).isEqualTo(BigInteger.ZERO);
    }

    @Test
    void polling_missing_targets_fails() {
        assertIggyError(() -> admin.messages().pollMessages(StreamId.of(uniqueName("missing")), topicId,
                Optional.of(0L), CONSUMER, PollingStrategy.first(), 1L, false), 1009);
        assertIggyError(() -> admin.messages().pollMessages(streamId, TopicId.of("missing"), Optional.of(0L),
                CONSUMER, PollingStrategy.first(), 1L, false), 2010);
        assertIggyError(() -> poll(3, PollingStrategy.first(), 1), 3007);
    }

    @Test
    void single_consumer_offsets_store_and_get_without_a_monotonic_check() throws InterruptedException {
        sendTwoBatchesOfFive();
        Consumer named = Consumer.of(ConsumerId.of("named-consumer"));

        assertThat(admin.consumerOffsets().getConsumerOffset(streamId, topicId, Optional.of(0L), CONSUMER)).isEmpty();
        admin.consumerOffsets().storeConsumerOffset(streamId, topicId, Optional.of(0L), CONSUMER,
                BigInteger.valueOf(6));
        admin.consumerOffsets().storeConsumerOffset(streamId, topicId, Optional.of(0L), named, BigInteger.ONE);
        ConsumerOffsetInfo stored = admin.consumerOffsets()
                .getConsumerOffset(streamId, topicId, Optional.of(0L), CONSUMER).orElseThrow();
        assertThat(stored.partitionId()).isZero();
        assertThat(stored.currentOffset()).isEqualTo(BigInteger.valueOf(9));
        assertThat(stored.storedOffset()).isEqualTo(BigInteger.valueOf(6));
        assertThat(admin.consumerOffsets().getConsumerOffset(streamId, topicId, Optional.of(0L), named)
                .orElseThrow().storedOffset()).isEqualTo(BigInteger.ONE);

        admin.consumerOffsets().storeConsumerOffset(streamId, topicId, Optional.of(0L), CONSUMER, BigInteger.TWO);
        assertThat(admin.consumerOffsets().getConsumerOffset(streamId, topicId, Optional.of(0L), CONSUMER)
                .orElseThrow().storedOffset()).isEqualTo(BigInteger.TWO);
    }

    @Test
    void storing_beyond_the_current_offset_or_on_an_empty_partition_gives_4100() throws InterruptedException {
        sendTwoBatchesOfFive();

        assertIggyError(() -> admin.consumerOffsets().storeConsumerOffset(streamId, topicId, Optional.of(0L),
                CONSUMER, BigInteger.TEN), 4100);
        assertIggyError(() -> admin.consumerOffsets().storeConsumerOffset(streamId, topicId, Optional.of(1L),
                CONSUMER, BigInteger.ZERO), 4100);
        assertThat(admin.consumerOffsets().getConsumerOffset(StreamId.of(uniqueName("missing")), topicId,
                Optional.of(0L), CONSUMER)).isEmpty();
    }

    @Test
    void auto_commit_stores_the_last_returned_offset() throws InterruptedException {
        sendTwoBatchesOfFive();

        PolledMessages first = admin.messages().pollMessages(streamId, topicId, Optional.of(0L), CONSUMER,
                PollingStrategy.next(), 3L, true);
        PolledMessages second = admin.messages().pollMessages(streamId, topicId, Optional.of(0L), CONSUMER,
                PollingStrategy.next(), 3L, true);

        assertThat(payloads(first)).containsExactly("0", "1", "2");
        assertThat(payloads(second)).containsExactly("3", "4", "5");
        assertThat(admin.consumerOffsets().getConsumerOffset(streamId, topicId, Optional.of(0L), CONSUMER)
                .orElseThrow().storedOffset()).isEqualTo(BigInteger.valueOf(5));
    }

    @Test
    void the_async_client_sends_polls_and_fails_with_server_codes() throws Exception {
        AsyncIggyTcpClient async = AsyncIggyTcpClient.builder()
                .host(endpoint.host())
                .port(endpoint.port())
                .credentials("iggy", "iggy")
                .connectionPoolSize(1)
                .buildAndLogin()
                .get(10, TimeUnit.SECONDS);
        try {
            async.messages().sendMessages(streamId, topicId, Partitioning.partitionId(1L),
                    List.of(text("async-1"), text("async-2"))).get(10, TimeUnit.SECONDS);
            PolledMessages polled = async.messages().pollMessages(streamId, topicId, Optional.of(1L), CONSUMER,
                    PollingStrategy.first(), 10L, false).get(10, TimeUnit.SECONDS);
            assertThat(payloads(polled)).containsExactly("async-1", "async-2");

            assertThatThrownBy(() -> async.streams().createStream(stream).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(IggyServerException.class)
                    .extracting(e -> ((IggyServerException) e).getRawErrorCode())
                    .isEqualTo(1012);
        } finally {
            async.close().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void the_producer_helper_sends_json_in_batches_with_headers() {
        try (IggyProducer producer = IggyProducer.connect(endpoint.host(), endpoint.port())) {
            producer.createStreamIfMissing(stream);
            producer.createTopicIfMissing(stream, "t", 3);
            producer.sendJson(stream, "t", 2, 2_500, i -> "{\"i\":" + i + "}");
            producer.send(stream, "t", 1, List.of("h".getBytes(StandardCharsets.UTF_8)), Map.of("source", "test"));
        }

        PolledMessages json = poll(2, PollingStrategy.offset(BigInteger.valueOf(2_499)), 10);
        Message withHeader = poll(1, PollingStrategy.first(), 1).messages().get(0);

        assertThat(json.currentOffset()).isEqualTo(BigInteger.valueOf(2_499));
        assertThat(payloads(json)).containsExactly("{\"i\":2499}");
        assertThat(poll(2, PollingStrategy.offset(BigInteger.valueOf(999)), 2).messages())
                .extracting(m -> m.header().timestamp())
                .doesNotHaveDuplicates();
        assertThat(withHeader.userHeaders()).containsEntry(HeaderKey.fromString("source"),
                HeaderValue.fromString("test"));
    }
}
