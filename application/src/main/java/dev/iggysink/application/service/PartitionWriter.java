package dev.iggysink.application.service;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.buffer.OpenFile;
import dev.iggysink.domain.buffer.SealedFile;
import dev.iggysink.domain.delivery.DeliveryLedger;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.rotation.RotationPolicy;
import dev.iggysink.domain.rotation.RotationReason;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Orchestrates one partition: decode, pick the open file, let the rotation policy decide, seal, hand sealed files to
 * the uploader, and keep the ledger that says how far the group's offset may move. Rules live in the domain; this
 * class only drives them. Its uploads in flight are counted by an {@link UploadTally}, what the status page shows
 * besides is kept in {@link PartitionNotes}. Used by one consumer loop thread; upload results come back through that
 * thread too.
 */
final class PartitionWriter {
    private static final System.Logger LOG = System.getLogger(PartitionWriter.class.getName());

    /** An open file and the encoder building its bytes. */
    private static final class Slot {
        final OpenFile file;
        final FileEncoder encoder;
        long reserved;
        /** The identity of the file's first and last record (see {@link ObjectStamps}). */
        MessageId firstId;
        long firstTimestamp;
        MessageId lastId;
        long lastTimestamp;
        /** Dead letters of records inside this file's range: the file is uploaded only once they are durable. */
        List<CompletableFuture<Boolean>> deadLetters;
        /** The file goes under the topic's late/ folder ({@code late_records = "late_path"}). */
        boolean late;

        Slot(OpenFile file, FileEncoder encoder) {
            this.file = file;
            this.encoder = encoder;
        }
    }

    private final PartitionRef partition;
    private final RecordCodec codec;
    private final FileLayout layout;
    private final RotationPolicy policy;
    private final int maxOpenFiles;
    private final ErrorTolerance tolerance;
    private final String dlqPrefix;
    private final MemoryBudget budget;
    private final InstantSource clock;
    private final SinkMetrics metrics;
    /** Hands a sealed file over for upload, with this writer and its generation when the file was sealed. */
    interface HandOff {
        void upload(PartitionWriter from, UploadJob job, long generation);

        /** The writer's generation moved on: uploads of older ones are no longer wanted. */
        default void generationEnded(PartitionWriter from) {
        }
    }

    private final HandOff upload;

    private final Map<String, Slot> open = new LinkedHashMap<>();
    private DeliveryLedger ledger;
    /** Read by upload threads too: an upload of an older generation is not tried again. */
    private volatile long generation;
    private boolean owned;
    private String halted;
    /** The first halt of this partition, kept across revocations: a stop after it is never clean. */
    private String everHalted;
    private final UploadTally uploads = new UploadTally();
    private final PartitionNotes notes = new PartitionNotes();
    /** The next sealed file is this generation's first since the partition was assigned (see Uploader). */
    private boolean firstFileSinceAssignment;
    /** Whether this generation claims each file's range before it is uploaded ({@link Claims}). */
    private boolean claiming;
    /** The previous file's answer: the next file of this generation waits for it before its own cut is settled. */
    private CompletableFuture<Boolean> chainTail = CompletableFuture.completedFuture(true);
    /** Claims of this generation's files not yet committed past: (last offset, claim key), in order. */
    private final java.util.ArrayDeque<Map.Entry<Long, String>> openClaims = new java.util.ArrayDeque<>();
    /** A claimed cut adopted at assignment: the file starting at {@code forcedFirst} ends exactly at forcedLast. */
    private long forcedFirst = -1;
    private long forcedLast = -1;
    /** The run claim this generation's files follow, its own or another member's; null when none. */
    private RunCut run;
    /** The partition's highest offset, as the last poll or the topic's metadata said (-1 unknown). */
    private long head = -1;
    /** The claims of this sink's space while this generation claims its files; null otherwise. */
    private Claims claims;
    /** Record bytes encoded by the current {@link #accept}, reported once at its end. */
    private long encodedBytes;
    /**
     * (offset, Iggy timestamp in µs) of the first new record of each poll and of each file: the oldest record not yet
     * committed is the one after the commit point, and its time is the last mark at or before it (timestamps never
     * decrease along a partition). Exact at file starts, where the commit point always lands with one open file.
     */
    private final java.util.ArrayDeque<long[]> marks = new java.util.ArrayDeque<>();
    /** The group's offset read by an assignment that waits for the store; -2 when no assignment waits. */
    private long waitingAt = -2;
    /** Told of each durable file of the current generation (completeness markers), or null. */
    private java.util.function.BiConsumer<PartitionWriter, UploadResult> onDurable;

