package dev.iggysink.application.table;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** What the table sink did so far, for the status page and metrics. Thread-safe. */
public final class TableTally {
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong failedCommits = new AtomicLong();
    private final AtomicLong conflicts = new AtomicLong();
    private final AtomicLong refusedPartitions = new AtomicLong();
    private final AtomicLong lastCommitNanos = new AtomicLong(-1);
    private final AtomicLong dataFiles = new AtomicLong();
    private final AtomicLong dataBytes = new AtomicLong();
    private final AtomicLong badRecords = new AtomicLong();

    /** A snapshot of the counters; {@code lastCommit} is null before the first commit. */
    public record Snapshot(long commits, long failedCommits, long conflicts, long refusedPartitions,
                           Duration lastCommit, long dataFiles, long dataBytes, long badRecords) { }

    void committed(Duration took, int lostRaces, int refused) {
        commits.incrementAndGet();
        conflicts.addAndGet(lostRaces);
        refusedPartitions.addAndGet(refused);
        lastCommitNanos.set(took.toNanos());
    }

    void commitFailed() {
        failedCommits.incrementAndGet();
    }

    void staged(int files, long bytes) {
        dataFiles.addAndGet(files);
        dataBytes.addAndGet(bytes);
    }

    void badRecord() {
        badRecords.incrementAndGet();
    }

    public Snapshot snapshot() {
        long last = lastCommitNanos.get();
        return new Snapshot(commits.get(), failedCommits.get(), conflicts.get(), refusedPartitions.get(),
                last < 0 ? null : Duration.ofNanos(last), dataFiles.get(), dataBytes.get(), badRecords.get());
    }
}
