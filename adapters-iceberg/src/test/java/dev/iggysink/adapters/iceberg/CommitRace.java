package dev.iggysink.adapters.iceberg;

import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;

/**
 * A table whose next commit loses a race: another commit runs after Iceberg has applied this one to the metadata it
 * just refreshed and before this one reaches the catalog, the only window in which the catalog itself sees a
 * conflict (an append applies itself to freshly refreshed metadata first, so a handle that is merely old does not).
 */
final class CommitRace extends ForwardingOperations {
    private final Table table;
    private Runnable before;
    private int attempts;

    private CommitRace(Table table, Runnable before) {
        super(((HasTableOperations) table).operations());
        this.table = new BaseTable(this, table.name());
        this.before = before;
    }

    /** {@code table}, with {@code concurrentCommit} run once, inside the first commit of it. */
    static CommitRace losing(Table table, Runnable concurrentCommit) {
        return new CommitRace(table, concurrentCommit);
    }

    /** The table to commit through. */
    Table table() {
        return table;
    }

    /** How many times Iceberg asked the catalog to swap the metadata, retries included. */
    int attempts() {
        return attempts;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
        attempts++;
        Runnable race = before;
        before = null;
        if (race != null) {
            race.run();
        }
        super.commit(base, metadata);
    }
}