    /** Whether a record that opens a file is late ({@code late_records = "late_path"}, ADR 0016). */
    interface LateRule {
        /** {@code latestBefore}: the latest time of a record this generation put in a file before it. */
        boolean late(PartitionWriter writer, long recordMicros, long latestBefore);
    }

    private LateRule lateRule;
    /** The latest time of a record this generation put in a file. */
    private long latestMicros = Long.MIN_VALUE;
    /** Keys of this generation's files that went under late/ and are not durable yet. */
    private final java.util.Set<String> routedLate = new java.util.HashSet<>();
    /** Whether the claimed cut adopted at assignment went under late/. */
    private boolean forcedLate;
    /**
     * This generation's durable objects not yet committed past, when the self-audit checks each committed one (null
     * otherwise): uploads end in any order, so a commit takes every entry at or below its offset.
     */
    private List<SelfAudit.Committed> durableObjects;

    private PartitionWriter(PartitionRef partition, long committed, RecordCodec codec, FileLayout layout,
                    RotationPolicy policy, int maxOpenFiles, ErrorTolerance tolerance, String dlqPrefix,
                    MemoryBudget budget, InstantSource clock, SinkMetrics metrics,
                    HandOff upload) {
        this.partition = partition;
        this.codec = codec;
        this.layout = layout;
        this.policy = policy;
        this.maxOpenFiles = maxOpenFiles;
        this.tolerance = tolerance;
        this.dlqPrefix = dlqPrefix;
        this.budget = budget;
        this.clock = clock;
        this.metrics = metrics;
        this.upload = upload;
        this.ledger = new DeliveryLedger(partition, committed);
    }

    PartitionRef partition() {
        return partition;
    }

    void onDurable(java.util.function.BiConsumer<PartitionWriter, UploadResult> listener) {
        this.onDurable = listener;
    }

    void lateRule(LateRule rule) {
        this.lateRule = rule;
    }

    /** Whether the file {@code key} of this generation went under late/; asked once, when it is durable. */
    boolean routedLate(String key) {
        return routedLate.remove(key);
    }

    /** Keeps each durable object until a commit passes it, for {@link #durableUpTo}. */
    void keepDurableObjects() {
        if (durableObjects == null) durableObjects = new ArrayList<>();
    }

    long position() {
        return ledger.position();
    }

    long generation() {
        return generation;
    }

    boolean halted() {
        return halted != null;
    }

    Optional<String> haltReason() {
        return Optional.ofNullable(halted);
    }

    boolean owned() {
        return owned;
    }

    void currentOffset(long offset) {
        notes.currentOffset(offset);
        head = offset;
    }

    /**
     * A writer starts unowned: ownership (and the committed offset it starts from) is learnt from the first poll
     * that answers owned, never from what was read before it arrived.
     */
    PartitionWriter(PartitionRef partition, RecordCodec codec, FileLayout layout, RotationPolicy policy,
                    int maxOpenFiles, ErrorTolerance tolerance, String dlqPrefix, MemoryBudget budget,
                    InstantSource clock, SinkMetrics metrics, HandOff upload) {
        this(partition, -1, codec, layout, policy, maxOpenFiles, tolerance, dlqPrefix, budget, clock, metrics,
                upload);
    }

    /**
     * Appends the records of one poll. Stops at a bad record under {@code errors_tolerance = none}: that record and
     * the ones after it stay unread, so nothing past it can be committed.
     */
    void accept(List<SinkRecord> records) {
        try {
            acceptAll(records);
        } finally {
            // Once per poll, not per record: the metrics registry's lookup costs more than the counting.
            if (encodedBytes > 0) metrics.encoded(partition, encodedBytes);
            encodedBytes = 0;
        }
    }

    private void acceptAll(List<SinkRecord> records) {
        for (SinkRecord record : records) {
            if (record.offset() >= ledger.position()) {
                mark(record);
                break;
            }
        }
        for (SinkRecord record : records) {
            if (halted != null) return;
            if (record.offset() < ledger.position()) continue; // a poll overlapping what was already read
            DecodedRecord decoded;
            try {
                decoded = codec.decode(record);
            } catch (BadRecordException e) {
                badRecord(record, e);
                continue;
            }
            append(record, decoded);
        }
    }

