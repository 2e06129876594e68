package dev.iggysink.adapters.iceberg;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CleanableFailure;
import org.apache.iceberg.exceptions.CommitFailedException;

/**
 * A table's operations that commit only onto the snapshot the caller read. Iceberg retries a commit that lost a race
 * by applying the same update to the new current metadata; for an append that is right, but this sink's update also
 * carries the offset map, decided from the snapshot it read: re-applied onto a newer snapshot it would put back
 * entries another member had moved, and skip the check that refuses a partition another member committed. So a
 * commit attempt onto any other base ends in {@link StaleBase}, which Iceberg does not retry, and the caller reads
 * the table again and decides anew.
 */
final class BasedOperations extends ForwardingOperations {

    /**
     * The table moved on since the caller read it. A {@link CleanableFailure}: Iceberg then deletes the manifests the
     * failed attempt wrote, which would otherwise stay in the store as orphans.
     */
    static final class StaleBase extends RuntimeException implements CleanableFailure {
        private static final long serialVersionUID = 1L;

        StaleBase() {
            this("the table has a newer snapshot than the one this commit was decided on");
        }

        StaleBase(String message) {
            super(message, null, false, false);
        }
    }

    private final Long snapshotId;
    private final Runnable beforeSwap;

    /**
     * @param snapshotId the current snapshot the caller read, null for a table without snapshots
     * @param beforeSwap runs just before the catalog is asked to swap (tests let another writer in there)
     */
    BasedOperations(TableOperations delegate, Long snapshotId, Runnable beforeSwap) {
        super(delegate);
        this.snapshotId = snapshotId;
        this.beforeSwap = beforeSwap;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
        Snapshot current = base == null ? null : base.currentSnapshot();
        Long id = current == null ? null : current.snapshotId();
        if (!java.util.Objects.equals(id, snapshotId)) throw new StaleBase();
        beforeSwap.run();
        try {
            super.commit(base, metadata);
        } catch (CommitFailedException e) {
            // Another writer swapped first. Iceberg would retry this attempt (logging a stack trace at WARN) onto
            // the new metadata, where it can only end in StaleBase: the caller reads the table again instead.
            throw new StaleBase(e.getMessage());
        }
    }
}
