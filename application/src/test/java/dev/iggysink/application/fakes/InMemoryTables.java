package dev.iggysink.application.fakes;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.PartitionRef;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tables in memory with what the commit protocol relies on from a catalog: snapshots in a line, each with the offset
 * map of the commit that made it; a commit that checks each partition's entry against the offset its committer
 * expected, atomically. Faults can be scripted: a concurrent commit slipped in before the next commit's swap (what a
 * catalog's optimistic concurrency makes the real store re-check), a commit that lands but answers with a timeout
 * (unknown outcome), snapshots by another writer without a map (a compaction), staging failures, dead letters that
 * cannot be written. A record whose payload starts with {@code NOFIT} does not fit any table's schema. Discarding a
 * committed data file fails the test.
 */
public final class InMemoryTables implements TableStore {

    /** One data file: the offsets of one partition's records it holds. */
    public record DataFile(int id, PartitionRef partition, List<Long> offsets) { }

    /** One snapshot: {@code removed} the ids of the data files it took out, {@code deletes} whether it deleted rows. */
    private record Snapshot(Map<PartitionRef, Long> map, List<DataFile> added, Set<String> redriven,
                            List<Integer> removed, boolean deletes) {
        Snapshot(Map<PartitionRef, Long> map, List<DataFile> added, Set<String> redriven) {
            this(map, added, redriven, List.of(), false);
        }

        Snapshot(Map<PartitionRef, Long> map, List<DataFile> added) {
            this(map, added, Set.of());
        }
    }

    private final Map<String, List<Snapshot>> tables = new HashMap<>();
    private final Map<String, Map<Integer, Long>> completeBefore = new HashMap<>();
    /** Rows other writers deleted ({@link #foreignDelete}), by the id of the data file that held them. */
    private final Map<Integer, List<Long>> deletedRows = new HashMap<>();
    /** Data files another writer's rewrite took out of their table ({@link #foreignRewrite}). */
    private final Set<Integer> rewrittenIds = new HashSet<>();
    /** How many times each table was rolled back ({@link #rollBack}): a snapshot id names its line. */
    private final Map<String, Integer> rollbacks = new HashMap<>();
    /** Reads of tables' metadata and data files ({@link #reads}), and of data files alone ({@link #filesRead}). */
    private int reads;
    private int filesRead;
    private final Set<String> missing = new HashSet<>();
    private final Set<String> dropped = new HashSet<>();
    private final Set<Integer> committedIds = new HashSet<>();
    private final Set<Integer> discardedIds = new HashSet<>();
    private final Queue<Runnable> beforeSwap = new ArrayDeque<>();
    private final AtomicInteger ids = new AtomicInteger();
    private int landThenTimeOut;
    private int failStages;
    private int commits;
    private final java.util.TreeMap<String, byte[]> deadLetters = new java.util.TreeMap<>();
    private final Queue<StoreException> deadLetterFailures = new ArrayDeque<>();
    private int deadLetterWrites;
    private String deadLetterRoot = "memory://warehouse/_dlq/";
    private int dataFilesPerStage = 1;
    /** While set, every catalog call (open, lookup, commit) fails with it; counted in {@link #catalogCalls}. */
    private String catalogDown;
    /** While set, every data file and dead letter written fails with it. */
    private StoreException storeDown;
    private int catalogCalls;
    private int lookups;
    private final Map<String, Replacement> replacements = new HashMap<>();
    /** Each table's identity in the catalog: bumped when it is dropped and created again. */
    private final Map<String, Long> generations = new HashMap<>();
    /**
     * The identity this store serves for each table: as the real store, it finds a replacement only when it next
     * reads the table (a lookup or a commit), not when the catalog changes.
     */
    private final Map<String, Long> served = new HashMap<>();
    /** Commits to these tables fail with their exception until cleared. */
    private final Map<String, StoreException> failingCommits = new HashMap<>();
    /** While set, every lookup of a table's offsets fails with it after counting as a catalog call. */
    private StoreException lookupFailure;
    private final Queue<Exception> commitFailures = new ArrayDeque<>();
    private final Map<Integer, RuntimeException> stageErrors = new HashMap<>();
    /** While set, every lookup of a table's offsets throws it after counting as a catalog call. */
    private RuntimeException lookupError;
    private int stageAttempts;

