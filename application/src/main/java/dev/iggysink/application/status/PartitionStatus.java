package dev.iggysink.application.status;

import java.time.Instant;
import java.util.Optional;

/**
 * One partition as the consumer loop last saw it. {@code position} is the next offset to read, {@code committed}
 * the group's offset (−1 none), {@code currentOffset} the partition's highest offset (−1 empty/unknown).
 */
public record PartitionStatus(String stream, String topic, int partition, boolean owned, long position,
                              long committed, long currentOffset, long bufferedRecords, long bufferedBytes,
                              int openFiles, int pendingFiles, Optional<String> lastUploadKey,
                              Optional<Instant> lastUploadAt, long lastUploadMillis, Optional<String> lastError,
                              boolean halted) {
    /** Records in the partition not yet committed. */
    public long lag() {
        return currentOffset < 0 ? 0 : Math.max(0, currentOffset - committed);
    }
}
