package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.iggysink.adapters.iggy.PollResponses.Entry;
import dev.iggysink.adapters.iggy.PollResponses.Wire;
import dev.iggysink.domain.message.HeaderKind;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.apache.iggy.message.Message;
import org.apache.iggy.message.PolledMessages;
import org.apache.iggy.serde.BytesDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The decoder against the client's own decoding ({@code BytesDeserializer.readPolledMessages} then
 * {@link MessageConverter}, the path it replaces) on random answers, and on answers no server should send.
 */
class PollResponseDecoderTest {
    private static final PartitionRef P = new PartitionRef("orders", "created", 3);
    /** Fresh per run so runs cover more inputs; a failure names it, and -DpollDecoderSeed=N replays it. */
    private static final long SEED = Long.getLong("pollDecoderSeed", System.nanoTime());

    @Test
    void random_answers_decode_to_exactly_the_records_of_the_clients_path() {
        Random random = new Random(SEED);
        int messagesSeen = 0;
        for (int round = 0; round < 300; round++) {
            List<Wire> messages = randomMessages(random);
            messagesSeen += messages.size();
            long current = messages.isEmpty() ? random.nextInt(1000)
                    : Math.max(messages.get(messages.size() - 1).offset(),
                            messages.get(messages.size() - 1).offset() + random.nextInt(2));
            byte[] body = PollResponses.encode(P.partitionId(), current, messages);
            for (Function<byte[], ByteBuf> form : bufferForms()) {
                ByteBuf buf = form.apply(body);
                try {
                    int readerIndex = buf.readerIndex();
                    PolledMessages old = BytesDeserializer.readPolledMessages(buf.duplicate());
                    List<SinkRecord> expected = new ArrayList<>();
                    for (Message m : old.messages()) {
                        expected.add(MessageConverter.toRecord(P, m));
                    }

                    PolledRecords decoded = PollResponseDecoder.decode(buf, P);

                    String seed = "seed " + SEED + " (replay with -DpollDecoderSeed=" + SEED + "), round " + round;
                    assertThat(decoded.partitionId()).as(seed).isEqualTo(old.partitionId());
                    assertThat(decoded.currentOffset()).as(seed).isEqualTo(old.currentOffset().longValueExact());
                    assertThat(decoded.records()).as(seed).hasSize(messages.size()).isEqualTo(expected);
                    assertThat(buf.readerIndex()).as(seed).isEqualTo(readerIndex);
                    assertThat(buf.refCnt()).as(seed).isEqualTo(1);
                } finally {
                    buf.release();
                }
            }
        }
        assertThat(messagesSeen).isGreaterThan(1000);
    }

    @Test
    void the_wire_id_bytes_become_the_id_the_producer_sent() {
        byte[] body = PollResponses.encode(3, 0, List.of(Wire.of(0, new byte[0])));
        for (int i = 0; i < 16; i++) {
            body[16 + 8 + i] = (byte) (i + 1); // little-endian u128: byte 8 of the header is the least significant
        }

        SinkRecord r = PollResponseDecoder.decode(Unpooled.wrappedBuffer(body), P).records().get(0);

        assertThat(r.id()).isEqualTo(new MessageId(0x100f0e0d0c0b0a09L, 0x0807060504030201L));
    }