    private final class Rows implements RowFile {
        final String table;
        /** The identity of the table the store served when the file was begun, as the real store's handle. */
        final long generation;
        final List<DecodedRecord> rows = new ArrayList<>();
        boolean done;

        Rows(String table, long generation) {
            this.table = table;
            this.generation = generation;
        }

        @Override
        public void append(DecodedRecord record) throws BadRecordException {
            if (done) throw new IllegalStateException("file already staged or discarded");
            String text = new String(record.source().payload(), StandardCharsets.UTF_8);
            if (text.startsWith("NOFIT")) throw new BadRecordException("field 'n' is not a long");
            rows.add(record);
        }

        @Override
        public int count() {
            return rows.size();
        }

        @Override
        public long heapBytes() {
            return 64L * rows.size();
        }

        @Override
        public Staged stage() throws StoreException {
            if (done) throw new IllegalStateException("file already staged or discarded");
            synchronized (InMemoryTables.this) {
                stageAttempts++;
                if (storeDown != null) throw storeDown;
                if (failStages > 0) {
                    failStages--;
                    throw new StoreException("PUT data file: 503 Slow Down", true, 503, null, null);
                }
                RuntimeException error = rows.isEmpty() ? null
                        : stageErrors.get(rows.get(0).source().partition().partitionId());
                if (error != null) throw error;
            }
            done = true;
            List<Long> offsets = rows.stream().map(r -> r.source().offset()).toList();
            return new StagedFile(new DataFile(ids.incrementAndGet(), rows.get(0).source().partition(), offsets),
                    dataFilesPerStage, generation);
        }

        @Override
        public void discard() {
            done = true;
            rows.clear();
        }
    }

    private record StagedFile(DataFile file, int dataFiles, long generation) implements Staged {
        @Override
        public int dataFiles() {
            return dataFiles;
        }

        @Override
        public long bytes() {
            return 100L * file.offsets().size();
        }
    }

    /**
     * The table is dropped and created again, empty, as an operator's reset of the lake would: its snapshots, and with
     * them its offset map, are gone. As the real store, this one finds out at its next lookup or commit of the table;
     * from then on {@link #replacement} tells it.
     */
    public synchronized void replace(String table) {
        dropped.remove(table);
        tables.put(table, new ArrayList<>());
        generations.merge(table, 1L, Long::sum);
    }

    /** A table {@link #drop dropped} is created again, empty, by the operator: as {@link #replace}. */
    public synchronized void createAgain(String table) {
        if (!dropped.contains(table)) throw new IllegalStateException(table + " was not dropped");
        replace(table);
    }

    /**
     * Reads the table from the catalog, as the real store's refresh does: a table dropped is refused, one created
     * again since the last read replaces the one served.
     */
    private void refresh(String table) throws StoreException {
        notDropped(table);
        long now = generations.getOrDefault(table, 0L);
        long was = served.getOrDefault(table, 0L);
        if (now == was) return;
        long count = replacements.containsKey(table) ? replacements.get(table).count() + 1 : 1;
        replacements.put(table, new Replacement(table, "id-" + was, "id-" + now, count));
        served.put(table, now);
    }

    @Override
    public synchronized java.util.Optional<Replacement> replacement(String table) {
        return java.util.Optional.ofNullable(replacements.get(table));
    }

    /**
     * The table is dropped (and not created again until {@link #createAgain}): opening it, looking it up and committing
     * to it are refused (404, not retryable), as the real store refuses them without {@code create_tables}.
     */
    public synchronized void drop(String table) {
        dropped.add(table);
        tables.remove(table);
    }

    private void notDropped(String table) throws StoreException {
        if (dropped.contains(table)) {
            throw new StoreException("table " + table + " was dropped from the catalog while the sink ran", false, 404,
                    null, null);
        }
    }

    /** Every commit to {@code table} fails with {@code failure} until called again with null. */
    public synchronized void failCommitsTo(String table, StoreException failure) {
        if (failure == null) failingCommits.remove(table);
        else failingCommits.put(table, failure);
    }

    /** Every lookup of a table's offsets fails with {@code failure} until called again with null. */
    public synchronized void failLookups(StoreException failure) {
        lookupFailure = failure;
    }

