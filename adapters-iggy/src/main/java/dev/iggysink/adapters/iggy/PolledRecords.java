package dev.iggysink.adapters.iggy;

import dev.iggysink.domain.message.SinkRecord;
import java.util.List;
import java.util.Objects;

/**
 * One poll's answer: the partition the server resolved (0 with no records when it resolved none), that partition's
 * current offset, and every message of the answer as a record, in wire order.
 */
record PolledRecords(long partitionId, long currentOffset, List<SinkRecord> records) {
    PolledRecords {
        Objects.requireNonNull(records, "records");
    }
}
