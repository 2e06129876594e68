package dev.iggysink.application.table;

import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.TableStatus;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One {@link TableConsumer} as its loop last published it (at the end of each step, {@code at} on its clock): the
 * partitions it holds, each (partition, table) lane, and the rows it holds on the heap.
 */
public record TableView(List<PartitionStatus> partitions, List<TableStatus.Lane> lanes, long bufferedBytes,
                        Instant at) {
    public TableView {
        partitions = List.copyOf(partitions);
        lanes = List.copyOf(lanes);
        Objects.requireNonNull(at, "at");
    }
}