    private void append(SinkRecord record, DecodedRecord decoded) {
        String directory = maxOpenFiles <= 1 && !open.isEmpty() ? null : layout.directory(partition, decoded);
        Slot slot = maxOpenFiles <= 1 ? (open.isEmpty() ? null : open.values().iterator().next())
                : open.get(directory);
        if (forcedFirst >= 0 && !forcedCutFits(slot, record)) return;
        if (run != null) {
            // A stretch of the run whose last records were dead-lettered ends at its last record in a file.
            if (!run.bySize() && cell(slot) && record.offset() > run.cellEnd(slot.file.firstOffset())) {
                seal(slot, RotationReason.CLAIM);
                slot = null;
            }
            if (record.offset() > run.end()) run = null;
        }
        if (slot != null && !slot.file.isEmpty() && !forced(slot) && !cell(slot)) {
            Optional<RotationReason> before = policy.beforeAppend(slot.file, record.timestampMicros());
            if (before.isPresent()) {
                seal(slot, before.get());
                slot = null;
            }
        }
        if (slot == null) {
            if (directory == null) directory = layout.directory(partition, decoded);
            // A claimed cut keeps the folder its member chose; otherwise the rule decides, from what was read before.
            // A run's files are never late: their member routed none there (runs are made only without the rule).
            boolean late = forcedFirst >= 0 && record.offset() == forcedFirst ? forcedLate
                    : !inRun(record.offset()) && lateRule != null
                    && lateRule.late(this, record.timestampMicros(), latestMicros);
            if (late) directory = layout.lateDirectory(partition, directory);
            Optional<String> keyProblem = layout.keyProblem(directory, partition, record.offset());
            if (keyProblem.isPresent()) {
                badRecord(record, new BadRecordException(keyProblem.get()));
                return;
            }
            slot = openSlot(directory);
            slot.late = late;
        }
        long recordBytes;
        try {
            recordBytes = slot.encoder.append(decoded);
        } catch (BadRecordException e) {
            if (slot.file.isEmpty()) dropSlot(slot);
            badRecord(record, e);
            return;
        }
        if (slot.file.isEmpty()) {
            mark(record);
            ledger.opened(record.offset());
            slot.firstId = record.id();
            slot.firstTimestamp = record.timestampMicros();
        }
        slot.lastId = record.id();
        slot.lastTimestamp = record.timestampMicros();
        slot.file.add(record.offset(), record.timestampMicros(), recordBytes);
        latestMicros = Math.max(latestMicros, record.timestampMicros());
        ledger.read(record.offset());
        // The budget holds what the heap carries: the record bytes, or the encoder's buffer when it runs ahead. Only
        // ever more: an encoder's own figure may drop (Parquet compresses a page), and the heap it held until then
        // is not known to be free before the file is gone.
        long held = Math.max(slot.file.recordBytes(), slot.encoder.heapBytes());
        if (held > slot.reserved) {
            budget.reserve(held - slot.reserved);
            slot.reserved = held;
        }
        encodedBytes += recordBytes;
        Slot target = slot;
        if (forced(target)) {
            if (record.offset() >= forcedLast) {
                forcedFirst = -1;
                forcedLast = -1;
                seal(target, RotationReason.CLAIM);
            }
            return;
        }
        if (cell(target)) {
            RunCut r = run;
            if (r.bySize()) {
                r.limits().afterAppend(target.file).ifPresent(reason -> seal(target, reason));
                // A file still open at the run's end is cut past it: not the run's, it is claimed at its start.
                if (record.offset() >= r.end()) run = null;
                return;
            }
            long end = r.cellEnd(target.file.firstOffset());
            if (record.offset() >= end) {
                // A whole stretch is the count cut it stands for; one short of dead letters is the run's cut.
                seal(target, target.file.recordCount() == r.stride() ? RotationReason.COUNT : RotationReason.CLAIM);
                if (end >= r.end()) run = null;
            }
            return;
        }
        policy.afterAppend(target.file).ifPresent(reason -> seal(target, reason));
    }

    private boolean inRun(long offset) {
        return run != null && run.holds(offset);
    }

    /** Whether {@code slot} holds a file of the run (but not a claimed cut adopted with it: {@link #forced}). */
    private boolean cell(Slot slot) {
        return slot != null && !slot.file.isEmpty() && !forced(slot) && inRun(slot.file.firstOffset());
    }

    private Slot openCell() {
        if (run == null) return null;
        for (Slot s : open.values()) if (cell(s)) return s;
        return null;
    }

