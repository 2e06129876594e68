package dev.iggysink.application.status;

import java.util.List;

/** The whole sink at one moment: health with its reasons, every partition, and process totals. */
public record StatusSnapshot(Health health, List<String> reasons, List<PartitionStatus> partitions,
                             Totals totals) {
    public StatusSnapshot {
        reasons = List.copyOf(reasons);
        partitions = List.copyOf(partitions);
    }

    public record Totals(long recordsConsumed, long bytesConsumed, long objectsUploaded, long bytesUploaded,
                         long uploadRetries, long deadLettered, long bufferedBytes, long maxBufferedBytes,
                         boolean paused) {
    }
}
