package dev.iggysink.application.status;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The whole sink at one moment ({@code takenAt}, on the sink's clock): health with its reasons, every partition,
 * process totals, since when polling is paused, and the consumer loops that have stopped coming round (empty while
 * every loop turns; the process is then alive whatever its health), and per topic with completeness markers, the
 * oldest folder holding records that is not marked yet and why (empty when none waits).
 */
public record StatusSnapshot(Health health, List<String> reasons, List<PartitionStatus> partitions,
                             Totals totals, Instant takenAt, Optional<Instant> pausedSince, List<String> stuck,
                             List<String> unmarked) {
    public StatusSnapshot(Health health, List<String> reasons, List<PartitionStatus> partitions, Totals totals,
                          Instant takenAt, Optional<Instant> pausedSince, List<String> stuck) {
        this(health, reasons, partitions, totals, takenAt, pausedSince, stuck, List.of());
    }

    public StatusSnapshot {
        unmarked = List.copyOf(unmarked);
        reasons = List.copyOf(reasons);
        partitions = List.copyOf(partitions);
        Objects.requireNonNull(takenAt, "takenAt");
        Objects.requireNonNull(pausedSince, "pausedSince");
        stuck = List.copyOf(stuck);
    }

    /**
     * A snapshot without a time of its own (the epoch: no record counts as pending for any while), not paused, every
     * loop turning.
     */
    public StatusSnapshot(Health health, List<String> reasons, List<PartitionStatus> partitions, Totals totals) {
        this(health, reasons, partitions, totals, Instant.EPOCH, Optional.empty(), List.of());
    }

    /** The largest {@link PartitionStatus#pendingAgeSeconds} of the sink's partitions at {@code takenAt}. */
    public long oldestPendingAgeSeconds() {
        long max = 0;
        for (PartitionStatus p : partitions) max = Math.max(max, p.pendingAgeSeconds(takenAt));
        return max;
    }

    public record Totals(long recordsConsumed, long bytesConsumed, long objectsUploaded, long bytesUploaded,
                         long uploadRetries, long deadLettered, long bufferedBytes, long maxBufferedBytes,
                         boolean paused) {
    }
}
