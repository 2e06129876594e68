package dev.iggysink.adapters.iggy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Poll answer bodies as an Iggy 0.8 server writes them (and the testkit broker, which keeps each message as its wire
 * bytes): partition id u32, current offset u64, count u32, then per message the 64-byte header, the payload and the
 * user headers, all little-endian. Written independently of both decoders under test.
 */
final class PollResponses {
    private PollResponses() {
    }

    /** One user header entry as sent: kind codes and bytes, in wire order (duplicates allowed). */
    record Entry(int keyKind, byte[] key, int valueKind, byte[] value) {
    }

    /** One message; {@code idLow} holds wire bytes 8..15 of the header, {@code idHigh} bytes 16..23. */
    record Wire(long checksum, long idHigh, long idLow, long offset, long timestamp, long originTimestamp,
                byte[] payload, List<Entry> headers) {
        static Wire of(long offset, byte[] payload) {
            return new Wire(0, 0, offset + 1, offset, 1_700_000_000_000_000L + offset, 0, payload, List.of());
        }
    }

    static byte[] encode(long partitionId, long currentOffset, List<Wire> messages) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer prefix = le(16);
        prefix.putInt((int) partitionId).putLong(currentOffset).putInt(messages.size());
        out.writeBytes(prefix.array());
        for (Wire m : messages) {
            byte[] headers = headers(m.headers());
            ByteBuffer h = le(64);
            h.putLong(m.checksum()).putLong(m.idLow()).putLong(m.idHigh()).putLong(m.offset()).putLong(m.timestamp())
                    .putLong(m.originTimestamp()).putInt(headers.length).putInt(m.payload().length).putLong(0);
            out.writeBytes(h.array());
            out.writeBytes(m.payload());
            out.writeBytes(headers);
        }
        return out.toByteArray();
    }

    static byte[] headers(List<Entry> entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Entry e : entries) {
            out.write(e.keyKind());
            out.writeBytes(le(4).putInt(e.key().length).array());
            out.writeBytes(e.key());
            out.write(e.valueKind());
            out.writeBytes(le(4).putInt(e.value().length).array());
            out.writeBytes(e.value());
        }
        return out.toByteArray();
    }

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }
}
