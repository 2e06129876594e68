package dev.iggysink.application.table;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.PartitionRevokedException;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.domain.buffer.OpenFile;
import dev.iggysink.domain.completeness.Watermark;
import dev.iggysink.domain.delivery.PollCeiling;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.rotation.RotationReason;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * The table sink's loop over one topic, as one member of its consumer group. Records are appended to a file per
 * (partition, table), sealed by the rotation rules, staged (written as data files, invisible) and committed to their
 * table in batches; the group's offset moves only after the table commit holds every record up to it.
 *
 * <p>The table is the source of truth. When a partition is assigned, the table's map says how far each table holds
 * it; a record at or below that is not written again, and when every static table holds more than the group's stored
 * offset, that offset is first moved up to it. A commit names, per partition, the offset this member believes the
 * table holds; the store refuses a partition whose map moved past it (another member committed it since), and this
 * member then forgets the partition and looks it up anew. So two members never commit the same offset to a table,
 * whatever the interleaving, and a member that lost a partition unseen cannot add a copy.
 *
 * <p>Driven by one thread through {@link #step}; nothing here blocks but the calls to the ports.
 */
public final class TableConsumer {
    private static final System.Logger LOG = System.getLogger(TableConsumer.class.getName());

    private final MessageSource source;
    private final RecordCodec codec;
    private final TableStore store;
    private final TableSettings settings;
    private final InstantSource clock;
    private final SinkMetrics metrics;
    private final TableTally tally;
    private final Map<PartitionRef, Part> parts = new LinkedHashMap<>();
    private final Map<String, Instant> lastCommit = new HashMap<>();
    /** Commits of each table refused with 403 in a row, tried {@link #FORBIDDEN_ATTEMPTS} times before they halt. */
    private final Map<String, Integer> forbiddenCommits = new HashMap<>();
    /**
     * Lookups of each table refused with 403 in a row at take-up: tried {@link #FORBIDDEN_ATTEMPTS} times, as commits
     * are, before the partition halts; once that many, a partition taken up after halts at its first refusal.
     */
    private final Map<String, Integer> forbiddenLookups = new HashMap<>();
    /** Tables owed a flush that a backoff put off (POST /flush while their catalog calls fail). */
    private final Set<String> flushOwed = new LinkedHashSet<>();
    private final Set<String> opened = new HashSet<>();
    private final Executor stager;
    /** Where a commit's catalog call runs, so that the loop reads and writes on while the catalog answers. */
    private final Executor committer;
    /** Each table's commit under way on {@link #committer}: at most one a table, its outcome taken in by the loop. */
    private final Map<String, InFlight> inFlight = new LinkedHashMap<>();
    /** Tables whose commit is due, waiting for the stagings of the files sealed for it to end. */
    private final Set<String> wanted = new LinkedHashSet<>();
    /** Commits of this consumer that failed or were refused (the tally is shared by every consumer of a sink). */
    private int setbacks;
    /** Polling stops while set; commits go on (POST /pause). */
    private volatile boolean paused;
    private final java.util.concurrent.atomic.AtomicLong flushRequests = new java.util.concurrent.atomic.AtomicLong();
    private long seenFlushes;
    /** Each partition's last offset in Iggy, from the topic's metadata every {@link #LAG_REFRESH} and each poll. */
    private final Map<PartitionRef, Long> ends = new HashMap<>();
    private Instant endsReadAt = Instant.EPOCH;
    /** How many partitions the topic has, as the last poll turn found (0 before it). */
    private int topicPartitions;
    /** Each table's watermark of this topic as this member's last commit to it left it. */
    private final Map<String, dev.iggysink.application.status.TableStatus.Watermark> watermarks =
            new java.util.concurrent.ConcurrentHashMap<>();
    private volatile TableView view;
    /** Told what each commit set, when the self-audit is on. */
    private volatile TableSelfAudit selfAudit;
    /**
     * Partitions this member owns but has not taken up, because the catalog failed to say what their tables hold:
     * the group's offset of each, so that /status keeps listing them and their lag while the catalog is retried.
     */
    private final Map<PartitionRef, Long> waiting = new LinkedHashMap<>();
    static final Duration LAG_REFRESH = Duration.ofSeconds(5);
    /** The poll of the turn's next partition, when one went ahead (see {@link #pollAhead}). */
    private Ahead ahead;
    /**
     * A poll goes ahead only while a batch weighs less than the budget over this: the batch ahead is on the heap
     * beside the one being appended, outside the budget.
     */
    static final int AHEAD_BUDGET_SHARE = 8;
    /**
     * A poll asks for at most {@code batch_length} records and no more than the budget over this holds, by the size of
     * the records read last (as the object sink's polls): a batch is on the heap whole before it is appended, so 1,000
     * records of 1 MiB would run the launcher's 256 MiB heap out.
     */
    static final int BUDGET_SHARE_PER_POLL = 4;
    /** Payload bytes per record in the last poll that read any. */
    private long averageRecordBytes;
    /**
     * Whether a poll read any record yet. Until one did, a poll asks for one record (as the object sink's first): a
     * guess of 64 KiB a record asked 256 records of the default budget's first poll, of 4 MiB records more direct
     * memory than the launcher's heap allows, which the client refused on every retry while the partition stood still.
     */
    private boolean sized;
    private final PollCeiling ceiling = new PollCeiling();
    /**
     * A data file or a commit the store refuses with 403 is tried this often before its partitions halt (max_attempts'
     * default).
     */
    static final int FORBIDDEN_ATTEMPTS = 3;

    /** As {@link #TableConsumer(MessageSource, RecordCodec, TableStore, TableSettings, InstantSource, SinkMetrics,
     * TableTally, Executor)}, staging on the calling thread. */
    public TableConsumer(MessageSource source, RecordCodec codec, TableStore store, TableSettings settings,
                         InstantSource clock, SinkMetrics metrics, TableTally tally) {
        this(source, codec, store, settings, clock, metrics, tally, Runnable::run);
    }

    /**
     * @param stager where sealed files are staged (their data files written), so that writing Parquet and sending it
     *               to the store does not hold up the consumer loop; the loop waits for a file's staging only when
     *               the file is to be committed
     */
    public TableConsumer(MessageSource source, RecordCodec codec, TableStore store, TableSettings settings,
                         InstantSource clock, SinkMetrics metrics, TableTally tally, Executor stager) {
        this(source, codec, store, settings, clock, metrics, tally, stager, Runnable::run);
    }

    /**
     * @param committer where each commit's catalog call runs: the loop goes on reading and writing the next files
     *                  meanwhile, and takes the outcome in at a later step; a table has one commit under way at a
     *                  time, and a commit starts once the files sealed for it are staged, not before
     */
    public TableConsumer(MessageSource source, RecordCodec codec, TableStore store, TableSettings settings,
                         InstantSource clock, SinkMetrics metrics, TableTally tally, Executor stager,
                         Executor committer) {
        this.stager = stager;
        this.committer = committer;
        this.source = source;
        this.codec = codec;
        this.store = store;
        this.settings = settings;
        this.clock = clock;
        this.metrics = metrics;
        this.tally = tally;
        this.view = new TableView(List.of(), List.of(), 0, clock.instant());
    }

    /** From now on, tells {@code audit} what each commit set (the self-audit, issue 48). */
    public void selfAudit(TableSelfAudit audit) {
        this.selfAudit = audit;
    }

    /** A file of one table for one partition: open while records come, then sealed and staged. */
    private static final class Pending {
        final OpenFile file;
        final TableStore.RowFile rows;
        /** The staging under way or done; null before it started and after it failed. */
        CompletableFuture<TableStore.Staged> staging;
        TableStore.Staged staged;
        /** The rows' heap when sealed: held until the data files are written. */
        long heldBytes;
        /** Times the store refused the data files with 403. */
        int forbidden;
        /** In a commit under way: its data files may be in the table, so they are never deleted meanwhile. */
        boolean committing;

        Pending(OpenFile file, TableStore.RowFile rows) {
            this.file = file;
            this.rows = rows;
        }
    }

    /** One table's share of one partition. */
    private final class Lane {
        final Part part;
        final String table;
        /** What this member believes the table's map holds for the partition. */
        long expected;
        /** Which of the store's replacements of the table this lane was built on ({@link TableStore.Replacement}). */
        final long generation;
        /** The table refused this lane's files for good, or they failed on an error nobody expected: not retried. */
        boolean refused;
        /** The last offset appended to this lane (a record retried after another lane failed is not doubled). */
        long appended = -1;
        Pending open;
        /** Sealed files in offset order; a prefix of them is staged. */
        final Deque<Pending> sealed = new ArrayDeque<>();
        /** How many of the first sealed files the table's next commit waits for (sealed when it fell due). */
        int dueFiles;

        Lane(Part part, String table, long expected, long generation) {
            this.part = part;
            this.table = table;
            this.expected = expected;
            this.generation = generation;
        }

        boolean holds(long offset) {
            return offset <= Math.max(expected, appended);
        }

        void append(SinkRecord r, DecodedRecord d) throws BadRecordException, StoreException {
            if (open != null) {
                Optional<RotationReason> before = settings.rotation().beforeAppend(open.file, r.timestampMicros());
                if (before.isPresent()) seal(this, before.get());
            }
            if (open == null) {
                open = new Pending(new OpenFile(part.ref, table, clock.instant()), store.newFile(table));
            }
            open.rows.append(d);
            open.file.add(r.offset(), r.timestampMicros(), r.payload().length);
            appended = r.offset();
            part.encoded += r.payload().length;
            Optional<RotationReason> after = settings.rotation().afterAppend(open.file);
            if (after.isPresent()) seal(this, after.get());
        }

        long firstPending() {
            long first = Long.MAX_VALUE;
            if (!sealed.isEmpty()) first = sealed.peekFirst().file.firstOffset();
            else if (open != null && !open.file.isEmpty()) first = open.file.firstOffset();
            return first;
        }
    }

    /** What this member holds of one assigned partition. */
    private final class Part {
        final PartitionRef ref;
        final long epoch;
        /** The group's stored offset when assigned; records at or below are in the tables or skipped on purpose. */
        final long assignedAt;
        long position;
        long lastCommitted;
        String halted;
        /**
         * The table whose absence halted the partition (dropped, or not created yet): looked up again on its backoff,
         * and the partition read on from the group's offset once it exists.
         */
        String missing;
        /** The store's replacement count of {@link #missing} at the halt, and whether this member had opened it. */
        long missingGeneration;
        boolean missingOpened;
        final Map<String, Lane> lanes = new LinkedHashMap<>();
        /** Record bytes appended to its tables by the current poll, reported once at its end. */
        long encoded;

        Part(PartitionRef ref, long epoch, long committed) {
            this.ref = ref;
            this.epoch = epoch;
            this.assignedAt = committed;
            this.position = committed + 1;
            this.lastCommitted = committed;
        }

        Lane lane(String table) throws StoreException {
            Lane lane = lanes.get(table);
            if (lane != null) return lane;
            if (opened.add(table)) {
                try {
                    store.open(table);
                } catch (StoreException e) {
                    opened.remove(table);
                    throw e;
                }
            }
            // read before the map: a replacement found in between makes this lane stale, never the other way round
            long generation = generation(table);
            long inTable = store.durableOffsets(table, List.of(ref)).getOrDefault(ref, -1L);
            tally.catalog(table).succeeded(clock.instant());
            tally.catalog().succeeded(clock.instant());
            forbiddenLookups.remove(table);
            lane = new Lane(this, table, Math.max(inTable, assignedAt), generation);
            lanes.put(table, lane);
            return lane;
        }

        /** One before the first record read that is not yet in its tables. */
        long commitPoint() {
            long first = position;
            for (Lane lane : lanes.values()) first = Math.min(first, lane.firstPending());
            return first - 1;
        }
    }

    /** One turn: polls every partition once, appends and seals what came, then makes the commits that are due. */
    public int step() throws SourceException {
        int read = 0;
        try {
            if (!paused) {
                List<PartitionRef> all = source.partitions();
                topicPartitions = all.size();
                try {
                    for (int i = 0; i < all.size(); i++) {
                        PartitionRef p = all.get(i);
                        try {
                            read += pollOnce(p, i + 1 < all.size() ? all.get(i + 1) : null);
                        } catch (RuntimeException e) {
                            haltUnexpected(p, "reading it", e);
                        }
                        relieveMemory();
                    }
                } finally {
                    ahead = null; // one not awaited is dropped: the source reads its answer before its next request
                }
            }
            refreshEnds();
            long flushes = flushRequests.get();
            // a flush seals every open file and commits it now, as a graceful stop would; a table whose catalog
            // calls back off is owed it until they are due
            if (flushes != seenFlushes) {
                seenFlushes = flushes;
                for (Part part : parts.values()) flushOwed.addAll(part.lanes.keySet());
            }
            commitDue(null);
        } finally {
            publish();
        }
        return read;
    }

    /**
     * A graceful stop: seals every open file and commits them all, then the group's offsets. What cannot be made
     * durable now is read again by the next owner.
     *
     * @return whether everything read is now in its tables and committed to the group (no partition halted)
     */
    public boolean drain() throws SourceException {
        int before = setbacks;
        commitDue(RotationReason.SHUTDOWN);
        if (setbacks != before) return false;
        for (Part part : parts.values()) {
            if (part.halted != null || part.lastCommitted != part.position - 1) return false;
        }
        return true;
    }

    /** Forgets every partition without committing (the member leaves or is killed); staged files are dropped. */
    public void abandon() {
        for (Part part : List.copyOf(parts.values())) reset(part, "sink stopped", true);
    }

    /** The partitions this member holds now, with their halt reasons (null when consuming). */
    public Map<PartitionRef, String> partitions() {
        Map<PartitionRef, String> out = new LinkedHashMap<>();
        parts.forEach((ref, part) -> out.put(ref, part.halted));
        return out;
    }

    /**
     * The poll of the turn's next partition, sent while this one's records are decoded and appended (as the object
     * sink's, ADR 0012), so that the loop does not wait for each answer in turn: used only by the same {@link Part}
     * at the same position, else dropped.
     */
    private record Ahead(Part part, long from, int size, MessageSource.PendingPoll pending) {
    }

    /** Sends the poll of {@code next}, when it is taken up and reading, and the batch just read was light enough. */
    private void pollAhead(PartitionRef next, long batchBytes) {
        if (next == null || paused || batchBytes * AHEAD_BUDGET_SHARE > settings.maxBufferedBytes()) return;
        Part part = parts.get(next);
        if (part == null || part.halted != null || part.epoch != source.sessionEpoch()) return;
        try {
            int size = pollSize();
            MessageSource.PendingPoll pending = source.startPoll(next, part.position, size);
            if (pending != null) ahead = new Ahead(part, part.position, size, pending);
        } catch (SourceException e) {
            // the poll when its turn comes meets the same failure and is handled there
        }
    }

    /** {@code batch_length}, or fewer records where a quarter of the budget holds fewer of those read last. */
    private int pollSize() {
        long fits = Math.max(1, settings.maxBufferedBytes() / BUDGET_SHARE_PER_POLL / Math.max(1, averageRecordBytes));
        return ceiling.apply((int) Math.min(settings.batchLength(), fits));
    }

    /** The batch polled ahead for {@code part} at {@code from}, or null when none (or it was meant otherwise). */
    private Batch takeAhead(Part part, long from) throws SourceException {
        Ahead a = ahead;
        ahead = null;
        if (a == null || a.part() != part || a.from() != from || part.epoch != source.sessionEpoch()) return null;
        try {
            Batch batch = a.pending().await();
            ceiling.answered(a.size(), batch.records().size());
            return batch;
        } catch (SourceException e) {
            ceiling.failed(e.outOfMemory());
            throw e;
        }
    }

    /**
     * Polls {@code p} once, after a poll of one record while no poll has told how large the records are: that one
     * tells, so that the poll after it is sized by the budget (see {@link #sized}).
     */
    private int pollOnce(PartitionRef p, PartitionRef next) throws SourceException {
        if (sized) return pollOnce(p, next, pollSize());
        int read = pollOnce(p, null, 1);
        return sized ? read + pollOnce(p, next, pollSize()) : read;
    }

    private int pollOnce(PartitionRef p, PartitionRef next, int size) throws SourceException {
        Part part = parts.get(p);
        if (part != null && part.epoch != source.sessionEpoch()) {
            reset(part, "the Iggy session was rebuilt", true);
            part = null;
        }
        if (part != null && part.halted != null) {
            if (part.missing != null) awaitTable(part.missing);
            return 0;
        }
        // taking a partition up asks the catalog about each static table: while one fails, only as often as that
        // table's backoff allows
        if (part == null && (!takeUpDue() || committing(p))) return 0;
        long from = part != null ? part.position : source.committedOffset(p).orElse(-1) + 1;
        Batch batch;
        try {
            batch = part != null ? takeAhead(part, from) : null;
            if (batch == null) batch = poll(p, from, size);
        } catch (PartitionRevokedException e) {
            waiting.remove(p);
            if (part != null) reset(part, "moved to another member", true);
            return 0;
        }
        if (!batch.owned()) {
            waiting.remove(p);
            if (part != null) reset(part, "moved to another member", true);
            return 0;
        }
        if (batch.currentOffset() >= 0) ends.put(p, batch.currentOffset());
        if (part == null) {
            part = assign(p, from - 1, batch.sessionEpoch());
            if (part == null || part.halted != null) return 0;
        }
        long batchBytes = 0;
        for (SinkRecord r : batch.records()) batchBytes += r.payload().length;
        if (!batch.records().isEmpty()) {
            averageRecordBytes = Math.max(1, batchBytes / batch.records().size());
            sized = true;
        }
        pollAhead(next, batchBytes);
        int read = 0;
        long bytes = 0;
        try {
            for (SinkRecord r : batch.records()) {
                if (r.offset() < part.position) continue;
                if (!accept(part, r)) break;
                part.position = r.offset() + 1;
                read++;
                bytes += r.payload().length;
            }
        } finally {
            // once per poll, as the object sink does: a meter lookup per record was 1 % of the thread's samples
            if (part.encoded > 0) metrics.encoded(p, part.encoded);
            part.encoded = 0;
        }
        if (read > 0) metrics.consumed(p, read, bytes);
        return read;
    }

    private Batch poll(PartitionRef p, long from, int size) throws SourceException {
        try {
            Batch batch = source.poll(p, from, size);
            ceiling.answered(size, batch.records().size());
            return batch;
        } catch (SourceException e) {
            ceiling.failed(e.outOfMemory());
            throw e;
        }
    }

    private boolean takeUpDue() {
        Instant now = clock.instant();
        if (!tally.catalog().due(now)) return false;
        for (String table : settings.routing().tables()) {
            if (!tally.catalog(table).due(now)) return false;
        }
        return true;
    }

    /** Takes up a partition just found owned: reads each static table's map, moves the group's offset up to it. */
    private Part assign(PartitionRef p, long committed, long epoch) throws SourceException {
        Part part = new Part(p, epoch, committed);
        long heldByAll = Long.MAX_VALUE;
        for (String table : settings.routing().tables()) {
            try {
                heldByAll = Math.min(heldByAll, part.lane(table).expected);
            } catch (StoreException e) {
                return notTakenUp(part, table, e);
            } catch (RuntimeException e) {
                // not taken up: asked again after the table's backoff, and named in health
                String why = "partition " + p + ": reading it failed on an unexpected error: " + describe(e);
                if (tally.catalog(table).failed(why, clock.instant())) {
                    LOG.log(Level.ERROR, why + "; trying again with backoff", e);
                } else {
                    LOG.log(Level.DEBUG, "{0}; trying again with backoff", why);
                }
                waiting.put(p, committed);
                return null;
            }
        }
        if (!settings.routing().tables().isEmpty() && heldByAll > committed) {
            // Another member committed these to the table but not (yet) to the group: read on from there.
            try {
                source.commit(p, heldByAll);
            } catch (PartitionRevokedException e) {
                return null;
            } catch (SourceException e) {
                if (!e.retryable()) throw e;
                LOG.log(Level.WARNING, "commit of {0} to the group failed, trying again: {1}", p, e.getMessage());
                return null;
            }
            part.lastCommitted = heldByAll;
            part.position = heldByAll + 1;
            metrics.committed(p, heldByAll);
            LOG.log(Level.INFO, "partition {0}: the tables hold offsets up to {1}, past the group''s {2}; "
                    + "committed {1} to the group and reading on from there", p, heldByAll, committed);
        }
        parts.put(p, part);
        waiting.remove(p);
        if (part.position == committed + 1) {
            LOG.log(Level.INFO, "partition {0} taken up: reading from offset {1}", p, part.position);
        }
        return part;
    }

    /**
     * A lookup of {@code table} failed while taking {@code part} up: retried on the table's backoff when the catalog
     * may answer otherwise next time (a retryable failure, the first 403s), else the partition halts with the cause.
     *
     * @return the halted partition, or null when it is to be taken up later
     */
    private Part notTakenUp(Part part, String table, StoreException e) {
        PartitionRef p = part.ref;
        String what = "cannot read the offsets of partition " + p + " in table " + table;
        if (e.retryable()) {
            catalogFailed(table, what, e);
            waiting.put(p, part.assignedAt);
            return null;
        }
        if (e.httpStatus() == 403) {
            if (!forbiddenLookup(part, table, e)) {
                waiting.put(p, part.assignedAt);
                return null;
            }
        } else {
            halt(part, what + ": " + e.getMessage());
            awaitTable(part, table, e);
        }
        parts.put(p, part);
        waiting.remove(p);
        return part;
    }

    /**
     * A lookup of {@code table} for {@code part} refused with 403: as for commits, most often for good, but a grant
     * may be on its way, so tried {@link #FORBIDDEN_ATTEMPTS} times on the table's backoff before the partition halts.
     *
     * @return whether the partition halted
     */
    private boolean forbiddenLookup(Part part, String table, StoreException e) {
        int refusals = forbiddenLookups.merge(table, 1, Integer::sum);
        tally.catalog(table).failed(e.getMessage(), clock.instant());
        if (refusals < FORBIDDEN_ATTEMPTS) {
            LOG.log(Level.INFO, "partition {0}: the lookup of table {1} was refused with 403, trying again ({2} of"
                    + " {3} attempts): {4}", part.ref, table, refusals, FORBIDDEN_ATTEMPTS, e.getMessage());
            return false;
        }
        halt(part, "cannot read the offsets of partition " + part.ref + " in table " + table + ": refused with 403 "
                + refusals + " times in a row: " + e.getMessage() + " (grant the sink read access to the table; it is"
                + " tried again at a restart)");
        return true;
    }

    /**
     * A partition halted on a table that does not exist (404: dropped while the sink ran, or not created yet) is
     * looked up again on the table's backoff, not only at a restart.
     */
    private void awaitTable(Part part, String table, StoreException e) {
        if (e.httpStatus() != 404) return;
        part.missing = table;
        part.missingGeneration = generation(table);
        part.missingOpened = opened.contains(table);
        tally.catalog(table).failed(e.getMessage(), clock.instant());
    }

    /**
     * Looks {@code table} up again, once its backoff has passed, for the partitions halted on its absence. Once it
     * exists (created again: the store found a new table of that name; or created for the first time) they are let
     * go and read again from the group's offset, as after a replacement: the new table's map is empty.
     */
    private void awaitTable(String table) {
        Instant now = clock.instant();
        if (!tally.catalog(table).due(now)) return;
        List<Part> halted = parts.values().stream().filter(x -> table.equals(x.missing)).toList();
        try {
            store.durableOffsets(table, halted.stream().map(x -> x.ref).toList());
        } catch (StoreException | RuntimeException e) {
            if (!tally.catalog(table).failed(e.getMessage(), now)) {
                LOG.log(Level.DEBUG, "table {0} is still missing: {1}", table, e.getMessage());
            }
            return;
        }
        tally.catalog(table).succeeded(now);
        Optional<TableStore.Replacement> replacement = store.replacement(table);
        List<String> resumes = new ArrayList<>();
        for (Part part : halted) {
            part.missing = null;
            // the table answered all along (a 404 of something else, say its bucket): a halt as any other
            if (part.missingOpened && generation(table) == part.missingGeneration) continue;
            resumes.add(part.ref.stream() + "/" + part.ref.topic() + "/" + part.ref.partitionId() + " at "
                    + part.lastCommitted);
            reset(part, "table " + table + " exists again", true);
        }
        if (resumes.isEmpty()) return;
        String line = "table " + table + " exists again" + replacement.map(r -> " (uuid " + r.oldId() + " -> "
                + r.newId() + ")").orElse("") + " at " + now + "; reading resumes from the group's offset: "
                + String.join(", ", resumes);
        LOG.log(Level.WARNING, "{0} (rows the dropped table held went with it)", line);
        tally.replaced(line);
    }

    /** Appends one record to each of its tables; false when the partition must stop here for now (halt or retry). */
    private boolean accept(Part part, SinkRecord r) {
        DecodedRecord decoded;
        List<String> tables;
        try {
            decoded = codec.decode(r);
            tables = settings.routing().tablesFor(decoded);
        } catch (BadRecordException e) {
            return bad(part, r, e.getMessage());
        }
        // One dead letter per offset (its key is the offset's), naming every table that refused the record.
        List<String> refusals = new ArrayList<>();
        for (String table : tables) {
            boolean known = part.lanes.containsKey(table);
            if (!known && !tally.catalog(table).due(clock.instant())) return false;
            try {
                Lane lane = part.lane(table);
                if (lane.holds(r.offset())) continue;
                lane.append(r, decoded);
            } catch (BadRecordException e) {
                refusals.add("table " + table + ": " + e.getMessage());
            } catch (StoreException e) {
                if (e.retryable()) {
                    catalogFailed(table, "partition " + part.ref + " offset " + r.offset() + ": table " + table, e);
                    return false;
                }
                // the lookup of the table was refused, not the record: never a dead letter
                if (!known && e.httpStatus() == 403) {
                    forbiddenLookup(part, table, e);
                    return false;
                }
                refusals.add("table " + table + ": " + e.getMessage());
            }
        }
        return refusals.isEmpty() || bad(part, r, String.join("; ", refusals));
    }

    /**
     * A bad record halts the partition, or under {@code errors_tolerance = "all"} becomes a dead letter. The dead
     * letter is durable before this returns true, so before its offset can be committed to the group or to a table's
     * map; it is rare, so it is written here, on the loop. When it cannot be written the partition stays at the
     * record: read again (the same key is written) or halted when the store refuses it.
     */
    private boolean bad(Part part, SinkRecord r, String why) {
        if (settings.errors() == ErrorTolerance.NONE) {
            tally.badRecord();
            halt(part, "bad record at offset " + r.offset() + ": " + why + " (errors_tolerance = \"none\" halts"
                    + " here; errors_tolerance = \"all\" writes such a record as a dead letter and reads on)");
            return false;
        }
        String key = DeadLetters.key("", settings.dlqPrefix(), r);
        if (!tally.store().due(clock.instant())) return false;
        String where;
        try {
            where = store.writeDeadLetter(key, DeadLetters.content(r, why));
            tally.store().succeeded(clock.instant());
        } catch (StoreException e) {
            if (e.retryable()) {
                if (!tally.store().failed(e.getMessage(), clock.instant())) {
                    LOG.log(Level.DEBUG, "partition {0}: the dead letter of offset {1} could not be written, trying"
                            + " again: {2}", part.ref, r.offset(), e.getMessage());
                }
            } else {
                tally.badRecord();
                halt(part, "the dead letter of the bad record at offset " + r.offset() + " could not be written: "
                        + e.getMessage() + " (the record: " + why + ")");
            }
            return false;
        }
        tally.badRecord();
        tally.deadLettered(where);
        metrics.deadLettered(part.ref);
        LOG.log(Level.WARNING, "partition {0}: dead-lettered the bad record at offset {1} to {2} (errors_tolerance ="
                + " all): {3}", part.ref, r.offset(), where, why);
        return true;
    }

    private void seal(Lane lane, RotationReason reason) {
        Pending p = lane.open;
        lane.open = null;
        if (p.file.isEmpty()) {
            p.rows.discard();
            return;
        }
        lane.sealed.addLast(p);
        p.heldBytes = p.rows.heapBytes();
        metrics.sealed(lane.part.ref, reason, p.file.recordBytes());
        startStaging(p);
    }

    private void startStaging(Pending p) {
        p.staging = CompletableFuture.supplyAsync(() -> {
            try {
                TableStore.Staged staged = p.rows.stage();
                tally.staged(staged.dataFiles(), staged.bytes());
                return staged;
            } catch (StoreException e) {
                throw new CompletionException(e);
            }
        }, stager);
    }

    /**
     * Waits for a sealed file's data files to be written; a failure leaves the file sealed, to be staged again before
     * the next commit.
     */
    private boolean stage(Lane lane, Pending p) {
        if (p.staged != null) return true;
        // a staging that failed since the file was sealed is tried again, once the store's backoff allows
        if (p.staging == null || p.staging.isCompletedExceptionally()) {
            if (!tally.store(lane.table).due(clock.instant())) return false;
            startStaging(p);
        }
        try {
            p.staged = p.staging.join();
            tally.store(lane.table).succeeded(clock.instant());
            return true;
        } catch (CompletionException failed) {
            p.staging = null;
            if (!(failed.getCause() instanceof StoreException e)) {
                refuse(lane, "table " + lane.table + " could not write the data file of offsets "
                        + p.file.firstOffset() + "-" + p.file.lastOffset() + ": " + describe(failed.getCause()));
                return false;
            }
            // A 403 is most often for good, but not always (a new grant still on its way, a single-drive MinIO
            // refusing a put beside a delete): as the object sink's uploads, a few attempts before the halt.
            boolean refused = !e.retryable() && !(e.httpStatus() == 403 && ++p.forbidden < FORBIDDEN_ATTEMPTS);
            if (refused) {
                refuse(lane, "table " + lane.table + " refused the data file of offsets "
                        + p.file.firstOffset() + "-" + p.file.lastOffset() + ": " + e.getMessage());
            } else {
                if (!tally.store(lane.table).failed(e.getMessage(), clock.instant())) {
                    LOG.log(Level.DEBUG, "table {0}: staging offsets {1}-{2} of {3} failed, trying again: {4}",
                            lane.table, p.file.firstOffset(), p.file.lastOffset(), lane.part.ref, e.getMessage());
                }
            }
            return false;
        }
    }

    /**
     * Keeps the rows on the heap under the budget: seals the largest open file early while open files hold more than
     * the files being staged, then waits for stagings, oldest first, until the rows held fit.
     */
    private void relieveMemory() {
        for (int round = 0; round < 1_000; round++) {
            long open = 0;
            long staging = 0;
            Lane largest = null;
            long largestBytes = 0;
            Pending oldest = null;
            for (Part part : parts.values()) {
                for (Lane lane : part.lanes.values()) {
                    if (lane.open != null) {
                        long b = lane.open.rows.heapBytes();
                        open += b;
                        if (b > largestBytes) {
                            largest = lane;
                            largestBytes = b;
                        }
                    }
                    for (Pending p : lane.sealed) {
                        if (p.staged == null && p.staging != null && !p.staging.isDone()) {
                            staging += p.heldBytes;
                            if (oldest == null) oldest = p;
                        }
                    }
                }
            }
            if (open + staging <= settings.maxBufferedBytes()) return;
            if (largest != null && largestBytes >= staging) {
                seal(largest, RotationReason.MEMORY_PRESSURE);
            } else if (oldest != null) {
                oldest.staging.exceptionally(e -> null).join();
            } else {
                return;
            }
        }
    }

    /**
     * Commits the tables whose interval is due, or owed a flush; {@code everything}, when not null, seals and
     * commits all now. A table whose catalog calls fail is put off until its backoff has passed (a stop asks it once
     * more at any rate); the other tables commit on their schedule. A due table's open files are sealed at once, also
     * while its previous commit is under way; its commit starts once they are staged and the previous one ended, runs
     * on the committer while the loop reads on, and is taken in at a later step. With {@code everything} the commits
     * under way are waited for first, and the new ones are made before this returns.
     */
    private void commitDue(RotationReason everything) throws SourceException {
        finishCommits(everything != null);
        Instant now = clock.instant();
        Set<String> tables = new LinkedHashSet<>();
        for (Part part : parts.values()) tables.addAll(part.lanes.keySet());
        flushOwed.retainAll(tables);
        wanted.retainAll(tables);
        for (String table : tables) {
            if (everything != RotationReason.SHUTDOWN && !tally.catalog(table).due(now)) continue;
            boolean busy = inFlight.containsKey(table);
            // a flush asked for while a commit is under way is made after it
            if (busy && flushOwed.contains(table)) continue;
            RotationReason all = everything != null ? everything
                    : flushOwed.remove(table) ? RotationReason.FLUSH : null;
            Instant last = lastCommit.computeIfAbsent(table, t -> now);
            boolean intervalDue = all != null || !now.isBefore(last.plus(settings.commitInterval()));
            // a table waiting for its stagings is not marked again: sealing more would put its commit off further
            boolean marked = wanted.contains(table) && all == null;
            if (!marked && (intervalDue || waiting(table) >= settings.maxFilesPerCommit())) {
                for (Part part : parts.values()) {
                    Lane lane = part.lanes.get(table);
                    if (lane == null) continue;
                    if (intervalDue && lane.open != null) seal(lane, all != null ? all : RotationReason.SCHEDULE);
                    lane.dueFiles = lane.sealed.size();
                }
                lastCommit.put(table, now);
                wanted.add(table);
            }
            // the next commit's files are sealed and staged while one is under way, and it starts once that ends
            if (busy || !wanted.contains(table) || everything == null && !staged(table)) continue;
            wanted.remove(table);
            try {
                commitTable(table, everything != null);
            } catch (RuntimeException e) {
                unexpected(table, e);
            }
        }
        commitGroupOffsets();
    }

    /** Whether the files sealed for the table's due commit are staged (or failed to be: retried at the commit). */
    private boolean staged(String table) {
        for (Part part : parts.values()) {
            Lane lane = part.lanes.get(table);
            if (lane == null) continue;
            int n = 0;
            for (Pending p : lane.sealed) {
                if (n++ >= lane.dueFiles) break;
                if (p.staged == null && p.staging != null && !p.staging.isDone()) return false;
            }
        }
        return true;
    }

    /** An error no store should let out: what the commit covers is halted, the loop and the other tables go on. */
    private void unexpected(String table, RuntimeException e) {
        for (Part part : parts.values()) {
            Lane lane = part.lanes.get(table);
            if (lane == null || lane.sealed.isEmpty() || lane.refused) continue;
            refuse(lane, "table " + table + ": the commit failed on an unexpected error: " + describe(e));
        }
    }

    private int waiting(String table) {
        int n = 0;
        for (Part part : parts.values()) {
            Lane lane = part.lanes.get(table);
            if (lane != null) n += lane.sealed.size();
        }
        return n;
    }

    /** A commit under way: what it offers, and the parts it was made from (a part let go since is not touched). */
    private record InFlight(String table, List<TableStore.Append> appends, Map<PartitionRef, Integer> counts,
                            Map<PartitionRef, Part> parts, List<Pending> files,
                            CompletableFuture<Outcome> outcome) {
    }

    /** A commit's result and how long the catalog took. */
    private record Outcome(TableStore.CommitResult result, Duration took) {
    }

    /** Takes in the commits that ended; with {@code all}, waits for every one under way first. */
    private void finishCommits(boolean all) {
        for (InFlight c : List.copyOf(inFlight.values())) {
            if (!all && !c.outcome().isDone()) continue;
            inFlight.remove(c.table());
            try {
                finish(c);
            } catch (RuntimeException e) {
                unexpected(c.table(), e);
            }
        }
    }

    /** Whether a commit under way covers the partition: it is not taken up again before that commit ends. */
    private boolean committing(PartitionRef p) {
        for (InFlight c : inFlight.values()) {
            if (c.parts().containsKey(p)) return true;
        }
        return false;
    }

    private void commitTable(String table, boolean wait) {
        forgetReplaced(table);
        List<TableStore.Append> appends = new ArrayList<>();
        Map<PartitionRef, Integer> counts = new HashMap<>();
        Map<PartitionRef, Part> from = new HashMap<>();
        List<Pending> offered = new ArrayList<>();
        Map<Integer, Long> completeBefore = new HashMap<>();
        for (Part part : parts.values()) {
            Lane lane = part.lanes.get(table);
            if (lane == null || lane.sealed.isEmpty() || lane.refused) {
                if (lane == null || !lane.refused && lane.sealed.isEmpty() && !pending(lane)) {
                    // nothing of the partition waits for this table: when idle, it is complete up to the wall clock
                    long idle = completeBefore(part, Long.MIN_VALUE, true);
                    if (idle != Long.MIN_VALUE) completeBefore.put(part.ref.partitionId(), idle);
                }
                continue;
            }
            List<TableStore.Staged> files = new ArrayList<>();
            long last = -1;
            long lastMicros = Long.MIN_VALUE;
            Pending unstaged = null;
            for (Pending p : lane.sealed) {
                // a file sealed after the commit fell due and still being staged waits for the next commit
                if (!wait && p.staged == null && p.staging != null && !p.staging.isDone() || !stage(lane, p)) {
                    unstaged = p;
                    break;
                }
                files.add(p.staged);
                offered.add(p);
                last = p.file.lastOffset();
                lastMicros = p.file.lastTimestampMicros();
            }
            if (files.isEmpty()) continue;
            completeBefore.put(part.ref.partitionId(),
                    completeBefore(part, lastMicros, unstaged == null && !pending(lane)));
            // The map covers the offsets after the last file too up to the next record on its way into this table:
            // they are dead letters (durable already) or records of other tables, so the map counts them delivered.
            long next = unstaged != null ? unstaged.file.firstOffset()
                    : lane.open != null && !lane.open.file.isEmpty() ? lane.open.file.firstOffset() : part.position;
            last = Math.max(last, next - 1);
            appends.add(new TableStore.Append(part.ref, lane.expected, last, files));
            counts.put(part.ref, files.size());
            from.put(part.ref, part);
        }
        if (appends.isEmpty()) return;
        PartitionRef any = appends.get(0).partition();
        TableStore.Times times = new TableStore.Times(any.stream(), any.topic(), topicPartitions, completeBefore);
        for (Pending p : offered) p.committing = true;
        CompletableFuture<Outcome> outcome = CompletableFuture.supplyAsync(() -> {
            Instant started = clock.instant();
            try {
                TableStore.CommitResult result = store.commit(table, appends, times);
                return new Outcome(result, Duration.between(started, clock.instant()));
            } catch (StoreException e) {
                throw new CompletionException(e);
            }
        }, wait ? Runnable::run : committer);
        InFlight commit = new InFlight(table, appends, counts, from, offered, outcome);
        if (outcome.isDone()) {
            finish(commit);
        } else {
            inFlight.put(table, commit);
        }
    }

    /** Takes in the outcome of a commit that ended: on the loop, as everything else of the parts it covers. */
    private void finish(InFlight c) {
        for (Pending p : c.files()) p.committing = false;
        String table = c.table();
        List<TableStore.Append> appends = new ArrayList<>();
        for (TableStore.Append a : c.appends()) {
            if (parts.get(a.partition()) == c.parts().get(a.partition())) appends.add(a);
        }
        TableStore.CommitResult result;
        Duration took;
        try {
            Outcome o = c.outcome().join();
            result = o.result();
            took = o.took();
        } catch (CompletionException failed) {
            if (!(failed.getCause() instanceof StoreException e)) {
                throw failed.getCause() instanceof RuntimeException r ? r : failed;
            }
            setbacks++;
            // the store found the table replaced on this very commit: nothing was committed, and nothing of it is due
            if (forgetReplaced(table)) return;
            boolean forbidden = !e.retryable() && e.httpStatus() == 403
                    && forbiddenCommits.merge(table, 1, Integer::sum) < FORBIDDEN_ATTEMPTS;
            if (!e.retryable() && !forbidden) {
                forbiddenCommits.remove(table);
                refuse(table, appends, e);
                return;
            }
            tally.commitFailed(table, "table " + table + ": " + e.getMessage());
            boolean first = tally.catalog(table).failed(e.getMessage(), clock.instant());
            if (forbidden) {
                // refused before anything was committed: the same files are offered again at the next commit
                LOG.log(first ? Level.WARNING : Level.DEBUG, "commit to table {0} refused with 403, trying again"
                        + " ({1} of {2} attempts): {3}", table, forbiddenCommits.get(table), FORBIDDEN_ATTEMPTS,
                        e.getMessage());
                return;
            }
            LOG.log(first ? Level.WARNING : Level.DEBUG, "commit to table {0} failed (its outcome may be unknown);"
                    + " its partitions are looked up again: {1}", table, e.getMessage());
            // The files may be in the table now: keep them, and let the lookup of each partition decide.
            for (TableStore.Append a : appends) {
                Part part = parts.get(a.partition());
                if (part != null) {
                    reset(part, "a commit to table " + table + " failed", false);
                    waiting.put(part.ref, part.lastCommitted);
                }
            }
            return;
        }
        tally.catalog(table).succeeded(clock.instant());
        forbiddenCommits.remove(table);
        PartitionRef topicRef = c.appends().get(0).partition();
        result.watermarkMicros().ifPresent(w -> watermarks.put(table, new dev.iggysink.application.status.TableStatus
                .Watermark(topicRef.stream(), topicRef.topic(), table, Instant.EPOCH.plus(w, ChronoUnit.MICROS))));
        tally.committed(table, took, result.conflicts(), result.refused().size());
        setbacks += result.refused().size();
        // One line per commit, as the object sink logs each upload once; Iceberg's own chatter is at WARN.
        LOG.log(Level.INFO, "table {0}: committed {1} data file(s) up to {2} in {3} ms ({4} conflict(s) retried)",
                // a sealed file of a partitioned table is one data file per table partition it spans
                table, c.appends().stream().filter(a -> result.committed().contains(a.partition()))
                        .flatMap(a -> a.files().stream()).mapToInt(TableStore.Staged::dataFiles).sum(),
                c.appends().stream().filter(a -> result.committed().contains(a.partition()))
                        .map(a -> a.partition().partitionId() + ":" + a.last()).toList(),
                took.toMillis(), result.conflicts());
        List<TableSelfAudit.Commit> audited = new ArrayList<>();
        for (TableStore.Append a : appends) {
            Part part = parts.get(a.partition());
            Lane lane = part.lanes.get(table);
            if (result.committed().contains(a.partition())) {
                List<TableSelfAudit.Span> spans = new ArrayList<>();
                for (int i = c.counts().get(a.partition()); i > 0; i--) {
                    OpenFile done = lane.sealed.removeFirst().file;
                    tally.rowsCommitted(done.recordCount());
                    spans.add(new TableSelfAudit.Span(done.firstOffset(), done.lastOffset(), done.recordCount()));
                }
                lane.dueFiles = Math.max(0, lane.dueFiles - c.counts().get(a.partition()));
                audited.add(new TableSelfAudit.Commit(table, a.partition(), a.last(), spans));
                lane.expected = a.last();
            } else if (result.refused().containsKey(a.partition())) {
                reset(part, "table " + table + " holds offsets up to " + result.refused().get(a.partition())
                        + " of it, past the " + a.expected() + " this member expected: another member committed it",
                        true);
            }
        }
        TableSelfAudit self = selfAudit;
        if (self != null && !audited.isEmpty()) self.committed(audited);
    }

    /** Whether the lane's open file holds records. */
    private static boolean pending(Lane lane) {
        return lane.open != null && !lane.open.file.isEmpty();
    }

    /**
     * The partition's complete-before time in a table once this commit holds its records up to one stamped
     * {@code lastMicros}. {@code drained}: nothing read of it waits for the table after this commit; then, when the
     * partition held nothing past what was read when its end offset was last read, it is idle (Watermark).
     */
    private long completeBefore(Part part, long lastMicros, boolean drained) {
        Long end = ends.get(part.ref);
        boolean idle = drained && part.halted == null && end != null && end <= part.position - 1;
        return Watermark.completeBefore(lastMicros, idle, ChronoUnit.MICROS.between(Instant.EPOCH, endsReadAt),
                Watermark.SKEW_MICROS);
    }

    /** The watermark of this topic in each table as this member's last commit to it left it. Any thread. */
    public Map<String, dev.iggysink.application.status.TableStatus.Watermark> watermarks() {
        return Map.copyOf(watermarks);
    }

    /** The store's count of replacements of {@code table} found so far (0: the table it first loaded). */
    private long generation(String table) {
        return store.replacement(table).map(TableStore.Replacement::count).orElse(0L);
    }

    /**
     * Lets go of every partition with a lane built on an earlier table of this name, dropping its staged files (they
     * belong to the old table, its schema and its location). Each is read again from the group's offset: the new
     * table's map is empty, so the group, not the old table, decides where reading resumes; what the old table held
     * past the group's offset went with it.
     *
     * @return whether any partition was let go
     */
    private boolean forgetReplaced(String table) {
        Optional<TableStore.Replacement> replacement = store.replacement(table);
        if (replacement.isEmpty()) return false;
        List<String> resumes = new ArrayList<>();
        for (Part part : List.copyOf(parts.values())) {
            Lane lane = part.lanes.get(table);
            if (lane == null || lane.generation == replacement.get().count()) continue;
            resumes.add(part.ref.stream() + "/" + part.ref.topic() + "/" + part.ref.partitionId() + " at "
                    + part.lastCommitted);
            reset(part, "table " + table + " was replaced", true);
        }
        if (resumes.isEmpty()) return false;
        String line = "table " + table + " was replaced (uuid " + replacement.get().oldId() + " -> "
                + replacement.get().newId() + ") at " + clock.instant() + "; reading resumes from the group's offset: "
                + String.join(", ", resumes);
        LOG.log(Level.WARNING, "{0} (rows the old table held went with it)", line);
        tally.replaced(line);
        return true;
    }

    /**
     * A commit the table refused for good: its partitions halt with the cause, their files are not offered again; when
     * the table is gone, until it exists again.
     */
    private void refuse(String table, List<TableStore.Append> appends, StoreException e) {
        for (TableStore.Append a : appends) {
            Part part = parts.get(a.partition());
            if (part == null) continue;
            refuse(part.lanes.get(table), "table " + table + " refused the commit of offsets " + (a.expected() + 1)
                    + "-" + a.last() + ": " + e.getMessage());
            awaitTable(part, table, e);
        }
    }

    /** A lane whose files are refused for good: they are neither staged nor offered to a commit again. */
    private static void refuse(Lane lane, String why) {
        lane.refused = true;
        halt(lane.part, why);
    }

    private void haltUnexpected(PartitionRef p, String doing, RuntimeException e) {
        Part part = parts.get(p);
        String why = doing + " failed on an unexpected error: " + describe(e);
        if (part == null) {
            // not taken up yet: nothing to halt; asked again after the catalog's backoff, and named in health
            if (tally.catalog().failed("partition " + p + ": " + why, clock.instant())) {
                LOG.log(Level.ERROR, "partition " + p + ": " + why + "; trying again with backoff", e);
            } else {
                LOG.log(Level.DEBUG, "partition {0}: {1}; trying again with backoff", p, why);
            }
            return;
        }
        halt(part, why);
    }

    /** Stops reading a partition until a restart (on a missing table: until it exists); the first cause stays. */
    private static void halt(Part part, String why) {
        if (part.halted != null) return;
        part.halted = why;
        LOG.log(Level.ERROR, "partition {0} halted: {1}", part.ref, why);
    }

    private static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    private void commitGroupOffsets() throws SourceException {
        for (Part part : List.copyOf(parts.values())) {
            long point = part.commitPoint();
            if (point <= part.lastCommitted) continue;
            try {
                long stored = source.committedOffset(part.ref).orElse(-1);
                if (stored > part.lastCommitted) {
                    // Another member moved the group's offset: this member's view of the partition is stale.
                    reset(part, "another member committed it", true);
                    continue;
                }
                source.commit(part.ref, point);
                part.lastCommitted = point;
                metrics.committed(part.ref, point);
            } catch (PartitionRevokedException e) {
                reset(part, "moved to another member", true);
            } catch (SourceException e) {
                if (!e.retryable()) throw e;
                LOG.log(Level.WARNING, "commit of {0} to the group failed, trying again: {1}", part.ref,
                        e.getMessage());
            }
        }
    }

    /**
     * Forgets a partition: its open rows are let go, and its staged files deleted when {@code dropStaged} (never
     * after a commit whose outcome is unknown, nor those of a commit under way: they may be in the table).
     */
    private void reset(Part part, String why, boolean dropStaged) {
        parts.remove(part.ref);
        for (Lane lane : part.lanes.values()) {
            if (lane.open != null) lane.open.rows.discard();
            for (Pending p : lane.sealed) {
                if (p.committing) continue;
                if (p.staged != null) {
                    if (dropStaged) store.discard(p.staged);
                } else if (p.staging != null) {
                    // never in a commit: whatever it writes is dropped once written
                    p.staging.thenAccept(store::discard);
                } else {
                    p.rows.discard();
                }
            }
        }
        LOG.log(Level.INFO, "partition {0} let go ({1}); it is looked up again when polled", part.ref, why);
    }

    /** A retryable catalog call about {@code table} failed: one line when this starts its outage, else at debug. */
    private void catalogFailed(String table, String what, StoreException e) {
        if (!tally.catalog(table).failed(e.getMessage(), clock.instant())) {
            LOG.log(Level.DEBUG, "{0}, trying again: {1}", what, e.getMessage());
        } else {
            LOG.log(Level.INFO, "{0}; trying again with backoff", what);
        }
    }

    /** Stops polling ({@code true}) or resumes it; what was read is still sealed and committed. Any thread. */
    public void pause(boolean pause) {
        paused = pause;
    }

    /** Asks the next {@link #step} to seal every open file and commit it. Any thread. */
    public void flush() {
        flushRequests.incrementAndGet();
    }

    /** What the loop published at the end of its last step. Any thread. */
    public TableView view() {
        return view;
    }

    /** Reads each partition's end offset from the topic's metadata, also while paused, so the lag stays current. */
    private void refreshEnds() {
        Instant now = clock.instant();
        if (now.isBefore(endsReadAt.plus(LAG_REFRESH))) return;
        endsReadAt = now;
        try {
            ends.putAll(source.endOffsets());
        } catch (SourceException e) {
            LOG.log(Level.DEBUG, "reading the end offsets failed; trying again later: {0}", e.getMessage());
        }
    }

    private void publish() {
        List<dev.iggysink.application.status.PartitionStatus> partitions = new ArrayList<>();
        List<dev.iggysink.application.status.TableStatus.Lane> lanes = new ArrayList<>();
        long buffered = 0;
        for (Part part : parts.values()) {
            long records = 0;
            long bytes = 0;
            int open = 0;
            int sealed = 0;
            long oldest = Long.MAX_VALUE;
            long end = ends.getOrDefault(part.ref, -1L);
            for (Lane lane : part.lanes.values()) {
                long openRecords = 0;
                if (lane.open != null && !lane.open.file.isEmpty()) {
                    open++;
                    openRecords = lane.open.file.recordCount();
                    bytes += lane.open.rows.heapBytes();
                    oldest = Math.min(oldest, lane.open.file.firstTimestampMicros());
                }
                for (Pending p : lane.sealed) {
                    records += p.file.recordCount();
                    if (p.staged == null) bytes += p.heldBytes;
                    oldest = Math.min(oldest, p.file.firstTimestampMicros());
                }
                records += openRecords;
                sealed += lane.sealed.size();
                lanes.add(new dev.iggysink.application.status.TableStatus.Lane(part.ref.stream(), part.ref.topic(),
                        part.ref.partitionId(), lane.table, part.position - 1, lane.expected, part.lastCommitted, end,
                        lane.sealed.size(), openRecords, Optional.ofNullable(part.halted)));
            }
            buffered += bytes;
            Optional<Instant> pendingSince = oldest == Long.MAX_VALUE ? Optional.empty()
                    : Optional.of(Instant.EPOCH.plus(oldest, java.time.temporal.ChronoUnit.MICROS));
            partitions.add(new dev.iggysink.application.status.PartitionStatus(part.ref.stream(), part.ref.topic(),
                    part.ref.partitionId(), true, part.position, part.lastCommitted, end, records, bytes, open, sealed,
                    Optional.empty(), Optional.empty(), 0, Optional.ofNullable(part.halted), part.halted != null,
                    pendingSince));
        }
        Optional<String> catalogTrouble = tally.catalogTrouble();
        waiting.forEach((ref, committed) -> partitions.add(new dev.iggysink.application.status.PartitionStatus(
                ref.stream(), ref.topic(), ref.partitionId(), true, committed + 1, committed,
                ends.getOrDefault(ref, -1L), 0, 0, 0, 0, Optional.empty(), Optional.empty(), 0,
                catalogTrouble.map(t -> "not taken up yet: " + t), false, Optional.empty())));
        view = new TableView(partitions, lanes, buffered, clock.instant());
    }
}
