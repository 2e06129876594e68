package dev.iggysink.domain.message;

import java.util.List;
import java.util.Objects;

/**
 * One message read from Iggy. Timestamps are microseconds since the epoch (Iggy's unit). The payload array is owned
 * by the record once constructed: callers must not change it afterwards (it is not copied, for the hot path).
 */
public record SinkRecord(
        PartitionRef partition,
        long offset,
        long timestampMicros,
        long originTimestampMicros,
        MessageId id,
        List<RecordHeader> headers,
        byte[] payload) {

    public SinkRecord {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(payload, "payload");
        if (offset < 0) throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        if (timestampMicros < 0) throw new IllegalArgumentException("timestamp must be >= 0, was " + timestampMicros);
        if (originTimestampMicros < 0) {
            throw new IllegalArgumentException("origin timestamp must be >= 0, was " + originTimestampMicros);
        }
        headers = headers == null ? List.of() : List.copyOf(headers);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SinkRecord r && offset == r.offset && timestampMicros == r.timestampMicros
                && originTimestampMicros == r.originTimestampMicros && partition.equals(r.partition)
                && id.equals(r.id) && headers.equals(r.headers) && java.util.Arrays.equals(payload, r.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(partition, offset);
    }

    @Override
    public String toString() {
        return "SinkRecord[" + partition + "@" + offset + ", ts=" + timestampMicros + ", " + payload.length + "B]";
    }
}