    /** The next commit fails with {@code failure} before it reads the table (once per call). */
    public synchronized void failNextCommit(StoreException failure) {
        commitFailures.add(failure);
    }

    /** The next commit throws {@code error}, an error no store should let out (a bug, a library's surprise). */
    public synchronized void failNextCommitWith(RuntimeException error) {
        commitFailures.add(error);
    }

    /**
     * Every staging of a file of partition {@code partitionId} throws {@code error}, an error no store should let out
     * (a bug, a library's surprise), as one that comes from the file's own rows would.
     */
    public synchronized void failStagesOf(int partitionId, RuntimeException error) {
        stageErrors.put(partitionId, error);
    }

    /**
     * Every lookup of a table's offsets throws {@code error} until called again with null: an error no catalog
     * should let out (a bug, a library's surprise).
     */
    public synchronized void failLookupsWith(RuntimeException error) {
        lookupError = error;
    }

    /** How many times a sealed file's data files were written, failed writes included. */
    public synchronized int stageAttempts() {
        return stageAttempts;
    }

    /** A table that {@link #open} refuses, as a catalog without it would (the sink does not create it). */
    public synchronized InMemoryTables without(String table) {
        missing.add(table);
        return this;
    }

    /** Runs {@code action} inside the next commit, after it read the current snapshot and before it swaps. */
    public synchronized void beforeNextSwap(Runnable action) {
        beforeSwap.add(action);
    }

    /** Drops the actions of {@link #beforeNextSwap} that no commit has run (the step made no commit). */
    public synchronized void noSwapPending() {
        beforeSwap.clear();
    }

    /** The next commit lands but answers as if the catalog timed out. */
    public synchronized void nextCommitLandsThenTimesOut() {
        landThenTimeOut++;
    }

    /** The catalog does not answer ({@code error}) until called again with null, as a REST server that is down. */
    public synchronized void catalogDown(String error) {
        catalogDown = error;
    }

    /** The warehouse store fails every write with {@code failure} until called again with null. */
    public synchronized void storeDown(StoreException failure) {
        storeDown = failure;
    }

    /** The lookups of a table's offsets made so far, those that failed included. */
    public synchronized int lookups() {
        return lookups;
    }

    /** The catalog calls made so far (open, lookup, commit), those that failed included. */
    public synchronized int catalogCalls() {
        return catalogCalls;
    }

    private synchronized void callCatalog(String what) throws StoreException {
        catalogCalls++;
        if (catalogDown != null) throw new StoreException(what + " failed: " + catalogDown, true, 0, null, null);
    }

    public synchronized void failNextStages(int n) {
        failStages += n;
    }

    /** The next dead letter written fails with {@code failure} (once per call). */
    public synchronized void failNextDeadLetter(StoreException failure) {
        deadLetterFailures.add(failure);
    }

    /** The dead letters written, by key. */
    public synchronized Map<String, byte[]> deadLetters() {
        return new java.util.TreeMap<>(deadLetters);
    }

    /** How many dead letters were written, rewrites of a key counted each time. */
    public synchronized int deadLetterWrites() {
        return deadLetterWrites;
    }

    @Override
    public synchronized String writeDeadLetter(String key, byte[] content) throws StoreException {
        StoreException failure = deadLetterFailures.poll();
        if (failure != null) throw failure;
        if (storeDown != null) throw storeDown;
        deadLetters.put(key, content.clone());
        deadLetterWrites++;
        return deadLetterRoot + key.substring(key.indexOf('/') + 1);
    }

    /** Each sealed file is staged as {@code n} data files, as a partitioned table writes one per table partition. */
    public synchronized void dataFilesPerStage(int n) {
        dataFilesPerStage = n;
    }

    /** Dead letters are said to lie below {@code root} (as with a dlq_location: the key's first segment dropped). */
    public synchronized void deadLettersAt(String root) {
        deadLetterRoot = root;
    }

    @Override
    public synchronized List<String> deadLetterKeys(String prefix) {
        return deadLetters.keySet().stream().filter(k -> k.startsWith(prefix)).toList();
    }

    /** A snapshot by another writer that carries no offset map and adds no data (a compaction, a maintenance job). */
    public synchronized void foreignSnapshot(String table) {
        snapshots(table).add(new Snapshot(Map.of(), List.of()));
    }