    /**
     * Whether the file about to be sealed begins a run claim: a count cut (the rotation's only limit) of a file
     * without gaps, claimed while the partition already holds at least one more such file's records (so that
     * everyone who follows the run can read its files to their ends at once: a run never makes a file wait for
     * records not yet sent). Returns the run's last offset, or -1.
     */
    private long runFor(Slot slot, SealedFile file, RotationReason reason) {
        if (!claiming || claims == null || !claims.knownOn() || layout.firstOffsetKeys() || lateRule != null
                || maxOpenFiles > 1 || run != null || forcedFirst >= 0 || slot.deadLetters != null || slot.late) {
            return -1;
        }
        if (policy.maxBytes().isPresent()) return sizeRunFor(file, reason);
        // Only under a count alone: a run's files ignore the other limits (size, record time), which would cut them
        // elsewhere than every stride.
        if (reason != RotationReason.COUNT || policy.maxRecordSpan().isPresent()) return -1;
        long stride = file.lastOffset() - file.firstOffset() + 1;
        if (stride != file.recordCount() || head <= file.lastOffset()) return -1;
        long files = Math.min(Claims.MAX_RUN_FILES, Math.min(Claims.MAX_RUN_SPAN / stride,
                (head - file.firstOffset() + 1) / stride));
        if (files < 2) return -1;
        run = RunCut.ofStrides(file.firstOffset(), stride, file.firstOffset() + files * stride - 1);
        return run.end();
    }

    /**
     * As {@link #runFor}, under a size limit (docs/adr/0022-run-claims-of-size-cuts.md): a file cut by the rotation's
     * limits, claimed while the partition holds at least as many records again, begins a run up to the partition's
     * last offset (at most {@link Claims#MAX_RUN_FILES} files of this one's offsets, at most
     * {@link Claims#MAX_RUN_SPAN} offsets). The files after it are cut by the same limits from its end.
     */
    private long sizeRunFor(SealedFile file, RotationReason reason) {
        if (reason != RotationReason.SIZE && reason != RotationReason.COUNT) return -1;
        Optional<String> rule = RunCut.sizeRule(codec, policy);
        long span = file.lastOffset() - file.firstOffset() + 1;
        if (rule.isEmpty() || head - file.lastOffset() < span) return -1;
        Optional<RotationPolicy> limits = RunCut.limitsOf(codec, rule.get());
        if (limits.isEmpty()) return -1;
        run = RunCut.ofSizeCuts(file.firstOffset(),
                Math.min(head, file.firstOffset() + Math.min(Claims.MAX_RUN_SPAN, Claims.MAX_RUN_FILES * span) - 1),
                rule.get(), limits.get());
        return run.end();
    }

    /**
     * Right after {@link #assigned}: the lookup ended inside a run claim's range (or at its start), so this
     * generation's files follow its cuts to its end; its claim is removed once this member commits past that end.
     */
    void follow(Claims.Run claimed, long committed) {
        if (claimed.runEnd() <= committed) return;
        RotationPolicy limits = null;
        if (claimed.rule() != null) {
            limits = RunCut.limitsOf(codec, claimed.rule()).orElse(null);
            if (limits == null) {
                // Its files are cut where their records' bytes reach a limit, counted as this member cannot count
                // them: any file of its own there could overlap one of the run's still in flight.
                halt("stream " + partition.stream() + ", topic " + partition.topic() + ", partition "
                        + partition.partitionId() + ": offsets " + claimed.first() + "-" + claimed.runEnd()
                        + " were claimed as a run of files cut by size (" + claimed.rule() + "), but this member"
                        + " formats records as "
                        + codec.sizeRule().orElse("a codec without a size rule") + " (do all members run the same"
                        + " format, schema and transforms?). The partition is halted; nothing past offset "
                        + committed + " is committed", true);
                return;
            }
        }
        run = limits != null ? RunCut.ofSizeCuts(claimed.first(), claimed.runEnd(), claimed.rule(), limits)
                : RunCut.ofStrides(claimed.first(), claimed.stride(), claimed.runEnd());
        if (committed + 1 == claimed.first()) {
            // The run's first file is the one its claim names: cut exactly there, as for a claim of one file.
            forcedFirst = claimed.first();
            forcedLast = claimed.last();
            forcedLate = false;
        } else if (claims != null) {
            openClaims.add(Map.entry(claimed.runEnd(), claims.key(partition, claimed.first())));
        }
        LOG.log(Level.INFO, "partition " + partition + ": offsets " + claimed.first() + "-" + claimed.runEnd()
                + " were claimed as a run of files of " + run.describe() + "; this member cuts its files there from"
                + " offset " + (committed + 1));
    }

    /** Whether {@code slot} holds the file whose cut a claim decided. */
    private void mark(SinkRecord record) {
        long[] last = marks.peekLast();
        if (last == null || last[0] < record.offset()) {
            marks.addLast(new long[] {record.offset(), record.timestampMicros()});
        }
    }

