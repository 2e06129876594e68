package dev.iggysink.application.service;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.domain.buffer.OpenFile;
import dev.iggysink.domain.buffer.SealedFile;
import dev.iggysink.domain.delivery.DeliveryLedger;
import dev.iggysink.domain.delivery.MemoryBudget;
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
import java.util.function.BiConsumer;

/**
 * Orchestrates one partition: decode, pick the open file, let the rotation policy decide, seal, hand sealed files to
 * the uploader, and keep the ledger that says how far the group's offset may move. Rules live in the domain; this
 * class only drives them. Used by one consumer loop thread; upload results come back through that thread too.
 */
final class PartitionWriter {
    private static final System.Logger LOG = System.getLogger(PartitionWriter.class.getName());

    /** An open file and the encoder building its bytes. */
    private static final class Slot {
        final OpenFile file;
        final FileEncoder encoder;
        long reserved;

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
    /** Hands a sealed file to the uploader; the int is this writer's generation when the file was sealed. */
    private final BiConsumer<UploadJob, Long> upload;

    private final Map<String, Slot> open = new LinkedHashMap<>();
    private DeliveryLedger ledger;
    private long generation;
    private boolean owned = true;
    private String halted;
    private long currentOffset = -1;
    private long bufferedRecords;
    private long bufferedBytes;
    private Optional<String> lastUploadKey = Optional.empty();
    private Optional<Instant> lastUploadAt = Optional.empty();
    private long lastUploadMillis;
    private Optional<String> lastError = Optional.empty();

    PartitionWriter(PartitionRef partition, long committed, RecordCodec codec, FileLayout layout,
                    RotationPolicy policy, int maxOpenFiles, ErrorTolerance tolerance, String dlqPrefix,
                    MemoryBudget budget, InstantSource clock, SinkMetrics metrics,
                    BiConsumer<UploadJob, Long> upload) {
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
        currentOffset = offset;
    }

    /**
     * Appends the records of one poll. Stops at a bad record under {@code errors_tolerance = none}: that record and
     * the ones after it stay unread, so nothing past it can be committed.
     */
    void accept(List<SinkRecord> records) {
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
        Slot slot = slotFor(record, decoded);
        if (slot != null && !slot.file.isEmpty()) {
            Optional<RotationReason> before = policy.beforeAppend(slot.file, record.timestampMicros());
            if (before.isPresent()) {
                seal(slot, before.get());
                slot = null;
            }
        }
        if (slot == null) slot = openSlot(decoded);
        long recordBytes;
        try {
            recordBytes = slot.encoder.append(decoded);
        } catch (BadRecordException e) {
            if (slot.file.isEmpty()) dropSlot(slot);
            badRecord(record, e);
            return;
        }
        if (slot.file.isEmpty()) ledger.opened(record.offset());
        slot.file.add(record.offset(), record.timestampMicros(), recordBytes);
        ledger.read(record.offset());
        slot.reserved += recordBytes;
        budget.reserve(recordBytes);
        bufferedRecords++;
        bufferedBytes += recordBytes;
        metrics.encoded(partition, recordBytes);
        Slot target = slot;
        policy.afterAppend(target.file).ifPresent(reason -> seal(target, reason));
    }

    /**
     * Upstream behaviour (one open file, its path from its first record) unless several open files are allowed; then
     * each record goes to the file of its own rendered path.
     */
    private Slot slotFor(SinkRecord record, DecodedRecord decoded) {
        if (maxOpenFiles <= 1) {
            return open.isEmpty() ? null : open.values().iterator().next();
        }
        return open.get(layout.directory(partition, decoded));
    }

    private Slot openSlot(DecodedRecord decoded) {
        if (open.size() >= Math.max(1, maxOpenFiles)) {
            Slot oldest = open.values().iterator().next();
            seal(oldest, maxOpenFiles <= 1 ? RotationReason.PATH_CHANGE : RotationReason.OPEN_FILE_LIMIT);
        }
        String directory = layout.directory(partition, decoded);
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
            halted = "bad record at " + where + ": " + e.getMessage()
                    + " (errors_tolerance = \"none\": the partition is halted; nothing past it is committed)";
            lastError = Optional.of(halted);
            LOG.log(Level.ERROR, halted);
            return;
        }
        // errors_tolerance = all: the record becomes a one-record dead-letter file that gates commits like any other.
        String key = DeadLetters.key(layout.prefix(), dlqPrefix, record);
        byte[] content = DeadLetters.content(record, e.getMessage());
        ledger.opened(record.offset());
        ledger.read(record.offset());
        SealedFile file = new SealedFile(partition, key, record.offset(), record.offset(), 1, content.length,
                record.timestampMicros(), RotationReason.DEAD_LETTER);
        ledger.sealed(file);
        budget.reserve(content.length);
        metrics.deadLettered(partition);
        LOG.log(Level.WARNING, "dead-lettered record at " + where + " to " + key + ": " + e.getMessage());
        upload.accept(new UploadJob(file, () -> content, "application/json", content.length), generation);
    }