    /** Every data file committed to {@code table}, oldest first. */
    public synchronized List<DataFile> committed(String table) {
        List<DataFile> out = new ArrayList<>();
        for (Snapshot s : snapshots(table)) out.addAll(s.added());
        return out;
    }

    public synchronized int commits() {
        return commits;
    }

    public synchronized int snapshotCount(String table) {
        return snapshots(table).size();
    }

    private List<Snapshot> snapshots(String table) {
        return tables.computeIfAbsent(table, t -> new ArrayList<>());
    }

    @Override
    public synchronized void open(String table) throws StoreException {
        callCatalog("loading table " + table);
        notDropped(table);
        if (missing.contains(table)) {
            throw new StoreException("table " + table + " does not exist", false, 404, null, null);
        }
    }

    @Override
    public RowFile newFile(String table) throws StoreException {
        // a table once loaded is kept: a new file asks no catalog, and a store serves a file of a table it opened
        // from what it loaded, dropped since or not
        synchronized (this) {
            if (!dropped.contains(table) && missing.contains(table)) {
                throw new StoreException("table " + table + " does not exist", false, 404, null, null);
            }
            return new Rows(table, served.getOrDefault(table, 0L));
        }
    }

    @Override
    public synchronized Map<PartitionRef, Long> durableOffsets(String table, Collection<PartitionRef> partitions)
            throws StoreException {
        lookups++;
        reads++;
        callCatalog("reading the offsets of table " + table);
        if (lookupError != null) throw lookupError;
        if (lookupFailure != null) throw lookupFailure;
        if (missing.contains(table)) {
            throw new StoreException("table " + table + " does not exist", false, 404, null, null);
        }
        refresh(table);
        return mapOf(table, partitions);
    }

    private Map<PartitionRef, Long> mapOf(String table, Collection<PartitionRef> partitions) {
        Map<PartitionRef, Long> out = new LinkedHashMap<>();
        List<Snapshot> line = snapshots(table);
        for (PartitionRef p : partitions) {
            for (int i = line.size() - 1; i >= 0; i--) {
                Long v = line.get(i).map().get(p);
                if (v != null) {
                    out.put(p, v);
                    break;
                }
            }
        }
        return out;
    }

    @Override
    public CommitResult commit(String table, List<Append> appends) throws StoreException {
        callCatalog("commit to table " + table);
        int base;
        synchronized (this) {
            if (failingCommits.containsKey(table)) throw failingCommits.get(table);
            refresh(table);
            Exception failure = commitFailures.poll();
            if (failure instanceof StoreException e) throw e;
            if (failure != null) throw (RuntimeException) failure;
            long now = served.getOrDefault(table, 0L);
            for (Append a : appends) {
                for (Staged s : a.files()) {
                    if (((StagedFile) s).generation() != now) {
                        throw new StoreException("table " + table + " was replaced (uuid id-"
                                + ((StagedFile) s).generation() + " -> id-" + now + ") after the files of this"
                                + " commit were written for it; nothing was committed", true, 409, null, null);
                    }
                }
            }
            base = snapshots(table).size();
        }
        Runnable slipIn;
        synchronized (this) {
            slipIn = beforeSwap.poll();
        }
        if (slipIn != null) slipIn.run();
        synchronized (this) {
            List<Snapshot> line = snapshots(table);
            int conflicts = line.size() != base ? 1 : 0;
            List<PartitionRef> names = appends.stream().map(Append::partition).toList();
            Map<PartitionRef, Long> current = mapOf(table, names);
            Set<PartitionRef> committed = new HashSet<>();
            Map<PartitionRef, Long> refused = new HashMap<>();
            Map<PartitionRef, Long> map = new LinkedHashMap<>();
            // carried forward: the whole map of the partitions this table knows
            for (Snapshot s : line) map.putAll(s.map());
            List<DataFile> added = new ArrayList<>();
            for (Append a : appends) {
                long inTable = current.getOrDefault(a.partition(), -1L);
                if (inTable > a.expected()) {
                    refused.put(a.partition(), inTable);
                    continue;
                }
                committed.add(a.partition());
                map.put(a.partition(), a.last());
                for (Staged s : a.files()) {
                    DataFile f = ((StagedFile) s).file();
                    if (discardedIds.contains(f.id())) throw new AssertionError("committing discarded file " + f);
                    if (!committedIds.add(f.id())) throw new AssertionError("committing file twice: " + f);
                    added.add(f);
                }
            }
            if (!committed.isEmpty()) {
                line.add(new Snapshot(map, added));
                commits++;
            }
            if (landThenTimeOut > 0 && !committed.isEmpty()) {
                landThenTimeOut--;
                throw new StoreException("commit to " + table + ": read timed out", true, 0, null, null);
            }
            return new CommitResult(committed, refused, conflicts);
        }
    }

