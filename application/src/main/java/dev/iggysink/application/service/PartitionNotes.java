package dev.iggysink.application.service;

import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.message.PartitionRef;
import java.time.Instant;
import java.util.Optional;

/**
 * What the status page shows of a partition besides its ledger and open files: the partition's highest offset, the
 * last upload and the last error. Bookkeeping only; nothing here decides what is read, sealed or committed. Used by
 * one thread.
 */
final class PartitionNotes {
    private long currentOffset = -1;
    private Optional<String> lastUploadKey = Optional.empty();
    private Optional<Instant> lastUploadAt = Optional.empty();
    private long lastUploadMillis;
    private Optional<String> lastError = Optional.empty();

    /** The partition's highest offset, as the last poll or the last read of the topic's metadata answered. */
    void currentOffset(long offset) {
        currentOffset = offset;
    }

    void uploaded(String key, Instant at, long millis) {
        lastUploadKey = Optional.of(key);
        lastUploadAt = Optional.of(at);
        lastUploadMillis = millis;
    }

    void error(String message) {
        lastError = Optional.of(message);
    }

    /** Replaces the last error, with none when {@code message} is empty. */
    void error(Optional<String> message) {
        lastError = message;
    }

    Optional<String> lastError() {
        return lastError;
    }

    /** The partition's status from these notes and what the writer knows of its reading and files. */
    PartitionStatus status(PartitionRef partition, boolean owned, long position, long committed, long openRecords,
                           long openBytes, int openFiles, int pendingFiles, boolean halted) {
        return status(partition, owned, position, committed, openRecords, openBytes, openFiles, pendingFiles, halted,
                true, Optional.empty());
    }

    /**
     * As above; {@code ours} is false for a partition another member of the group reads (its end is then shown as
     * unknown, so its backlog is counted once, by its owner), {@code oldestPending} the Iggy timestamp of the oldest
     * record read and not yet committed.
     */
    PartitionStatus status(PartitionRef partition, boolean owned, long position, long committed, long openRecords,
                           long openBytes, int openFiles, int pendingFiles, boolean halted, boolean ours,
                           Optional<Instant> oldestPending) {
        return new PartitionStatus(partition.stream(), partition.topic(), partition.partitionId(), owned, position,
                committed, ours ? currentOffset : -1, openRecords, openBytes, openFiles, pendingFiles, lastUploadKey,
                lastUploadAt, lastUploadMillis, lastError, halted, oldestPending);
    }
}
