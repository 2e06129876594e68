package dev.iggysink.application.port.out;

import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.util.List;
import java.util.Objects;

/**
 * What one explicit poll of one partition returned.
 *
 * @param partition     the partition that was asked for
 * @param owned         false when this member does not own the partition now (Iggy answers such polls with an empty
 *                      result for partition 0); records is then empty
 * @param sessionEpoch  the source's session epoch the poll ran in (see {@link MessageSource#sessionEpoch()})
 * @param currentOffset the highest offset stored in the partition, or -1 when it holds no message (or not owned)
 * @param records       records in offset order, starting at the asked offset; empty when caught up
 */
public record Batch(PartitionRef partition, boolean owned, long sessionEpoch, long currentOffset,
                    List<SinkRecord> records) {
    public Batch {
        Objects.requireNonNull(partition, "partition");
        records = List.copyOf(records);
        if (!owned && !records.isEmpty()) throw new IllegalArgumentException("a partition not owned has no records");
    }
}
