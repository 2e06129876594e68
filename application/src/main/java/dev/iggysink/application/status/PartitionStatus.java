package dev.iggysink.application.status;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One partition as the consumer loop last saw it. {@code position} is the next offset to read, {@code committed}
 * the group's offset (−1 none), {@code currentOffset} the partition's highest offset in Iggy (−1 empty, unknown, or
 * another member's partition), read from the topic's metadata every few seconds and from each poll.
 * {@code oldestPending} is the Iggy timestamp of the oldest record this member has read and not yet made durable
 * and committed; empty when there is none.
 */
public record PartitionStatus(String stream, String topic, int partition, boolean owned, long position,
                              long committed, long currentOffset, long bufferedRecords, long bufferedBytes,
                              int openFiles, int pendingFiles, Optional<String> lastUploadKey,
                              Optional<Instant> lastUploadAt, long lastUploadMillis, Optional<String> lastError,
                              boolean halted, Optional<Instant> oldestPending) {
    public PartitionStatus(String stream, String topic, int partition, boolean owned, long position,
                           long committed, long currentOffset, long bufferedRecords, long bufferedBytes,
                           int openFiles, int pendingFiles, Optional<String> lastUploadKey,
                           Optional<Instant> lastUploadAt, long lastUploadMillis, Optional<String> lastError,
                           boolean halted) {
        this(stream, topic, partition, owned, position, committed, currentOffset, bufferedRecords, bufferedBytes,
                openFiles, pendingFiles, lastUploadKey, lastUploadAt, lastUploadMillis, lastError, halted,
                Optional.empty());
    }

    /**
     * The backlog: records stored in the partition past the group's committed offset, whether read already or not
     * (partition end offset − committed offset). 0 when the partition's end is unknown.
     */
    public long lag() {
        return currentOffset < 0 ? 0 : Math.max(0, currentOffset - committed);
    }

    /** How long the oldest record read and not yet durable and committed has been in Iggy; 0 when none. */
    public long pendingAgeSeconds(Instant now) {
        return oldestPending.map(t -> Math.max(0, Duration.between(t, now).toSeconds())).orElse(0L);
    }
}
