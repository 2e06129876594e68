package dev.iggysink.application.table;

import dev.iggysink.application.status.TableStatus;
import dev.iggysink.domain.retry.Backoff;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

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
    private final AtomicLong deadLetters = new AtomicLong();
    private final AtomicReference<String> lastDeadLetter = new AtomicReference<>();
    /**
     * Each table's commits that failed since its last one that went through, with the last failure: per table, so
     * that one failing table neither hides behind the commits of the others nor makes them look failing.
     */
    private final Map<String, Streak> failing = new ConcurrentHashMap<>();
    private final AtomicLong maxCommitNanos = new AtomicLong();
    private final AtomicLong commitNanos = new AtomicLong();
    private final AtomicLong rows = new AtomicLong();
    private final Consumer<Duration> commitTimes;
    private final TableOutage catalog;
    private final TableOutage store;
    private final Backoff backoff;
    private final String catalogName;
    private final String storeName;
    /** The catalog's and the store's outages as each table sees them: a table failing backs off alone. */
    private final Map<String, TableOutage> tableCatalogs = new ConcurrentHashMap<>();
    private final Map<String, TableOutage> tableStores = new ConcurrentHashMap<>();
    private final java.util.Deque<String> replaced = new java.util.concurrent.ConcurrentLinkedDeque<>();
    private final AtomicLong replacements = new AtomicLong();
    /** The status keeps the latest lines only: a table replaced in a loop must not grow the heap. */
    private static final int REPLACED_KEPT = 10;

    public TableTally() {
        this(took -> { });
    }

    /** @param commitTimes told the time of each commit that went through (a latency histogram); must be cheap */
    public TableTally(Consumer<Duration> commitTimes) {
        this(commitTimes, TableSettings.DEFAULT_RETRY, "catalog", "warehouse store");
    }

    /**
     * @param backoff how long the loops wait before calling a failing catalog or store again ({@code retry_delay}
     *                doubling up to {@code retry_max_delay}, with jitter)
     * @param catalog the catalog as the operator knows it, for logs and health ({@code catalog http://rest:8181})
     * @param store   the warehouse store likewise ({@code warehouse store http://minio:9000})
     */
    public TableTally(Consumer<Duration> commitTimes, Backoff backoff, String catalog, String store) {
        this.commitTimes = java.util.Objects.requireNonNull(commitTimes, "commitTimes");
        this.catalog = new TableOutage(catalog, backoff);
        this.store = new TableOutage(store, backoff);
        this.backoff = backoff;
        this.catalogName = catalog;
        this.storeName = store;
    }

    /** The catalog's outage for calls that name no table, shared by the sink's loops. */
    TableOutage catalog() {
        return catalog;
    }

    /** The catalog's outage for the calls about one table (its lookups and commits). */
    TableOutage catalog(String table) {
        return tableCatalogs.computeIfAbsent(table, t -> new TableOutage(catalogName + ", table " + t, backoff));
    }

    /** The warehouse store's outage for what names no table: dead letters. */
    TableOutage store() {
        return store;
    }

    /** The warehouse store's outage for the data files of one table. */
    TableOutage store(String table) {
        return tableStores.computeIfAbsent(table, t -> new TableOutage(storeName + ", table " + t, backoff));
    }

    /** Every outage, the tables' in name order. */
    private List<TableOutage> all() {
        List<TableOutage> out = new ArrayList<>();
        out.add(catalog);
        out.addAll(new TreeMap<>(tableCatalogs).values());
        out.add(store);
        out.addAll(new TreeMap<>(tableStores).values());
        return out;
    }

    /** Why the catalog fails, for a call that names no table or else for the first table it fails for. */
    Optional<String> catalogTrouble() {
        Optional<String> trouble = catalog.trouble();
        for (TableOutage t : new TreeMap<>(tableCatalogs).values()) {
            if (trouble.isPresent()) break;
            trouble = t.trouble();
        }
        return trouble;
    }

    /** The health reasons of the catalog and store while they fail, one per table they fail for. */
    public List<String> outages() {
        List<String> out = new ArrayList<>();
        for (TableOutage o : all()) o.trouble().ifPresent(out::add);
        return out;
    }

    /** One line each for the catalog and the store while they fail (per table), for the status interval. */
    public List<String> outageSummaries(Instant now) {
        List<String> out = new ArrayList<>();
        for (TableOutage o : all()) o.summary(now).ifPresent(out::add);
        return out;
    }

    private record Streak(long failures, String last) { }

    /** One health reason per table whose last commits failed, in table order. */
    public List<String> failingCommits() {
        List<String> out = new ArrayList<>();
        new TreeMap<>(failing).forEach((table, s) -> out.add(s.failures()
                + " table commit(s) in a row failed, retrying: " + s.last()));
        return out;
    }

    /** A snapshot of the counters; {@code lastCommit} is null before the first commit. */
    public record Snapshot(long commits, long failedCommits, long conflicts, long refusedPartitions,
                           Duration lastCommit, long dataFiles, long dataBytes, long badRecords) { }

    void committed(String table, Duration took, int lostRaces, int refused) {
        failing.remove(table);
        commits.incrementAndGet();
        conflicts.addAndGet(lostRaces);
        refusedPartitions.addAndGet(refused);
        lastCommitNanos.set(took.toNanos());
        maxCommitNanos.accumulateAndGet(took.toNanos(), Math::max);
        commitNanos.addAndGet(took.toNanos());
        commitTimes.accept(took);
    }

    /** @param why names the table */
    void commitFailed(String table, String why) {
        failedCommits.incrementAndGet();
        failing.merge(table, new Streak(1, why), (was, now) -> new Streak(was.failures() + 1, why));
    }

    /** Rows a commit put into a table. */
    void rowsCommitted(long n) {
        rows.addAndGet(n);
    }

    void staged(int files, long bytes) {
        dataFiles.addAndGet(files);
        dataBytes.addAndGet(bytes);
    }

    void badRecord() {
        badRecords.incrementAndGet();
    }

    /** @param where the dead letter's full location, as the store named it */
    void deadLettered(String where) {
        deadLetters.incrementAndGet();
        lastDeadLetter.set(where);
    }

    /** A table was found dropped and created again; {@code line} says what happened and where reading resumes. */
    void replaced(String line) {
        replacements.incrementAndGet();
        replaced.addLast(line);
        while (replaced.size() > REPLACED_KEPT) replaced.pollFirst();
    }

    /** How many times a table of this sink was found replaced since start. */
    public long replacements() {
        return replacements.get();
    }

    /** The latest lines about replaced tables, oldest first. */
    public java.util.List<String> replacedLines() {
        return java.util.List.copyOf(replaced);
    }

    /** Bad records written as dead letters (a replay that rewrites one counts again). */
    public long deadLetters() {
        return deadLetters.get();
    }

    /** The totals the status endpoints show. */
    public TableStatus.Totals totals() {
        long last = lastCommitNanos.get();
        // the totals name the table failing longest; health names each
        Optional<Streak> worst = failing.values().stream().max(java.util.Comparator.comparingLong(Streak::failures));
        return new TableStatus.Totals(commits.get(), failedCommits.get(), worst.map(Streak::failures).orElse(0L),
                worst.map(Streak::last), conflicts.get(),
                refusedPartitions.get(), last < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(last)),
                Duration.ofNanos(maxCommitNanos.get()), Duration.ofNanos(commitNanos.get()), dataFiles.get(),
                dataBytes.get(), rows.get(), badRecords.get(), deadLetters.get(),
                Optional.ofNullable(lastDeadLetter.get()));
    }

    public Snapshot snapshot() {
        long last = lastCommitNanos.get();
        return new Snapshot(commits.get(), failedCommits.get(), conflicts.get(), refusedPartitions.get(),
                last < 0 ? null : Duration.ofNanos(last), dataFiles.get(), dataBytes.get(), badRecords.get());
    }
}
