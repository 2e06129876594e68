package dev.iggysink.bootstrap;

import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.application.status.TableStatus;
import java.util.Locale;

/**
 * An Iceberg table sink's periodic status line ({@code run --status-interval}), the counterpart of the object sink's
 * in {@link SinkRunner}: one line per table sink, named by its key since a runtime config may run several next to
 * object sinks. The rate is over the time since the previous line.
 */
final class TableStatusLine {
    private final String key;
    private long lastRecords;
    private long lastAt;

    /** @param startNanos {@link System#nanoTime()} when the sink started consuming */
    TableStatusLine(String key, long startNanos) {
        this.key = key;
        this.lastAt = startNanos;
    }

    /** The line for now; the records counted since the previous call make its rate. */
    synchronized String next(StatusSnapshot status, TableStatus.Totals tables, long nowNanos) {
        long records = status.totals().recordsConsumed();
        double seconds = Math.max(1e-9, (nowNanos - lastAt) / 1e9);
        double rate = (records - lastRecords) / seconds;
        lastRecords = records;
        lastAt = nowNanos;
        return line(key, rate, status, tables);
    }

    static String line(String key, double recordsPerSecond, StatusSnapshot status, TableStatus.Totals tables) {
        long lag = 0;
        int owned = 0;
        StringBuilder committed = new StringBuilder();
        for (PartitionStatus p : status.partitions()) {
            lag += p.lag();
            if (p.owned()) {
                owned++;
                committed.append(' ').append(p.stream()).append('/').append(p.topic()).append('/')
                        .append(p.partition()).append('=').append(p.committed());
            }
        }
        return String.format(Locale.ROOT, "status: table sink %s: %.0f records/s, %d commits, %d rows, %d data"
                        + " files (%.2f MB), lag %s, %d failed commits, %d conflicts, %d bad records, committed:%s",
                key, recordsPerSecond, tables.commits(), tables.rowsCommitted(), tables.dataFiles(),
                tables.dataBytes() / 1e6, LagText.of(lag, owned), tables.failedCommits(), tables.conflicts(),
                tables.badRecords(), committed);
    }
}