    /** The Iggy timestamp of the oldest record read and not yet committed; forgets marks no longer needed. */
    private Optional<Instant> oldestPending() {
        long next = ledger.lastCommitted() + 1;
        if (ledger.position() <= next) {
            marks.clear();
            return Optional.empty();
        }
        while (marks.size() > 1 && secondMark() <= next) marks.pollFirst();
        long[] first = marks.peekFirst();
        return first == null ? Optional.empty()
                : Optional.of(Instant.EPOCH.plus(first[1], java.time.temporal.ChronoUnit.MICROS));
    }

    private long secondMark() {
        Iterator<long[]> it = marks.iterator();
        it.next();
        return it.next()[0];
    }

    private boolean forced(Slot slot) {
        return forcedFirst >= 0 && slot != null && !slot.file.isEmpty() && slot.file.firstOffset() == forcedFirst;
    }

    /**
     * Whether {@code record} can go on under the claimed cut: the claimed file must start with record forcedFirst and
     * end with record forcedLast, as it did for the member that claimed it. When this member cannot build that file
     * (its configuration turns one of those records into a bad record), uploading another cut would put records in
     * two objects: the partition halts instead.
     */
    private boolean forcedCutFits(Slot slot, SinkRecord record) {
        boolean startsRight = forced(slot) || (slot == null || slot.file.isEmpty()) && record.offset() == forcedFirst;
        if (startsRight && record.offset() <= forcedLast) return true;
        halt("stream " + partition.stream() + ", topic " + partition.topic() + ", partition "
                + partition.partitionId() + ": the claim "
                + (claims == null ? "at offset " + forcedFirst : claims.key(partition, forcedFirst))
                + " says another member cut offsets " + forcedFirst + "-" + forcedLast + " into one file, but this"
                + " member cannot build that file (record " + (startsRight ? forcedLast : forcedFirst) + " is not in"
                + " its file: do all members run the same configuration?). The partition is halted; nothing past"
                + " offset " + ledger.lastCommitted() + " is committed", true);
        return false;
    }

    /**
     * Opens the file of {@code directory}. Upstream behaviour (one open file, its path from its first record) unless
     * several open files are allowed; then each record goes to the file of its own rendered path, and at the bound
     * the oldest open file is sealed.
     */
    private Slot openSlot(String directory) {
        if (open.size() >= Math.max(1, maxOpenFiles)) {
            Slot oldest = open.values().iterator().next();
            seal(oldest, maxOpenFiles <= 1 ? RotationReason.PATH_CHANGE : RotationReason.OPEN_FILE_LIMIT);
        }
        Slot slot = new Slot(new OpenFile(partition, directory, clock.instant()), codec.newFile());
        open.put(directory, slot);
        return slot;
    }

    private void dropSlot(Slot slot) {
        open.remove(slot.file.directory());
    }

    private void badRecord(SinkRecord record, BadRecordException e) {
        String where = "stream " + partition.stream() + ", topic " + partition.topic() + ", partition "
                + partition.partitionId() + ", offset " + record.offset();
        if (tolerance == ErrorTolerance.NONE) {
            // The records before it stay in their open file: a stop seals and commits them.
            halt("bad record at " + where + ": " + e.getMessage()
                    + " (errors_tolerance = \"none\": the partition is halted; nothing past it is committed)", false);
            return;
        }
        // errors_tolerance = all: the record becomes a one-record dead-letter file that gates commits like any other.
        String key = DeadLetters.key(layout.prefix(), dlqPrefix, record);
        byte[] content = DeadLetters.content(record, e.getMessage());
        mark(record);
        ledger.opened(record.offset());
        ledger.read(record.offset());
        SealedFile file = new SealedFile(partition, key, record.offset(), record.offset(), 1, content.length,
                record.timestampMicros(), RotationReason.DEAD_LETTER);
        ledger.sealed(file);
        budget.reserve(content.length);
        metrics.deadLettered(partition);
        LOG.log(Level.WARNING, "dead-lettered record at " + where + " to " + key + ": " + e.getMessage());
        FileBytes bytes = FileBytes.of(content);
        // A file of a run of size cuts still open at the run's end is not the run's: its cut lies past it.
        if (run != null && run.bySize() && record.offset() >= run.end()) run = null;
        UploadJob job = new UploadJob(file, () -> bytes, "application/json", content.length, UploadJob.Check.NONE,
                ObjectStamps.of(record), CompletableFuture.completedFuture(true), new CompletableFuture<>(), null, -1);
        // A file around this record must not be in the store while the record is in no object.
        for (Slot s : open.values()) {
            if (s.file.isEmpty()) continue;
            if (s.deadLetters == null) s.deadLetters = new ArrayList<>();
            s.deadLetters.add(job.settled());
        }
        submit(job);
    }