    /** Keeps the topic's complete-before times and watermark beside the table's map, as the Iceberg store does. */
    @Override
    public CommitResult commit(String table, List<Append> appends, Times times) throws StoreException {
        CommitResult result = commit(table, appends);
        synchronized (this) {
            Map<Integer, Long> updates = new HashMap<>(times.completeBefore());
            for (PartitionRef p : result.refused().keySet()) updates.remove(p.partitionId());
            Map<Integer, Long> merged = dev.iggysink.domain.completeness.Watermark.merge(
                    completeBefore.getOrDefault(table, Map.of()), updates);
            completeBefore.put(table, merged);
            return new CommitResult(result.committed(), result.refused(), result.conflicts(),
                    dev.iggysink.domain.completeness.Watermark.of(merged, times.partitions()));
        }
    }

    /** The complete-before time of each partition in {@code table}, as the commits so far left it. */
    public synchronized Map<Integer, Long> completeBefore(String table) {
        return Map.copyOf(completeBefore.getOrDefault(table, Map.of()));
    }

    @Override
    public synchronized java.util.Optional<Map<PartitionRef, List<Long>>> rowOffsets(String table,
                                                                                    Collection<PartitionRef> partitions) {
        // As the real store, reading the rows refreshes the table and so finds a replacement.
        if (!dropped.contains(table)) {
            try {
                refresh(table);
            } catch (StoreException e) {
                throw new IllegalStateException(e);
            }
        }
        reads++;
        Map<PartitionRef, List<Long>> out = new LinkedHashMap<>();
        for (DataFile f : live(table)) {
            if (partitions.contains(f.partition())) {
                reads++;
                filesRead++;
                out.computeIfAbsent(f.partition(), k -> new ArrayList<>()).addAll(rowsOf(f));
            }
        }
        return java.util.Optional.of(out);
    }

    /** A data file of a listing: its id names it, its deletes are the offsets another writer deleted from it. */
    private record FileRef(String path, long size, List<String> deletes, long upper, int id,
                           java.util.Optional<FileStats> stats) implements DataFileRef {
    }

    /** Whether listed data files carry their statistics (a writer may keep none: then each is read). */
    private boolean statistics = true;

    /** Listed data files carry statistics, as Parquet writes them, or (false) none. */
    public synchronized void statistics(boolean on) {
        statistics = on;
    }

    /** How many listings of data files were of what changed since an earlier one. */
    private int changeListings;

    /** Listings of data files that named only what changed since an earlier one, so far. */
    public synchronized int changeListings() {
        return changeListings;
    }

    @Override
    public synchronized java.util.Optional<FileListing> dataFiles(String table, long from,
                                                               java.util.OptionalLong since) throws StoreException {
        refresh(table);
        reads++;
        int line = rollbacks.getOrDefault(table, 0);
        long snapshot = line * 1_000_000L + snapshots(table).size();
        boolean descends = since.isEmpty() || (since.getAsLong() / 1_000_000L == line && since.getAsLong() <= snapshot);
        List<Snapshot> history = snapshots(table);
        int after = (int) (descends && since.isPresent() ? since.getAsLong() % 1_000_000L : history.size());
        boolean change = after < history.size() || (descends && since.isPresent());
        for (int i = after; i < history.size(); i++) change &= !history.get(i).deletes();
        if (change) {
            // as the real store, the snapshots since: their added files, the paths of those they took out
            changeListings++;
            List<DataFileRef> added = new ArrayList<>();
            List<String> removed = new ArrayList<>();
            for (int i = after; i < history.size(); i++) {
                for (DataFile f : history.get(i).added()) {
                    if (!rewrittenIds.contains(f.id())) added.add(ref(table, f));
                }
                for (int id : history.get(i).removed()) removed.add(path(table, id));
            }
            return java.util.Optional.of(new FileListing(true, snapshot, true, false, added, removed, 1));
        }
        List<DataFileRef> files = new ArrayList<>();
        for (DataFile f : live(table)) {
            if (f.offsets().stream().noneMatch(o -> o >= from)) continue; // as the column's bounds prune it
            files.add(ref(table, f));
        }
        return java.util.Optional.of(FileListing.whole(snapshot, descends, files, 1));
    }

