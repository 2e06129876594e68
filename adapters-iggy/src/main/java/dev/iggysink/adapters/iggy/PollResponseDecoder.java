package dev.iggysink.adapters.iggy;

import dev.iggysink.domain.message.HeaderKind;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Decodes the body of an Iggy 0.8 POLL answer straight into {@link SinkRecord}s, in place of the client's
 * {@code BytesDeserializer.readPolledMessages} (which goes through a BigInteger per number, a HashMap per message
 * and the client's message objects). The records are the ones the client's path gave, field for field.
 *
 * <p>Layout, all little-endian: partition id u32, current offset u64, message count u32; then per message a 64-byte
 * header (checksum u64, id u128, offset u64, timestamp u64, origin timestamp u64, user-headers length u32, payload
 * length u32, reserved u64), the payload, the user headers. Each user header: key kind u8, key length u32, key,
 * value kind u8, value length u32, value. The client reads messages until the body ends and ignores the count, and
 * so does this.
 */
final class PollResponseDecoder {
    static final int PREFIX_SIZE = 16;
    static final int MESSAGE_HEADER_SIZE = 64;
    /** A user header's kind u8 and length u32, before its key or value bytes. */
    private static final int ENTRY_PREFIX = 5;
    private static final HeaderKind[] KINDS_BY_CODE = kindsByCode();

    /*
     * The client kept user headers in a HashMap: a key sent twice keeps its last value, and the wire order is gone.
     * Sorting makes the order a function of the headers alone, which keeps re-read files byte-identical. Keys are
     * unique once duplicates are dropped, so the key decides the order.
     */
    private static final Comparator<RecordHeader> KEY_ORDER = Comparator
            .comparingInt((RecordHeader h) -> h.keyKind().code())
            .thenComparing(RecordHeader::key, Arrays::compareUnsigned);

    private PollResponseDecoder() {
    }

    /** Decodes the readable bytes of {@code body} without moving its indexes; the caller still owns (releases) it. */
    static PolledRecords decode(ByteBuf body, PartitionRef partition) {
        int at = body.readerIndex();
        int end = body.writerIndex();
        if (end - at < PREFIX_SIZE) {
            throw PollResponseException.malformed("the poll answer for " + partition + " has " + (end - at)
                    + " bytes, less than its " + PREFIX_SIZE + "-byte prefix");
        }
        long partitionId = body.getUnsignedIntLE(at);
        long currentOffset = body.getLongLE(at + 4);
        if (currentOffset < 0) {
            throw PollResponseException.unreadable("the poll answer for " + partition + " gives current offset "
                    + Long.toUnsignedString(currentOffset) + ", above the highest offset the sink handles ("
                    + Long.MAX_VALUE + ")");
        }
        at += PREFIX_SIZE;
        if (at == end) {
            return new PolledRecords(partitionId, currentOffset, List.of());
        }
        // The count only sizes the list, bounded by what the body can hold: it is not trusted further.
        long count = body.getUnsignedIntLE(at - 4);
        List<SinkRecord> records = new ArrayList<>((int) Math.min(count, (end - at) / MESSAGE_HEADER_SIZE + 1));
        while (at < end) {
            at = decodeMessage(body, at, end, partition, records);
        }
        return new PolledRecords(partitionId, currentOffset, records);
    }

    private static int decodeMessage(ByteBuf body, int at, int end, PartitionRef partition, List<SinkRecord> out) {
        if (end - at < MESSAGE_HEADER_SIZE) {
            throw PollResponseException.malformed("the poll answer for " + partition + " ends inside a message"
                    + " header: " + (end - at) + " of " + MESSAGE_HEADER_SIZE + " bytes after message "
                    + out.size());
        }
        long idLow = body.getLongLE(at + 8);
        long idHigh = body.getLongLE(at + 16);
        long offset = body.getLongLE(at + 24);
        long timestamp = body.getLongLE(at + 32);
        long originTimestamp = body.getLongLE(at + 40);
        long headersLength = body.getUnsignedIntLE(at + 48);
        long payloadLength = body.getUnsignedIntLE(at + 52);
        int payloadAt = at + MESSAGE_HEADER_SIZE;
        if (payloadLength + headersLength > end - payloadAt) {
            throw PollResponseException.malformed("message at offset " + Long.toUnsignedString(offset) + " of "
                    + partition + " claims " + payloadLength + " payload and " + headersLength
                    + " user-header bytes, but the poll answer has " + (end - payloadAt) + " left");
        }
        if (offset < 0) {
            throw unreadable(offset, partition, "the offset is above " + Long.MAX_VALUE);
        }
        if (timestamp < 0) {
            throw unreadable(offset, partition, "its timestamp " + Long.toUnsignedString(timestamp) + " is above "
                    + Long.MAX_VALUE);
        }
        if (originTimestamp < 0) {
            throw unreadable(offset, partition, "its origin timestamp " + Long.toUnsignedString(originTimestamp)
                    + " is above " + Long.MAX_VALUE);
        }
        byte[] payload = new byte[(int) payloadLength];
        body.getBytes(payloadAt, payload);
        int headersAt = payloadAt + (int) payloadLength;
        List<RecordHeader> headers = headersLength == 0 ? List.of()
                : decodeHeaders(body, headersAt, headersAt + (int) headersLength, offset, partition);
        out.add(new SinkRecord(partition, offset, timestamp, originTimestamp, new MessageId(idHigh, idLow), headers,
                payload));
        return headersAt + (int) headersLength;
    }

    private static List<RecordHeader> decodeHeaders(ByteBuf body, int at, int end, long offset,
                                                    PartitionRef partition) {
        List<RecordHeader> headers = new ArrayList<>();
        while (at < end) {
            HeaderKind keyKind = kind(body, at, end, offset, partition);
            byte[] key = bytes(body, at + 1, end, offset, partition);
            at += ENTRY_PREFIX + key.length;
            HeaderKind valueKind = kind(body, at, end, offset, partition);
            byte[] value = bytes(body, at + 1, end, offset, partition);
            at += ENTRY_PREFIX + value.length;
            headers.add(new RecordHeader(keyKind, key, valueKind, value));
        }
        if (headers.size() > 1) {
            headers.sort(KEY_ORDER); // stable: of equal keys the last sent stays last
            keepLastOfEqualKeys(headers);
        }
        return headers;
    }

    private static void keepLastOfEqualKeys(List<RecordHeader> sorted) {
        int kept = 0;
        for (int i = 0; i < sorted.size(); i++) {
            if (i + 1 < sorted.size() && KEY_ORDER.compare(sorted.get(i), sorted.get(i + 1)) == 0) {
                continue;
            }
            sorted.set(kept++, sorted.get(i));
        }
        sorted.subList(kept, sorted.size()).clear();
    }

    /** The kind byte at {@code at}, once the kind and the u32 length after it are known to fit before end. */
    private static HeaderKind kind(ByteBuf body, int at, int end, long offset, PartitionRef partition) {
        if (end - at < ENTRY_PREFIX) {
            throw PollResponseException.malformed("message at offset " + offset + " of " + partition
                    + " has user headers that end inside a header entry");
        }
        int code = body.getUnsignedByte(at);
        HeaderKind kind = code < KINDS_BY_CODE.length ? KINDS_BY_CODE[code] : null;
        if (kind == null) {
            throw unreadable(offset, partition, "it has a user header of unknown kind " + code);
        }
        return kind;
    }

    /** The bytes after the u32 length at {@code lengthAt}. */
    private static byte[] bytes(ByteBuf body, int lengthAt, int end, long offset, PartitionRef partition) {
        long length = body.getUnsignedIntLE(lengthAt);
        int from = lengthAt + 4;
        if (length > end - from) {
            throw PollResponseException.malformed("message at offset " + offset + " of " + partition
                    + " has a user header of " + length + " bytes where " + (end - from) + " are left");
        }
        byte[] b = new byte[(int) length];
        body.getBytes(from, b);
        return b;
    }

    private static HeaderKind[] kindsByCode() {
        int max = 0;
        for (HeaderKind k : HeaderKind.values()) {
            max = Math.max(max, k.code());
        }
        HeaderKind[] byCode = new HeaderKind[max + 1];
        for (HeaderKind k : HeaderKind.values()) {
            byCode[k.code()] = k;
        }
        return byCode;
    }

    private static PollResponseException unreadable(long offset, PartitionRef partition, String why) {
        return PollResponseException.unreadable("message at offset " + Long.toUnsignedString(offset) + " of "
                + partition + " cannot be read: " + why);
    }
}