    private void seal(Slot slot, RotationReason reason) {
        open.remove(slot.file.directory());
        String key = layout.key(slot.file.directory(), partition, slot.file.firstOffset(), slot.file.lastOffset());
        SealedFile file = slot.file.seal(key, reason);
        ledger.sealed(file);
        bufferedRecords -= file.recordCount();
        bufferedBytes -= slot.reserved;
        // The file keeps its share of the budget until its upload ends; framing and compression run on the upload
        // thread (the encoder is handed over and no longer touched here).
        FileEncoder encoder = slot.encoder;
        upload.accept(new UploadJob(file, encoder::finish, codec.contentType(), slot.reserved), generation);
    }

    /** Seals files whose wall-clock schedule came due. */
    void tick(Instant now) {
        for (Slot slot : new ArrayList<>(open.values())) {
            policy.onTick(slot.file, now).ifPresent(reason -> seal(slot, reason));
        }
    }

    /** Seals every open file (flush, shutdown, memory pressure). */
    void sealAll(RotationReason reason) {
        for (Slot slot : new ArrayList<>(open.values())) {
            seal(slot, reason);
        }
    }

    long openBytes() {
        long sum = 0;
        for (Slot s : open.values()) sum += s.reserved;
        return sum;
    }

    /** An upload finished. Results of an older generation (before a revoke or restart) only free memory. */
    void uploaded(UploadResult result, long resultGeneration) {
        budget.release(result.job().reservedBytes());
        if (result.durable()) {
            LOG.log(Level.INFO, "uploaded " + result.job().file().key() + " (" + result.bytes()
                    + " bytes, " + result.job().file().recordCount() + " records, " + result.took().toMillis()
                    + " ms)");
        }
        if (resultGeneration != generation) return;
        long first = result.job().file().firstOffset();
        if (result.durable()) {
            ledger.durable(first);
            lastUploadKey = Optional.of(result.job().file().key());
            lastUploadAt = Optional.of(clock.instant());
            lastUploadMillis = result.took().toMillis();
        } else {
            ledger.failed(first);
            lastError = result.error();
        }
    }

    OptionalLong committable() {
        return ledger.committable();
    }

    void committed(long offset) {
        ledger.committed(offset);
    }

    long lastCommitted() {
        return ledger.lastCommitted();
    }

    int pendingFiles() {
        return ledger.notDurable().size();
    }

    /** True when everything read was made durable (nothing open, nothing pending). */
    boolean drained() {
        return open.isEmpty() && ledger.notDurable().isEmpty();
    }

    /** Everything read is durable and committed. */
    boolean settled() {
        return drained() && ledger.lastCommitted() == ledger.position() - 1;
    }

    /**
     * Forgets everything (the partition moved away, or the session was rebuilt) and starts again at
     * {@code committed + 1}. Uploads still running finish, but their results only free memory.
     */
    void restart(long committed, boolean nowOwned) {
        for (Iterator<Slot> it = open.values().iterator(); it.hasNext(); ) {
            Slot s = it.next();
            budget.release(s.reserved);
            it.remove();
        }
        ledger.revoke();
        ledger = new DeliveryLedger(partition, committed);
        generation++;
        bufferedRecords = 0;
        bufferedBytes = 0;
        halted = null;
        owned = nowOwned;
    }

    void lost() {
        if (!owned) return;
        restart(ledger.lastCommitted(), false);
        LOG.log(Level.INFO, "partition " + partition + " is no longer owned by this member; its buffers were dropped"
                + " and will be read by the new owner from the last committed offset");
    }

    void error(String message) {
        lastError = Optional.of(message);
    }

    dev.iggysink.application.status.PartitionStatus status() {
        return new dev.iggysink.application.status.PartitionStatus(partition.stream(), partition.topic(),
                partition.partitionId(), owned, ledger.position(), ledger.lastCommitted(), currentOffset,
                bufferedRecords, bufferedBytes, open.size(), pendingFiles(), lastUploadKey, lastUploadAt,
                lastUploadMillis, lastError, halted != null);
    }
}
