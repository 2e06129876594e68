package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.domain.message.HeaderKind;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.iggy.message.BytesMessageId;
import org.apache.iggy.message.HeaderKey;
import org.apache.iggy.message.HeaderValue;
import org.apache.iggy.message.Message;
import org.apache.iggy.message.MessageHeader;
import org.junit.jupiter.api.Test;

class MessageConverterTest {
    private static final PartitionRef P = new PartitionRef("s", "t", 2);

    @Test
    void a_polled_big_endian_id_splits_into_high_and_low_halves() {
        byte[] bigEndian = new byte[16];
        for (int i = 0; i < 16; i++) bigEndian[i] = (byte) (i + 1);
        MessageId id = MessageConverter.toMessageId(new BytesMessageId(bigEndian).toBigInteger());

        assertThat(id.high()).isEqualTo(0x0102030405060708L);
        assertThat(id.low()).isEqualTo(0x090a0b0c0d0e0f10L);
    }

    @Test
    void ids_keep_all_128_bits_unsigned() {
        BigInteger max = BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE);
        assertThat(MessageConverter.toMessageId(max)).isEqualTo(new MessageId(-1L, -1L));
        assertThat(MessageConverter.toMessageId(max).toBigInteger()).isEqualTo(max);
        assertThat(MessageConverter.toMessageId(BigInteger.valueOf(42))).isEqualTo(new MessageId(0, 42));
        assertThatThrownBy(() -> MessageConverter.toMessageId(BigInteger.ONE.shiftLeft(128)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void a_message_becomes_a_record_with_its_offset_times_and_the_same_payload_array() {
        byte[] payload = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        byte[] id = new byte[16];
        id[15] = 7;
        MessageHeader h = new MessageHeader(BigInteger.ZERO, new BytesMessageId(id), BigInteger.valueOf(12),
                BigInteger.valueOf(1_700_000_000_123_456L), BigInteger.valueOf(1_699_999_999_000_000L), 0L,
                (long) payload.length, BigInteger.ZERO);

        SinkRecord r = MessageConverter.toRecord(P, new Message(h, payload, Map.of()));

        assertThat(r.partition()).isEqualTo(P);
        assertThat(r.offset()).isEqualTo(12);
        assertThat(r.timestampMicros()).isEqualTo(1_700_000_000_123_456L);
        assertThat(r.originTimestampMicros()).isEqualTo(1_699_999_999_000_000L);
        assertThat(r.id()).isEqualTo(new MessageId(0, 7));
        assertThat(r.payload()).isSameAs(payload);
        assertThat(r.headers()).isEmpty();
    }

    @Test
    void headers_keep_their_kinds_and_come_out_in_one_order_whatever_the_map_order() {
        Map<HeaderKey, HeaderValue> headers = new HashMap<>();
        headers.put(HeaderKey.fromString("zeta"), HeaderValue.fromInt64(-5));
        headers.put(HeaderKey.fromString("alpha"), HeaderValue.fromString("x"));
        headers.put(new HeaderKey(org.apache.iggy.message.HeaderKind.Raw, new byte[] {9}), HeaderValue.fromBool(true));

        var out = MessageConverter.toHeaders(headers);

        assertThat(out).containsExactly(
                new RecordHeader(HeaderKind.RAW, new byte[] {9}, HeaderKind.BOOL, new byte[] {1}),
                RecordHeader.ofStrings("alpha", "x"),
                new RecordHeader(HeaderKind.STRING, "zeta".getBytes(StandardCharsets.UTF_8), HeaderKind.INT64,
                        HeaderValue.fromInt64(-5).value()));
    }

    @Test
    void every_iggy_header_kind_maps_to_the_domain_kind_of_the_same_code() {
        for (org.apache.iggy.message.HeaderKind k : org.apache.iggy.message.HeaderKind.values()) {
            assertThat(MessageConverter.toKind(k).code()).isEqualTo(k.asCode());
        }
    }
}
