package dev.iggysink.application.table;

import dev.iggysink.application.audit.AuditPace;
import dev.iggysink.application.audit.AuditQueue;
import dev.iggysink.application.port.out.Sleeper;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.domain.message.PartitionRef;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The table sink's own continuous audit (issue 48), the counterpart of the object sink's: within a budget of catalog
 * and store requests per minute, each round first reads the offset map of every table a commit went to since the last
 * round (one lookup per table) and checks that it holds what the commits set, then checks the rows of the recent
 * window of each partition this member committed against the files committed: a committed offset with no row is a
 * gap (another writer deleted it), an offset held by two rows an overlap (another writer appended a copy). A commit's
 * answer proves the snapshot was made, not that the table still holds its rows once the group's offset moved past
 * them.
 *
 * <p>The rows are read per data file ({@link TableStore#dataFiles}): a listing of the files that may hold the window
 * (its metadata reads counted; after the first, only what the snapshots since added and took out), then each file not
 * read before, one request each (and one per delete file that applies to it), except a file its statistics settle
 * ({@link #byStats}): those cost no request, and a file the sink wrote of consecutive records is one. A data file is never written over, so
 * one read before with the same path, size and deletes, in the same line of snapshots (a rollback starts another),
 * holds the same rows: what it held is remembered while it stays in the window (at most {@link #FILES_REMEMBERED} a
 * table) and not read again. A rewrite (a compaction, upkeep) makes new files, which are read; a delete adds a delete
 * file, which makes the file read again.
 *
 * <p>A file's records need not be contiguous (a dead letter, or a record routed to another table, sits between
 * them): a file from {@code first} to {@code last} holding {@code count} records lacks rows only when fewer than
 * {@code count} offsets of that range have one.
 *
 * <p>{@link #committed} is called by the consumer loops, {@link #run} on the audit's own thread, {@link #status} by
 * anyone.
 */
public final class TableSelfAudit implements Runnable {
    private static final System.Logger LOG = System.getLogger(TableSelfAudit.class.getName());
    /** How many of a partition's most recent committed files a round checks. */
    static final int WINDOW_FILES = 16;
    /** Rounds start no more often than this. */
    static final Duration ROUND_INTERVAL = Duration.ofSeconds(10);
    /** Commits waiting for their check beyond this are not checked one by one (rounds still read their rows). */
    static final int QUEUE_LIMIT = 10_000;
    private static final int LISTED = 20;
    /** Data files of one table whose rows a round remembers for the next. */
    static final int FILES_REMEMBERED = 4096;

    /** One committed file of a partition: its first and last offset and how many records (rows) it holds. */
    public record Span(long first, long last, long count) {
    }

    /** What one commit set for one partition of one table: its map entry {@code last}, and the files it appended. */
    public record Commit(String table, PartitionRef partition, long last, List<Span> files) {
        public Commit {
            files = List.copyOf(files);
        }
    }

    private record Lane(String table, PartitionRef partition) {
    }

    /** A commit with the replacement count its table's store held when the commit was made. */
    private record Stamped(Commit commit, long generation) {
    }

    /** One table as one store (a consumer group's catalog connection) reaches it. */
    private record Target(TableStore store, String table) {
    }

    /** The rows of one data file as read: at or past {@code from}, of {@code partitions}, its deletes applied. */
    private record Read(TableStore.DataFileRef file, long from, java.util.Set<PartitionRef> partitions,
                        Map<PartitionRef, TableStore.OffsetRuns> rows) {
        /** Whether this read answers for {@code f} now, at or past {@code now} and for {@code asked}. */
        boolean answers(TableStore.DataFileRef f, long now, java.util.Collection<PartitionRef> asked) {
            return file.size() == f.size() && file.deletes().equals(f.deletes()) && from <= now
                    && partitions.containsAll(asked);
        }
    }

    private final Function<String, TableStore> stores;
    private final InstantSource clock;
    private final AuditPace pace;

    private final AuditQueue<Stamped> queue = new AuditQueue<>(QUEUE_LIMIT);

    // Owned by the auditing thread.
    private long verified;
    private final Map<Lane, Deque<Span>> windows = new LinkedHashMap<>();
    /** Commits whose map entry was not found as set, by lane; checked again each round until it is. */
    private final Map<Lane, Commit> suspects = new LinkedHashMap<>();
    private final Map<Lane, String> suspectLines = new LinkedHashMap<>();
    private final Map<Lane, List<String>> gaps = new LinkedHashMap<>();
    private final Map<Lane, List<String>> overlaps = new LinkedHashMap<>();
    private final Map<Lane, Instant> checkedAt = new HashMap<>();
    /**
     * How many replacements of each table its store had found for what the windows hold: first the count a commit
     * was made under (a round's first look may come after a replacement, so it cannot set it), then what a round saw.
     */
    private final Map<Target, Long> generations = new HashMap<>();
    /** By table, the data files of its last listing that were read, by path. */
    private final Map<Target, Map<String, Read>> reads = new HashMap<>();
    /** By table, the snapshot of its last listing. */
    private final Map<Target, Long> listed = new HashMap<>();
    private final List<String> notes = new ArrayList<>();
    private volatile AuditStatus status;

    public TableSelfAudit(TableStore store, int requestsPerMinute, InstantSource clock, Sleeper sleeper,
                          BooleanSupplier stopping) {
        this(stream -> store, requestsPerMinute, clock, sleeper, stopping);
    }

    /** @param stores the store of each stream's tables (each consumer group has its own) */
    public TableSelfAudit(Function<String, TableStore> stores, int requestsPerMinute, InstantSource clock,
                          Sleeper sleeper, BooleanSupplier stopping) {
        this.pace = new AuditPace(requestsPerMinute, ROUND_INTERVAL, clock, sleeper, stopping);
        this.stores = stores;
        this.clock = clock;
        this.status = AuditStatus.none(requestsPerMinute);
    }

    /** What a commit set; checked at the next round. Called by the consumer loops. */
    public void committed(List<Commit> commits) {
        for (Commit c : commits) queue.add(new Stamped(c, generation(target(c.table(), c.partition()))));
    }

    public AuditStatus status() {
        return status;
    }

    @Override
    public void run() {
        pace.run(this::round, this::failed);
    }

    /** One round: the maps of the tables committed to since the last round, then the rows of every window. */
    public synchronized void round() throws InterruptedException, StoreException {
        forgetReplaced();
        verifyCommits();
        auditRows();
        pace.ended();
        publish();
    }

    private synchronized void failed(Exception e) {
        pace.failed(e);
        LOG.log(Level.WARNING, "table self-audit round failed; trying again in " + ROUND_INTERVAL.toSeconds()
                + " s: " + e.getMessage());
        publish();
    }

    private void verifyCommits() throws InterruptedException, StoreException {
        Map<Target, Map<PartitionRef, Commit>> byTable = new LinkedHashMap<>();
        for (Commit s : suspects.values()) {
            byTable.computeIfAbsent(target(s.table(), s.partition()), k -> new LinkedHashMap<>())
                    .put(s.partition(), s);
        }
        for (Stamped q; (q = queue.poll()) != null; ) {
            Commit c = q.commit();
            Target t = target(c.table(), c.partition());
            Long known = generations.putIfAbsent(t, q.generation());
            if (known != null && known > q.generation()) continue; // made to a table replaced since: unchecked
            if (known != null && known < q.generation()) {
                // the windows hold commits to the table this one replaced
                generations.put(t, q.generation());
                forget(t);
                byTable.remove(t);
            }
            Deque<Span> w = windows.computeIfAbsent(new Lane(c.table(), c.partition()), k -> new ArrayDeque<>());
            for (Span s : c.files()) {
                w.addLast(s);
                if (w.size() > WINDOW_FILES) w.removeFirst();
            }
            byTable.computeIfAbsent(target(c.table(), c.partition()), k -> new LinkedHashMap<>()).merge(c.partition(), c,
                    (a, b) -> a.last() >= b.last() ? a : b);
        }
        for (Map.Entry<Target, Map<PartitionRef, Commit>> e : byTable.entrySet()) {
            if (pace.stopping()) return;
            pace.spend(1);
            Map<PartitionRef, Long> map = e.getKey().store().durableOffsets(e.getKey().table(), e.getValue().keySet());
            if (replaced(e.getKey())) continue;
            for (Commit c : e.getValue().values()) {
                Lane lane = new Lane(c.table(), c.partition());
                Long found = map.get(c.partition());
                verified++;
                if (found != null && found >= c.last()) {
                    suspects.remove(lane);
                    suspectLines.remove(lane);
                    continue;
                }
                String line = mapProblem(c, found);
                if (!suspects.containsKey(lane)) LOG.log(Level.ERROR, "table self-audit: " + line);
                suspects.put(lane, c);
                suspectLines.put(lane, line);
            }
        }
    }

    /**
     * A table dropped and created again holds none of what was committed to the one before: what this audit expected
     * of it is forgotten (with the commits waiting, which may be of either; they go unchecked).
     */
    private void forgetReplaced() {
        java.util.Set<Target> seen = new java.util.HashSet<>();
        for (Lane l : windows.keySet()) seen.add(target(l.table(), l.partition()));
        for (Target t : seen) replaced(t);
    }

    /** Whether {@code t}'s store found the table replaced since the last look; if so, forgets what it expected. */
    private boolean replaced(Target t) {
        long now = generation(t);
        Long before = generations.put(t, now);
        if (before == null || before == now) return false;
        LOG.log(Level.INFO, "table self-audit: table " + t.table() + " was replaced; its window starts again");
        forget(t);
        return true;
    }

    private static long generation(Target t) {
        return t.store().replacement(t.table()).map(TableStore.Replacement::count).orElse(0L);
    }

    /** Forgets what this audit expected of {@code t}, with the commits waiting that were made before its count. */
    private void forget(Target t) {
        long now = generations.getOrDefault(t, 0L);
        java.util.function.Predicate<Lane> gone = l -> l.table().equals(t.table())
                && target(l.table(), l.partition()).equals(t);
        windows.keySet().removeIf(gone);
        suspects.keySet().removeIf(gone);
        suspectLines.keySet().removeIf(gone);
        gaps.keySet().removeIf(gone);
        overlaps.keySet().removeIf(gone);
        checkedAt.keySet().removeIf(gone);
        reads.remove(t);
        listed.remove(t);
        queue.removeIf(q -> q.generation() < now && gone.test(new Lane(q.commit().table(), q.commit().partition())));
    }

    private Target target(String table, PartitionRef partition) {
        return new Target(stores.apply(partition.stream()), table);
    }

    private static String mapProblem(Commit c, Long found) {
        return "table " + c.table() + ": the offset map of " + c.partition() + " holds "
                + (found == null ? "nothing" : found) + ", the sink committed it up to " + c.last();
    }

    private void auditRows() throws InterruptedException, StoreException {
        Map<Target, List<Lane>> byTable = new LinkedHashMap<>();
        for (Lane l : windows.keySet()) {
            byTable.computeIfAbsent(target(l.table(), l.partition()), k -> new ArrayList<>()).add(l);
        }
        notes.clear();
        for (Map.Entry<Target, List<Lane>> e : byTable.entrySet()) {
            if (pace.stopping()) return;
            long from = Long.MAX_VALUE;
            List<PartitionRef> partitions = new ArrayList<>();
            for (Lane l : e.getValue()) {
                partitions.add(l.partition());
                from = Math.min(from, windows.get(l).peekFirst().first());
            }
            Optional<Map<PartitionRef, List<TableStore.OffsetRuns>>> rows = rows(e.getKey(), partitions, from);
            if (rows == null) continue; // the table was replaced, found by this very read
            Instant now = clock.instant();
            if (rows.isEmpty()) {
                notes.add("table " + e.getKey().table() + " has no iggy_offset and iggy_partition_id columns: its"
                        + " rows were not checked");
                continue;
            }
            for (Lane l : e.getValue()) {
                check(l, rows.get().getOrDefault(l.partition(), List.of()));
                checkedAt.put(l, now);
            }
        }
    }

    /**
     * The rows of {@code partitions} at or past {@code from} in {@code t}, as runs per data file: the files of the
     * listing read before from what they held, the others read now. Empty when the table lacks the columns; null when
     * the listing found the table replaced.
     */
    private Optional<Map<PartitionRef, List<TableStore.OffsetRuns>>> rows(Target t, List<PartitionRef> partitions,
                                                                          long from)
            throws InterruptedException, StoreException {
        pace.spend(1);
        Long since = listed.get(t);
        Optional<TableStore.FileListing> listing = t.store().dataFiles(t.table(), from,
                since == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(since));
        if (listing.isEmpty()) {
            // a store that lists no files: the rows whole, in the one request spent
            Optional<Map<PartitionRef, List<Long>>> whole = t.store().rowOffsets(t.table(), partitions, from);
            if (replaced(t)) return null;
            if (whole.isEmpty()) return Optional.empty();
            Map<PartitionRef, List<TableStore.OffsetRuns>> out = new HashMap<>();
            whole.get().forEach((p, offsets) -> out.put(p, List.of(TableStore.OffsetRuns.of(offsets))));
            return Optional.of(out);
        }
        if (replaced(t)) return null;
        TableStore.FileListing files = listing.get();
        if (files.reads() > 1) pace.spend(files.reads() - 1);
        if (!files.checkable()) return Optional.empty();
        Map<String, Read> before = files.descends() ? reads.getOrDefault(t, Map.of()) : Map.of();
        List<TableStore.DataFileRef> live = files.files();
        if (!files.whole()) {
            // what changed since the last listing: the files remembered, less those taken out, and those added
            java.util.Set<String> removed = new java.util.HashSet<>(files.removed());
            live = new ArrayList<>();
            for (Read r : before.values()) if (!removed.contains(r.file().path())) live.add(r.file());
            live.addAll(files.files());
        }
        Map<String, Read> after = new HashMap<>();
        Map<PartitionRef, List<TableStore.OffsetRuns>> out = new HashMap<>();
        boolean all = true;
        for (TableStore.DataFileRef f : live) {
            if (f.upper() < from) continue; // older than every window
            Read r = before.get(f.path());
            Map<PartitionRef, TableStore.OffsetRuns> counted = byStats(f, partitions, from);
            if (counted != null) {
                // its manifest entry, read with the listing, says what it holds: no request more
                r = new Read(f, from, java.util.Set.copyOf(partitions), counted);
            } else if (r == null || !r.answers(f, from, partitions)) {
                pace.spend(1 + f.deletes().size());
                r = new Read(f, from, java.util.Set.copyOf(partitions),
                        t.store().rowOffsets(t.table(), f, partitions, from));
            }
            if (after.size() < FILES_REMEMBERED) after.put(f.path(), r);
            else all = false;
            r.rows().forEach((p, runs) -> {
                if (runs.size() > 0) out.computeIfAbsent(p, k -> new ArrayList<>()).add(runs);
            });
        }
        reads.put(t, after);
        // a change since this listing is enough only while every file of the window is remembered
        if (all) listed.put(t, files.snapshot());
        else listed.remove(t);
        return Optional.of(out);
    }

    /**
     * The rows of {@code f} at or past {@code from}, of those of {@code partitions} it holds, by its statistics alone
     * when they leave one answer: no delete file, one partition, and as many records as offsets between its bounds
     * (a row without an offset, an offset twice or one missing would make them differ). Null when {@code f} must be
     * read. What they cannot tell: a duplicate and a gap inside the bounds at once (docs/delivery.md).
     */
    static Map<PartitionRef, TableStore.OffsetRuns> byStats(TableStore.DataFileRef f,
                                                            java.util.Collection<PartitionRef> partitions, long from) {
        if (!f.deletes().isEmpty() || f.stats().isEmpty()) return null;
        TableStore.FileStats s = f.stats().get();
        if (s.lowerPartition() != s.upperPartition() || s.lowerOffset() < 0 || s.upperOffset() < s.lowerOffset()
                || s.upperOffset() - s.lowerOffset() != s.records() - 1) {
            return null;
        }
        long first = Math.max(s.lowerOffset(), from);
        Map<PartitionRef, TableStore.OffsetRuns> out = new HashMap<>();
        if (first > s.upperOffset()) return out;
        for (PartitionRef p : partitions) {
            if (p.partitionId() != s.lowerPartition() || s.stream().isPresent() && !s.stream().get().equals(p.stream())
                    || s.topic().isPresent() && !s.topic().get().equals(p.topic())) {
                continue;
            }
            out.put(p, new TableStore.OffsetRuns(new long[] {first}, new long[] {s.upperOffset()}));
        }
        return out;
    }

    /** Compares the rows of one lane's window ({@code rows}: runs of offsets, one list per data file) with its files. */
    private void check(Lane lane, List<TableStore.OffsetRuns> rows) {
        long[][] segments = held(rows);
        long[] starts = segments[0];
        long[] ends = segments[1];
        long[] counts = segments[2];
        List<String> gapLines = new ArrayList<>();
        Listed doubled = new Listed();
        for (Span s : windows.get(lane)) {
            Listed missing = new Listed();
            long present = 0;
            long next = s.first();
            int i = java.util.Arrays.binarySearch(ends, s.first());
            for (i = i < 0 ? -i - 1 : i; i < starts.length && starts[i] <= s.last(); i++) {
                long lo = Math.max(starts[i], s.first());
                long hi = Math.min(ends[i], s.last());
                if (lo > hi) continue;
                if (lo > next) missing.add(next, lo - 1);
                present += hi - lo + 1;
                if (counts[i] > 1) doubled.add(lo, hi);
                next = hi + 1;
            }
            if (next <= s.last()) missing.add(next, s.last());
            if (present < s.count()) {
                gapLines.add("table " + lane.table() + ", " + lane.partition() + ": " + (s.count() - present)
                        + " committed row(s) of offsets " + s.first() + "-" + s.last() + " are not in the table"
                        + (missing.total == s.count() - present ? " (no row at " + missing + ")"
                        // the others lie in a dead letter or another table
                        : " (they are among the offsets without a row here: " + missing + ")"));
            }
        }
        List<String> overlapLines = new ArrayList<>();
        if (doubled.total > 0) {
            overlapLines.add("table " + lane.table() + ", " + lane.partition() + ": offset(s) " + doubled
                    + " are held by more than one row");
        }
        boolean was = gaps.containsKey(lane) || overlaps.containsKey(lane);
        put(gaps, lane, gapLines);
        put(overlaps, lane, overlapLines);
        boolean is = !gapLines.isEmpty() || !overlapLines.isEmpty();
        if (is && !was) {
            List<String> all = new ArrayList<>(gapLines);
            all.addAll(overlapLines);
            LOG.log(Level.ERROR, "table self-audit found: " + String.join("; ", all));
        } else if (!is && was) {
            LOG.log(Level.INFO, "table self-audit finds " + lane.partition() + " in " + lane.table()
                    + " whole again");
        }
    }

    /**
     * The offsets {@code rows} hold, as sorted disjoint segments {@code starts[i]}-{@code ends[i]} each held by
     * {@code counts[i]} rows (at least one): a sweep over the runs' starts and ends.
     */
    private static long[][] held(List<TableStore.OffsetRuns> rows) {
        int n = 0;
        for (TableStore.OffsetRuns r : rows) n += r.size();
        long[] opens = new long[n];
        long[] closes = new long[n]; // one past each run's last offset
        int k = 0;
        for (TableStore.OffsetRuns r : rows) {
            for (int i = 0; i < r.size(); i++, k++) {
                opens[k] = r.firsts()[i];
                closes[k] = r.lasts()[i] + 1;
            }
        }
        java.util.Arrays.sort(opens);
        java.util.Arrays.sort(closes);
        long[] starts = new long[2 * n];
        long[] ends = new long[2 * n];
        long[] counts = new long[2 * n];
        int segments = 0;
        int o = 0;
        int c = 0;
        long depth = 0;
        long at = 0;
        while (o < n || c < n) {
            long point = o < n && opens[o] < closes[c] ? opens[o] : closes[c];
            if (depth > 0 && point > at) {
                starts[segments] = at;
                ends[segments] = point - 1;
                counts[segments++] = depth;
            }
            while (o < n && opens[o] == point) {
                depth++;
                o++;
            }
            while (c < n && closes[c] == point) {
                depth--;
                c++;
            }
            at = point;
        }
        return new long[][] {java.util.Arrays.copyOf(starts, segments), java.util.Arrays.copyOf(ends, segments),
                java.util.Arrays.copyOf(counts, segments)};
    }

    /** Offsets for a finding: how many, and the first {@link #LISTED} of them as the line names them. */
    private static final class Listed {
        private final List<Long> head = new ArrayList<>();
        private long total;

        void add(long first, long last) {
            for (long o = first; o <= last && head.size() < LISTED; o++) head.add(o);
            total += last - first + 1;
        }

        @Override
        public String toString() {
            return total > LISTED ? head + " and " + (total - LISTED) + " more" : head.toString();
        }
    }

    private static void put(Map<Lane, List<String>> m, Lane lane, List<String> lines) {
        if (lines.isEmpty()) m.remove(lane);
        else m.put(lane, lines);
    }

    private void publish() {
        List<AuditStatus.Covered> covered = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        int gapCount = 0;
        int overlapCount = 0;
        for (Map.Entry<Lane, Deque<Span>> e : windows.entrySet()) {
            Lane l = e.getKey();
            Instant at = checkedAt.get(l);
            if (at == null) continue;
            covered.add(new AuditStatus.Covered(l.partition().stream(), l.partition().topic(),
                    l.partition().partitionId(), e.getValue().peekFirst().first(), e.getValue().peekLast().last(),
                    e.getValue().size(), at));
        }
        for (List<String> g : gaps.values()) {
            problems.addAll(g);
            gapCount += g.size();
        }
        for (List<String> o : overlaps.values()) {
            problems.addAll(o);
            overlapCount += o.size();
        }
        problems.addAll(suspectLines.values());
        status = pace.status(verified, queue.skipped(), covered, problems, notes,
                new AuditStatus.Counts(gapCount, overlapCount, 0, suspects.size(), 0));
    }
}
