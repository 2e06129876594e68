package dev.iggysink.domain.buffer;

import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.RotationReason;
import java.util.Objects;

/**
 * A complete file, ready to upload under {@code key}. Offsets are inclusive; the range may have holes (a record
 * dead-lettered into its own file, or records routed to another open file), hence {@code recordCount} can be
 * smaller than the range width but never larger.
 */
public record SealedFile(PartitionRef partition, String key, long firstOffset, long lastOffset, long recordCount,
                         long recordBytes, long firstTimestampMicros, RotationReason reason) {
    public SealedFile {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        if (key.isBlank()) throw new IllegalArgumentException("key must not be blank");
        if (firstOffset < 0) throw new IllegalArgumentException("first offset must be >= 0, was " + firstOffset);
        if (lastOffset < firstOffset) {
            throw new IllegalArgumentException("last offset " + lastOffset + " < first offset " + firstOffset);
        }
        if (recordCount < 1) throw new IllegalArgumentException("record count must be >= 1, was " + recordCount);
        if (recordCount - 1 > lastOffset - firstOffset) {
            throw new IllegalArgumentException("record count " + recordCount + " exceeds offset range "
                    + firstOffset + ".." + lastOffset);
        }
        if (recordBytes < 0) throw new IllegalArgumentException("record bytes must be >= 0, was " + recordBytes);
        if (firstTimestampMicros < 0) {
            throw new IllegalArgumentException("first timestamp must be >= 0, was " + firstTimestampMicros);
        }
    }

    /** The offset after this file's last: where a reader resumes once this file is durable. */
    public long nextOffset() {
        return lastOffset + 1;
    }

    /** True when {@code offset} lies in this file's inclusive range. */
    public boolean covers(long offset) {
        return offset >= firstOffset && offset <= lastOffset;
    }
}