    private FileRef ref(String table, DataFile f) {
        List<String> deletes = deletedRows.getOrDefault(f.id(), List.of()).stream()
                .map(o -> "delete-" + f.id() + "-" + o).toList();
        long upper = f.offsets().stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE);
        // computed from the rows as written, as a manifest entry's are: deletes made since do not change them
        java.util.Optional<FileStats> stats = !statistics || f.offsets().isEmpty() ? java.util.Optional.empty()
                : java.util.Optional.of(new FileStats(f.offsets().size(),
                        f.offsets().stream().mapToLong(Long::longValue).min().orElseThrow(), upper,
                        f.partition().partitionId(), f.partition().partitionId(),
                        java.util.Optional.of(f.partition().stream()), java.util.Optional.of(f.partition().topic())));
        return new FileRef(path(table, f.id()), 100L * f.offsets().size(), deletes, upper, f.id(), stats);
    }

    private static String path(String table, int id) {
        return "memory://" + table + "/data-" + id;
    }

    @Override
    public synchronized Map<PartitionRef, OffsetRuns> rowOffsets(String table, DataFileRef file,
                                                               Collection<PartitionRef> partitions, long from) {
        int id = ((FileRef) file).id();
        reads += 1 + file.deletes().size();
        filesRead++;
        for (DataFile f : live(table)) {
            if (f.id() != id) continue;
            if (!partitions.contains(f.partition())) return Map.of();
            List<Long> kept = rowsOf(f).stream().filter(o -> o >= from).toList();
            return kept.isEmpty() ? Map.of() : Map.of(f.partition(), OffsetRuns.of(kept));
        }
        throw new IllegalStateException("no data file " + file.path() + " in " + table);
    }

    /** The offsets of {@code f}'s rows that no other writer deleted. */
    private List<Long> rowsOf(DataFile f) {
        List<Long> rows = new ArrayList<>(f.offsets());
        for (Long o : deletedRows.getOrDefault(f.id(), List.of())) rows.remove(o);
        return rows;
    }

    /** The data files of {@code table}'s current snapshot. */
    private List<DataFile> live(String table) {
        List<DataFile> out = new ArrayList<>();
        for (Snapshot s : snapshots(table)) {
            for (DataFile f : s.added()) if (!rewrittenIds.contains(f.id())) out.add(f);
        }
        return out;
    }

    /** Reads of tables' metadata (a lookup of the map, a listing of data files) and data files, so far. */
    public synchronized int reads() {
        return reads;
    }

    /** Data files read so far (each file of a whole read counted). */
    public synchronized int filesRead() {
        return filesRead;
    }

    /**
     * Another writer rewrites the live data files of {@code partition} into one holding the same rows (a compaction),
     * leaving the offset map as it is.
     */
    public synchronized void foreignRewrite(String table, PartitionRef partition) {
        foreignRewrite(table, partition, List.of());
    }

    /** As {@link #foreignRewrite(String, PartitionRef)}, leaving out the rows at {@code lost} (a faulty job). */
    public synchronized void foreignRewrite(String table, PartitionRef partition, List<Long> lost) {
        List<Long> offsets = new ArrayList<>();
        List<Integer> removed = new ArrayList<>();
        for (DataFile f : live(table)) {
            if (!f.partition().equals(partition)) continue;
            offsets.addAll(rowsOf(f));
            rewrittenIds.add(f.id());
            removed.add(f.id());
        }
        offsets.removeAll(lost);
        offsets.sort(null);
        snapshots(table).add(new Snapshot(Map.of(), List.of(new DataFile(ids.incrementAndGet(), partition,
                List.copyOf(offsets))), Set.of(), removed, false));
    }

    /** Another writer rolls {@code table} back by its last snapshot: a new line of snapshots starts there. */
    public synchronized void rollBack(String table) {
        List<Snapshot> line = snapshots(table);
        line.remove(line.size() - 1);
        rollbacks.merge(table, 1, Integer::sum);
    }

    /** Sets {@code partition}'s offset map entry of {@code table} as another writer's snapshot would (a rollback). */
    public synchronized void foreignMap(String table, PartitionRef partition, long offset) {
        snapshots(table).add(new Snapshot(Map.of(partition, offset), List.of()));
    }

    /**
     * Deletes the rows of {@code partition} at {@code offsets} from {@code table}, as another writer's delete commit
     * would (one row per offset), leaving the offset map as it is.
     */
    public synchronized void foreignDelete(String table, PartitionRef partition, List<Long> offsets) {
        snapshots(table).add(new Snapshot(Map.of(), List.of(), Set.of(), List.of(), true));
        for (Long o : offsets) {
            for (DataFile f : live(table)) {
                if (f.partition().equals(partition) && rowsOf(f).contains(o)) {
                    deletedRows.computeIfAbsent(f.id(), k -> new ArrayList<>()).add(o);
                    break;
                }
            }
        }
    }

    /** Another writer takes the live data file of {@code partition} holding {@code offset} out of {@code table}. */
    public synchronized void foreignRemove(String table, PartitionRef partition, long offset) {
        for (DataFile f : live(table)) {
            if (f.partition().equals(partition) && f.offsets().contains(offset)) {
                rewrittenIds.add(f.id());
                snapshots(table).add(new Snapshot(Map.of(), List.of(), Set.of(), List.of(f.id()), false));
                return;
            }
        }
        throw new IllegalStateException("no data file of " + partition + " holds offset " + offset);
    }

    /** Adds a data file to {@code table} as another writer would (a copy, a repair), outside the protocol. */
    public synchronized void foreignRows(String table, PartitionRef partition, List<Long> offsets) {
        snapshots(table).add(new Snapshot(Map.of(), List.of(new DataFile(ids.incrementAndGet(), partition,
                List.copyOf(offsets)))));
    }

    @Override
    public synchronized java.util.Optional<byte[]> readDeadLetter(String key) throws StoreException {
        if (storeDown != null) throw storeDown;
        byte[] content = deadLetters.get(key);
        return java.util.Optional.ofNullable(content == null ? null : content.clone());
    }

    @Override
    public synchronized void deleteDeadLetter(String key) throws StoreException {
        if (storeDown != null) throw storeDown;
        deadLetters.remove(key);
    }

    /** Snapshots that made no offset map move, as {@link #commitRedriven} makes them. */
    @Override
    public void commitRedriven(String table, List<Staged> files, Collection<String> letters) throws StoreException {
        callCatalog("commit to table " + table);
        synchronized (this) {
            notDropped(table);
            Exception failure = commitFailures.poll();
            if (failure instanceof StoreException e) throw e;
            if (failure != null) throw (RuntimeException) failure;
            List<DataFile> added = new ArrayList<>();
            for (Staged s : files) {
                DataFile f = ((StagedFile) s).file();
                if (discardedIds.contains(f.id())) throw new AssertionError("committing discarded file " + f);
                if (!committedIds.add(f.id())) throw new AssertionError("committing file twice: " + f);
                added.add(f);
            }
            snapshots(table).add(new Snapshot(Map.of(), added, Set.copyOf(letters)));
            commits++;
            if (landThenTimeOut > 0) {
                landThenTimeOut--;
                throw new StoreException("commit to " + table + ": read timed out", true, 0, null, null);
            }
        }
    }

    @Override
    public synchronized Set<String> redriven(String table) throws StoreException {
        callCatalog("reading the history of table " + table);
        Set<String> out = new HashSet<>();
        for (Snapshot s : snapshots(table)) out.addAll(s.redriven());
        return out;
    }

    @Override
    public synchronized void discard(Staged files) {
        DataFile f = ((StagedFile) files).file();
        if (committedIds.contains(f.id())) throw new AssertionError("discarding a committed data file: " + f);
        discardedIds.add(f.id());
    }

    @Override
    public void close() {
    }
}