    private void seal(Slot slot, RotationReason reason) {
        open.remove(slot.file.directory());
        String key = layout.key(slot.file.directory(), partition, slot.file.firstOffset(), slot.file.lastOffset());
        SealedFile file = slot.file.seal(key, reason);
        ledger.sealed(file);
        if (slot.late) routedLate.add(key);
        // The file keeps its share of the budget until its upload ends; framing and compression run on the upload
        // thread (the encoder is handed over and no longer touched here).
        // The supplier lets go of the encoder once it finished the file, so the encoder's buffer is garbage while
        // the finished bytes wait for the store (a pending file is then held once, not twice).
        AtomicReference<FileEncoder> encoder = new AtomicReference<>(slot.encoder);
        boolean first = firstFileSinceAssignment && maxOpenFiles <= 1;
        firstFileSinceAssignment = false;
        boolean creating = layout.firstOffsetKeys();
        long fileRunEnd = runFor(slot, file, reason);
        // A run claim decides the files after its first: they need no claim of their own.
        RunCut r = run;
        boolean inClaimedRun = r != null && file.firstOffset() > r.start() && file.firstOffset() <= r.end();
        if (r != null && file.firstOffset() == r.start()) fileRunEnd = r.end();
        UploadJob.Check check = creating ? UploadJob.Check.CREATE
                : claiming ? (inClaimedRun ? UploadJob.Check.NONE
                        : first ? UploadJob.Check.CLAIM_FIRST : UploadJob.Check.CLAIM)
                : first ? UploadJob.Check.OTHER_COPY : UploadJob.Check.NONE;
        if (claiming && !creating && !inClaimedRun) {
            openClaims.add(Map.entry(fileRunEnd >= 0 ? fileRunEnd : file.lastOffset(),
                    claims.key(partition, file.firstOffset())));
        }
        CompletableFuture<Boolean> ready = chainTail;
        if (slot.deadLetters != null) {
            for (CompletableFuture<Boolean> letter : slot.deadLetters) ready = ready.thenCombine(letter, Boolean::logicalAnd);
        }
        CompletableFuture<Boolean> settled = new CompletableFuture<>();
        chainTail = settled;
        Map<String, String> metadata = ObjectStamps.of(file.firstOffset(), file.lastOffset(), file.recordCount(),
                ObjectStamps.stamp(file.firstOffset(), slot.firstId, slot.firstTimestamp),
                ObjectStamps.stamp(file.lastOffset(), slot.lastId, slot.lastTimestamp));
        submit(new UploadJob(file, () -> encoder.getAndSet(null).finish(), codec.contentType(), slot.reserved,
                check, metadata, ready, settled, claiming ? claims : null, fileRunEnd,
                fileRunEnd >= 0 ? r.rule() : null));
    }

    private void submit(UploadJob job) {
        uploads.handedOver();
        upload.upload(this, job, generation);
    }

    /**
     * Stops this partition: nothing past the commit point moves any more, its open files are dropped and their memory
     * released (their records are read again after a restart), the rest of the sink goes on.
     */
    private void halt(String reason, boolean dropOpenFiles) {
        if (halted != null) return;
        halted = reason;
        if (everHalted == null) everHalted = reason;
        notes.error(reason);
        LOG.log(Level.ERROR, reason);
        if (dropOpenFiles) dropOpen();
    }

    /** Forgets the open files without sealing them (their records stay uncommitted) and frees their memory. */
    private void dropOpen() {
        for (Iterator<Slot> it = open.values().iterator(); it.hasNext(); ) {
            budget.release(it.next().reserved);
            it.remove();
        }
    }

    /**
     * After an error that may have left a record half-written in an open file: drops every open file instead of
     * sealing it. Files sealed before are whole and still upload.
     */
    void discardOpen() {
        dropOpen();
    }

    /** Seals files whose wall-clock schedule came due. */
    void tick(Instant now) {
        for (Slot slot : new ArrayList<>(open.values())) {
            if (forced(slot) || cell(slot)) continue;
            policy.onTick(slot.file, now).ifPresent(reason -> seal(slot, reason));
        }
    }

