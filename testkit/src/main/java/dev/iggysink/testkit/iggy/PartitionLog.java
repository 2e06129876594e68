package dev.iggysink.testkit.iggy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One partition's messages, each kept as its final wire bytes (64-byte header, payload, user headers) so a poll is a
 * plain copy. The list index is the offset: segments are never deleted here.
 */
final class PartitionLog {

    static final int TIMESTAMP_AT = 32;

    final int id;
    final long createdAtMicros;
    final List<byte[]> messages = new ArrayList<>();
    /** Offsets of single (kind 1) consumers, keyed by numeric id or XXH32 of the name. */
    final Map<Long, Long> consumerOffsets = new HashMap<>();
    long sizeBytes;

    PartitionLog(int id, long createdAtMicros) {
        this.id = id;
        this.createdAtMicros = createdAtMicros;
    }

    boolean isEmpty() {
        return messages.isEmpty();
    }

    /** The highest assigned offset, 0 when empty (the wire cannot tell the two apart). */
    long currentOffset() {
        return messages.isEmpty() ? 0 : messages.size() - 1;
    }

    /** First offset whose server timestamp is at least {@code micros}; timestamps never decrease. */
    long firstOffsetAtOrAfter(long micros) {
        int lo = 0;
        int hi = messages.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(WireReader.leLong(messages.get(mid), TIMESTAMP_AT), micros) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
