package dev.iggysink.adapters.iggy;

import dev.iggysink.domain.message.HeaderKind;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.iggy.message.HeaderKey;
import org.apache.iggy.message.HeaderValue;
import org.apache.iggy.message.Message;
import org.apache.iggy.message.MessageHeader;

/**
 * Iggy {@link Message} to domain {@link SinkRecord}, as the sink converted the client's decoded poll answers before
 * {@link PollResponseDecoder}: kept as the oracle the decoder is compared with.
 */
final class MessageConverter {
    private static final BigInteger U64_MASK = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    /*
     * The client reads headers into a HashMap, so the wire order is gone; sorting makes the order a function of the
     * headers alone, which keeps re-read files byte-identical (deterministic keys and content after a restart).
     */
    private static final Comparator<RecordHeader> HEADER_ORDER = Comparator
            .comparingInt((RecordHeader h) -> h.keyKind().code())
            .thenComparing(RecordHeader::key, Arrays::compareUnsigned)
            .thenComparingInt(h -> h.valueKind().code())
            .thenComparing(RecordHeader::value, Arrays::compareUnsigned);

    private MessageConverter() {
    }

    static SinkRecord toRecord(PartitionRef partition, Message message) {
        MessageHeader h = message.header();
        return new SinkRecord(partition, h.offset().longValueExact(), h.timestamp().longValueExact(),
                h.originTimestamp().longValueExact(), toMessageId(h.id().toBigInteger()),
                toHeaders(message.userHeaders()),
                // The client already allocated this array for this message alone; the record takes it over.
                message.payload());
    }

    /**
     * Splits the u128 id into unsigned halves. Polled ids are {@code BytesMessageId}s whose bytes the client already
     * reversed into big-endian order, so {@code toBigInteger()} is the id the producer sent.
     */
    static MessageId toMessageId(BigInteger id) {
        if (id.signum() < 0 || id.bitLength() > 128) {
            throw new IllegalArgumentException("not a u128 message id: " + id);
        }
        return new MessageId(id.shiftRight(64).longValue(), id.and(U64_MASK).longValue());
    }

    static List<RecordHeader> toHeaders(Map<HeaderKey, HeaderValue> headers) {
        if (headers == null || headers.isEmpty()) {
            return List.of();
        }
        List<RecordHeader> out = new ArrayList<>(headers.size());
        for (Map.Entry<HeaderKey, HeaderValue> e : headers.entrySet()) {
            out.add(new RecordHeader(toKind(e.getKey().kind()), e.getKey().value(), toKind(e.getValue().kind()),
                    e.getValue().value()));
        }
        out.sort(HEADER_ORDER);
        return out;
    }

    static HeaderKind toKind(org.apache.iggy.message.HeaderKind kind) {
        return HeaderKind.ofCode(kind.asCode());
    }
}