    /**
     * Seals every open file (flush, shutdown, memory pressure). A file whose end a claim decided is sealed only
     * there: a flush or memory pressure leaves it open, a stop drops it (its records are read again).
     */
    void sealAll(RotationReason reason) {
        for (Slot slot : new ArrayList<>(open.values())) {
            // A partition halted by a bad record (errors_tolerance = "none") keeps the records before it open, and a
            // stop seals them: every member of that configuration halts at the same record, so none can cut the run's
            // file past it.
            if (cell(slot) && halted != null && reason == RotationReason.SHUTDOWN) {
                seal(slot, reason);
                continue;
            }
            if (forced(slot) || cell(slot)) {
                if (reason == RotationReason.SHUTDOWN) {
                    budget.release(slot.reserved);
                    open.remove(slot.file.directory());
                }
                continue;
            }
            seal(slot, reason);
        }
    }

    long openRecords() {
        long sum = 0;
        for (Slot s : open.values()) sum += s.file.recordCount();
        return sum;
    }

    long openBytes() {
        long sum = 0;
        for (Slot s : open.values()) sum += s.reserved;
        return sum;
    }

    /** Memory of open files that a seal can free: all but the file whose end a claim decided. */
    long sealableBytes() {
        long sum = 0;
        for (Slot s : open.values()) if (!forced(s) && !cell(s)) sum += s.reserved;
        return sum;
    }

    /**
     * Whether this partition must still read up to the end of a cut another member claimed: until then that file
     * can be neither sealed nor dropped, so only reading on frees its memory.
     */
    boolean completingClaim() {
        return (forcedFirst >= 0 || openCell() != null) && owned && halted == null;
    }

    /** The last offset of the claimed cut still to be completed ({@link #completingClaim}); -1 when there is none. */
    long claimedEnd() {
        if (forcedFirst >= 0) return forcedLast;
        Slot cell = openCell();
        return cell == null ? -1 : run.cellEnd(cell.file.firstOffset());
    }

    /** The claimed cut still to be completed, as "first-last", for health reasons; empty when there is none. */
    Optional<String> claimedCut() {
        if (forcedFirst >= 0) return Optional.of(forcedFirst + "-" + forcedLast);
        Slot cell = openCell();
        return cell == null ? Optional.empty()
                : Optional.of(cell.file.firstOffset() + "-" + run.cellEnd(cell.file.firstOffset()));
    }

    /** An attempt to upload one of this generation's files failed and will be retried. */
    void retrying(UploadJob job, String error, long jobGeneration) {
        if (jobGeneration != generation) return;
        uploads.retrying(job.file().firstOffset());
        notes.error(error);
    }

    /**
     * An upload ended; its memory is released in the same step, so the outstanding count and the budget agree at
     * every moment the consumer loop looks. Results of an older generation (before a revoke or restart) only free
     * memory.
     */
    void uploaded(UploadResult result, long resultGeneration) {
        uploads.ended(result.job().file().firstOffset(), resultGeneration == generation);
        budget.release(result.job().reservedBytes());
        if (result.durable()) {
            LOG.log(Level.INFO, "uploaded " + result.job().file().key() + " (" + result.bytes()
                    + " bytes, " + result.job().file().recordCount() + " records, " + result.took().toMillis()
                    + " ms)");
        }
        if (resultGeneration != generation) return;
        long first = result.job().file().firstOffset();
        switch (result.outcome()) {
            case DURABLE -> {
                ledger.durable(first);
                if (onDurable != null) onDurable.accept(this, result);
                if (durableObjects != null) {
                    durableObjects.add(new SelfAudit.Committed(partition, result.job().file().key(),
                            result.job().file().lastOffset(), result.job().metadata()));
                }
                notes.uploaded(result.job().file().key(), clock.instant(), result.took().toMillis());
            }
            case REFUSED -> {
                ledger.failed(first);
                halt("stream " + partition.stream() + ", topic " + partition.topic() + ", partition "
                        + partition.partitionId() + ": " + result.error().orElse("upload refused") + " (the upload of "
                        + result.job().file().key() + " cannot succeed as it is: the partition is halted; nothing"
                        + " past offset " + ledger.lastCommitted() + " is committed and its records are read again"
                        + " after a restart)", true);
            }
            case GAVE_UP -> {
                ledger.failed(first);
                if (halted == null) notes.error(result.error()); // the halt's reason stays what the status shows
            }
            case SUPERSEDED -> {
                // The consumer assigns the partition anew: the key lookup then commits the other copy.
                ledger.failed(first);
                notes.error(result.error());
            }
        }
    }

    /** Uploads handed over and not yet applied back, of any generation. */
    int outstanding() {
        return uploads.outstanding();
    }

    /** Uploads of this partition that are failing and being retried: no more is read until they succeed. */
    boolean stalled() {
        return uploads.stalled();
    }

    /** Outstanding uploads that are not failing: they will free memory soon. */
    int progressingUploads() {
        return uploads.progressing();
    }