    @Test
    void a_record_owns_a_copy_of_its_payload() {
        byte[] body = PollResponses.encode(3, 0, List.of(Wire.of(0, "{\"a\":1}".getBytes(StandardCharsets.UTF_8))));
        ByteBuf buf = Unpooled.wrappedBuffer(body);

        SinkRecord r = PollResponseDecoder.decode(buf, P).records().get(0);
        Arrays.fill(body, (byte) 0);

        assertThat(new String(r.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
    }

    @Test
    void headers_sent_twice_keep_the_last_value_and_come_out_sorted_by_key() {
        byte[] b = {9};
        Wire m = new Wire(0, 0, 1, 0, 1, 1, new byte[] {1}, List.of(
                new Entry(2, bytes("zeta"), 7, new byte[8]),
                new Entry(1, b, 3, new byte[] {0}),
                new Entry(2, bytes("alpha"), 2, bytes("first")),
                new Entry(2, bytes("alpha"), 2, bytes("second")),
                new Entry(1, b, 3, new byte[] {1})));

        List<RecordHeader> headers = PollResponseDecoder.decode(
                Unpooled.wrappedBuffer(PollResponses.encode(3, 0, List.of(m))), P).records().get(0).headers();

        assertThat(headers).containsExactly(
                new RecordHeader(HeaderKind.RAW, b, HeaderKind.BOOL, new byte[] {1}),
                RecordHeader.ofStrings("alpha", "second"),
                new RecordHeader(HeaderKind.STRING, bytes("zeta"), HeaderKind.INT64, new byte[8]));
    }

    @Test
    void the_no_partition_answer_is_partition_zero_with_nothing() {
        PolledRecords r = PollResponseDecoder.decode(Unpooled.wrappedBuffer(new byte[16]), P);

        assertThat(r).isEqualTo(new PolledRecords(0, 0, List.of()));
    }

    @Test
    void an_answer_cut_anywhere_but_between_messages_is_malformed_never_an_index_error() {
        List<Wire> messages = List.of(
                new Wire(1, 2, 3, 10, 20, 30, bytes("payload one"), List.of(new Entry(2, bytes("k"), 2, bytes("v")))),
                Wire.of(11, new byte[0]),
                new Wire(1, 2, 3, 12, 20, 30, bytes("three"), List.of(new Entry(1, new byte[0], 8, new byte[16]))));
        byte[] full = PollResponses.encode(3, 12, messages);
        List<Integer> boundaries = new ArrayList<>();
        int at = 16;
        for (Wire m : messages) {
            boundaries.add(at);
            at += 64 + m.payload().length + PollResponses.headers(m.headers()).length;
        }
        boundaries.add(at);

        for (int length = 0; length < full.length; length++) {
            ByteBuf cut = Unpooled.wrappedBuffer(full, 0, length);
            int whole = boundaries.indexOf(length);
            if (whole >= 0) {
                assertThat(PollResponseDecoder.decode(cut, P).records()).as("cut at %d", length).hasSize(whole);
            } else {
                PollResponseException e = catchThrowableOfType(PollResponseException.class,
                        () -> PollResponseDecoder.decode(cut, P));
                assertThat(e).as("cut at %d", length).isNotNull();
                assertThat(e.malformed()).as("cut at %d", length).isTrue();
                assertThat(e.getMessage()).as("cut at %d", length).contains("orders/created/3");
            }
        }
    }

    @Test
    void lengths_that_point_past_the_answer_are_malformed() {
        byte[] body = PollResponses.encode(3, 0, List.of(new Wire(0, 0, 1, 7, 1, 1, bytes("abc"),
                List.of(new Entry(2, bytes("key"), 2, bytes("value"))))));
        int header = 16;

        assertMalformed(withInt(body, header + 52, 4), "message at offset 7", "payload");
        assertMalformed(withInt(body, header + 52, -1), "message at offset 7", "4294967295 payload");
        assertMalformed(withInt(body, header + 48, 1000), "message at offset 7", "1000 user-header bytes");
        int entry = header + 64 + 3;
        assertMalformed(withInt(body, entry + 1, 100), "message at offset 7", "user header of 100 bytes");
        assertMalformed(withInt(body, entry + 1 + 4 + 3 + 1, -1), "message at offset 7", "user header");
        // a header section too short for an entry's kind and length
        byte[] shortSection = PollResponses.encode(3, 0, List.of(Wire.of(7, bytes("abc"))));
        byte[] twoMore = Arrays.copyOf(shortSection, shortSection.length + 2);
        twoMore[twoMore.length - 2] = 2;
        assertMalformed(withInt(twoMore, header + 48, 2), "message at offset 7", "inside a header entry");
    }

    @Test
    void values_a_record_cannot_carry_stop_with_the_offset_named() {
        byte[] body = PollResponses.encode(3, 5, List.of(new Wire(0, 0, 1, 5, 1, 1, bytes("abc"),
                List.of(new Entry(2, bytes("key"), 2, bytes("value"))))));
        int header = 16;

        assertUnreadable(withLong(body, header + 24, Long.MIN_VALUE), "message at offset 9223372036854775808 of "
                + "orders/created/3 cannot be read");
        assertUnreadable(withLong(body, header + 32, -1), "message at offset 5 of orders/created/3 cannot be read: "
                + "its timestamp 18446744073709551615");
        assertUnreadable(withLong(body, header + 40, Long.MIN_VALUE), "origin timestamp 9223372036854775808");
        assertUnreadable(withLong(body, 4, -1), "current offset 18446744073709551615");
        int entry = header + 64 + 3;
        assertUnreadable(withByte(body, entry, 0), "message at offset 5 of orders/created/3 cannot be read: it has"
                + " a user header of unknown kind 0");
        assertUnreadable(withByte(body, entry + 5 + 3, 16), "unknown kind 16");
    }

    @Test
    void offsets_and_timestamps_up_to_the_highest_long_are_read() {
        long max = Long.MAX_VALUE;
        byte[] body = PollResponses.encode(3, max, List.of(new Wire(-1, -1, -1, max, max, max, new byte[0],
                List.of())));

        SinkRecord r = PollResponseDecoder.decode(Unpooled.wrappedBuffer(body), P).records().get(0);

        assertThat(r.offset()).isEqualTo(max);
        assertThat(r.timestampMicros()).isEqualTo(max);
        assertThat(r.originTimestampMicros()).isEqualTo(max);
        assertThat(r.id()).isEqualTo(new MessageId(-1, -1));
    }

    @Test
    void corrupted_answers_decode_or_fail_with_a_poll_response_error_only() {
        Random random = new Random(SEED);
        for (int round = 0; round < 2000; round++) {
            byte[] body = PollResponses.encode(3, 40, randomMessages(random));
            for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                body[random.nextInt(body.length)] = (byte) random.nextInt(256);
            }
            try {
                PollResponseDecoder.decode(Unpooled.wrappedBuffer(body), P);
            } catch (PollResponseException expected) {
                // the one way a bad answer may fail
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + SEED + " (replay with -DpollDecoderSeed=" + SEED + "), round "
                        + round + ": " + e, e);
            }
        }
    }