    /** Why this partition halted at any time in this run, even if it moved to another member since. */
    Optional<String> everHalted() {
        return Optional.ofNullable(everHalted);
    }

    OptionalLong committable() {
        return ledger.committable();
    }

    void committed(long offset) {
        ledger.committed(offset);
    }

    /** The claims of files committed up to {@code offset}: nobody needs them any more. Forgotten here. */
    List<String> claimsDoneUpTo(long offset) {
        List<String> done = new ArrayList<>();
        while (!openClaims.isEmpty() && openClaims.peekFirst().getKey() <= offset) {
            done.add(openClaims.pollFirst().getValue());
        }
        return done;
    }

    /** The durable objects a commit up to {@code offset} passed (see {@link #keepDurableObjects}); forgotten here. */
    List<SelfAudit.Committed> durableUpTo(long offset) {
        if (durableObjects == null || durableObjects.isEmpty()) return List.of();
        List<SelfAudit.Committed> done = new ArrayList<>();
        durableObjects.removeIf(c -> {
            boolean passed = c.lastOffset() <= offset;
            if (passed) done.add(c);
            return passed;
        });
        return done;
    }

    long lastCommitted() {
        return ledger.lastCommitted();
    }

    int pendingFiles() {
        return ledger.notDurable().size();
    }

    /** Nothing open and no upload outstanding: a stop has nothing more to wait for here. */
    boolean idle() {
        return open.isEmpty() && uploads.outstanding() == 0;
    }

    /** Everything read is durable and committed. */
    boolean settled() {
        return open.isEmpty() && ledger.notDurable().isEmpty() && ledger.lastCommitted() == ledger.position() - 1;
    }

    /**
     * Forgets everything (the partition moved away, or the session was rebuilt) and starts again at
     * {@code committed + 1}. Uploads still running finish, but their results only free memory.
     */
    void restart(long committed, boolean nowOwned) {
        dropOpen();
        ledger.revoke();
        ledger = new DeliveryLedger(partition, committed);
        generation++;
        upload.generationEnded(this);
        uploads.newGeneration();
        halted = null;
        owned = nowOwned;
        firstFileSinceAssignment = nowOwned;
        claiming = false;
        chainTail = CompletableFuture.completedFuture(true);
        openClaims.clear();
        if (durableObjects != null) durableObjects.clear();
        forcedFirst = -1;
        forcedLast = -1;
        forcedLate = false;
        run = null;
        latestMicros = Long.MIN_VALUE;
        routedLate.clear();
        marks.clear();
        waitingAt = -2;
    }

    /**
     * The poll answered that this member owns the partition, but its assignment waits (for the store, to learn what
     * is already durable): until it is done, the group's offset read for it, {@code committed}, is what the backlog
     * is counted from.
     */
    void assignmentWaits(long committed) {
        waitingAt = committed;
    }

    /**
     * Right after {@link #restart}: the claims of this sink's space when this generation claims its files (null when
     * it does not), and the cut a claim found at assignment decided ({@code first}..{@code last}), or -1s.
     */
    void assigned(Claims claimFiles, long first, long last) {
        assigned(claimFiles, first, last, false);
    }

    /** As {@link #assigned(Claims, long, long)}; {@code late}: the claimed file went under late/. */
    void assigned(Claims claimFiles, long first, long last, boolean late) {
        forcedLate = first >= 0 && late;
        claims = claimFiles;
        claiming = claimFiles != null && maxOpenFiles <= 1;
        forcedFirst = first;
        forcedLast = last;
        if (first >= 0) {
            LOG.log(Level.INFO, "partition " + partition + ": offsets " + first + "-" + last + " were claimed by"
                    + " another member (its upload may still land); this member cuts the same file");
        }
    }

    /** Halts the partition for a reason found outside the records (a stale object at assignment). */
    void haltFor(String reason) {
        halt(reason, true);
    }

    void lost() {
        waitingAt = -2;
        if (!owned) return;
        restart(ledger.lastCommitted(), false);
        LOG.log(Level.INFO, "partition " + partition + " is no longer owned by this member; its buffers were dropped"
                + " and will be read by the new owner from the last committed offset");
    }

    void error(String message) {
        notes.error(message);
    }

    PartitionStatus status() {
        boolean waiting = !owned && waitingAt >= -1;
        return notes.status(partition, owned, ledger.position(), waiting ? waitingAt : ledger.lastCommitted(),
                openRecords(), openBytes(), open.size(), pendingFiles(), halted != null, owned || waiting,
                oldestPending());
    }
}