    // ---- inputs -------------------------------------------------------------------------------------------------

    private static List<Function<byte[], ByteBuf>> bufferForms() {
        return List.of(
                Unpooled::wrappedBuffer,
                body -> {
                    // As the client hands it over: a slice after the status and length of a pooled direct frame.
                    ByteBuf frame = PooledByteBufAllocator.DEFAULT.directBuffer(8 + body.length);
                    frame.writeIntLE(0).writeIntLE(body.length).writeBytes(body);
                    frame.skipBytes(8);
                    ByteBuf slice = frame.retainedSlice();
                    frame.release();
                    return slice;
                },
                body -> {
                    ByteBuf heap = Unpooled.buffer(8 + body.length);
                    heap.writeLong(42).writeBytes(body);
                    heap.readerIndex(8);
                    return heap;
                });
    }

    private static List<Wire> randomMessages(Random random) {
        int count = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(12);
        long offset = switch (random.nextInt(3)) {
            case 0 -> 0;
            case 1 -> random.nextLong() >>> 24;
            default -> Long.MAX_VALUE - count + 1;
        };
        List<Wire> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(new Wire(random.nextLong(), idHalf(random), idHalf(random), offset + i, timestamp(random),
                    timestamp(random), payload(random), headers(random)));
        }
        return out;
    }

    private static long idHalf(Random random) {
        return switch (random.nextInt(5)) {
            case 0 -> 0;
            case 1 -> -1;
            case 2 -> Long.MIN_VALUE | random.nextLong();
            case 3 -> Long.MIN_VALUE;
            default -> random.nextLong();
        };
    }

    private static long timestamp(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> Long.MAX_VALUE;
            default -> random.nextLong() >>> 1;
        };
    }

    private static byte[] payload(Random random) {
        int size = switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> 1 + random.nextInt(64);
            case 2 -> 1024;
            default -> random.nextInt(4096);
        };
        byte[] b = new byte[size];
        random.nextBytes(b);
        return b;
    }

    private static List<Entry> headers(Random random) {
        if (random.nextInt(3) != 0) {
            return List.of();
        }
        List<Entry> out = new ArrayList<>();
        for (int n = 1 + random.nextInt(6); n > 0; n--) {
            if (!out.isEmpty() && random.nextInt(4) == 0) {
                // the same key again, with another value: the client's map keeps the last
                Entry earlier = out.get(random.nextInt(out.size()));
                out.add(new Entry(earlier.keyKind(), earlier.key().clone(), 1 + random.nextInt(15),
                        randomBytes(random, 16)));
            } else {
                // few distinct short keys, so some kinds and prefixes collide and the order is exercised
                out.add(new Entry(1 + random.nextInt(random.nextBoolean() ? 2 : 15), randomBytes(random, 3),
                        1 + random.nextInt(15), randomBytes(random, 16)));
            }
        }
        return out;
    }

    private static byte[] randomBytes(Random random, int maxLength) {
        byte[] b = new byte[random.nextInt(maxLength + 1)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (random.nextBoolean() ? 'a' + random.nextInt(3) : random.nextInt(256));
        }
        return b;
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    private static void assertMalformed(byte[] body, String... parts) {
        PollResponseException e = catchThrowableOfType(PollResponseException.class,
                () -> PollResponseDecoder.decode(Unpooled.wrappedBuffer(body), P));
        assertThat(e).isNotNull();
        assertThat(e.malformed()).as(e.getMessage()).isTrue();
        assertThat(e.getMessage()).contains(parts).contains("orders/created/3");
    }

    private static void assertUnreadable(byte[] body, String part) {
        PollResponseException e = catchThrowableOfType(PollResponseException.class,
                () -> PollResponseDecoder.decode(Unpooled.wrappedBuffer(body), P));
        assertThat(e).isNotNull();
        assertThat(e.malformed()).as(e.getMessage()).isFalse();
        assertThat(e.getMessage()).contains(part);
    }

    private static byte[] withInt(byte[] body, int at, int value) {
        byte[] b = body.clone();
        Unpooled.wrappedBuffer(b).setIntLE(at, value);
        return b;
    }

    private static byte[] withLong(byte[] body, int at, long value) {
        byte[] b = body.clone();
        Unpooled.wrappedBuffer(b).setLongLE(at, value);
        return b;
    }

    private static byte[] withByte(byte[] body, int at, int value) {
        byte[] b = body.clone();
        b[at] = (byte) value;
        return b;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
