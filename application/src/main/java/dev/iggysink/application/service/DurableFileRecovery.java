package dev.iggysink.application.service;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.HeldRecords;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.naming.KeyRange;
import dev.iggysink.domain.naming.ObjectKey;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Makes every seal exactly-once, not only those a replay repeats. A file sealed by a stop, a flush, the wall-clock
 * schedule or memory pressure is cut where a replay would not cut; if it became durable but its commit was lost
 * (the commit failed, or the process was killed during the drain), reading again from the committed offset would
 * write its records a second time under another key. The keys say which offsets are durable: a file starting right
 * after the committed offset {@code c} has the key {@code <path of record c+1>/PPPPP-<c+1>-<last>}. So, when a
 * partition is (re)assigned, the record at {@code c+1} is read, its path rendered, and the store listed for a key of
 * the partition starting at {@code c+1}.
 *
 * <p>A key is only a name, so what is found is checked before it is trusted: the object's metadata
 * ({@link ObjectStamps}) must name the same first record (offset, message id, timestamp) as the partition holds at
 * {@code c+1}, and the same last record as the partition holds at the key's last offset; otherwise the object is
 * from an earlier life of the topic and the partition halts rather than skip records. An object that holds fewer
 * records than its range (records of it were dead-lettered) is trusted only when the dead letters make up the rest.
 * Then its last offset is committed and the search goes on from the next offset. An object without metadata (written
 * by the Rust sink or before objects carried it) is checked by its content where its records name themselves (json
 * with {@code include_metadata}, avro and parquet with the metadata columns: {@link RecordCodec#held}), the same way;
 * only where nothing in it can be compared (raw, json without {@code include_metadata}) is it trusted by key, and
 * that is said once per prefix in a warning.
 *
 * <p>With {@code late_records = "late_path"} a file may instead be in the topic's late/ folder
 * ({@link FileLayout#lateDirectory}): a member routes a file there when its first record is late, and another member
 * (or the same after a restart) may judge the same record otherwise. So when nothing starts at {@code c+1} in the
 * record's folder, the late/ folder of it is listed too (a second LIST), and a claim says which of the two keys its
 * file has ({@link Claims#KEY_CRC}), so the member that adopts the cut writes the same object.
 *
 * <p>When no object starts at {@code c+1} but a claim does ({@link Claims}), another member cut that file and may
 * still upload it: this member must cut the same file, and the answer says where it ends.
 *
 * <p>Cost per assignment: one poll of one record and one LIST per file found, plus one HEAD and one more one-record
 * poll (its last record) per file found (and, without metadata, two ranged GETs of a json file's ends, or one GET of
 * a compressed, avro or parquet file), plus one poll, one LIST and one HEAD (the claim) for the first offset that
 * has no file (with {@code late_path}, one more LIST there, of its late/ folder). Only with one open file per partition: with several, files interleave and the one holding {@code c+1}
 * may hold later offsets that other, not durable, files surround (at-least-once there, as the README says).
 */
final class DurableFileRecovery {
    private static final System.Logger LOG = System.getLogger(DurableFileRecovery.class.getName());
    /**
     * The prefixes, per store, whose objects were trusted by key: the warning is said once per prefix of a sink, not
     * per object or partition (the topics of a sink share its store).
     */
    private static final Map<ObjectStore, Set<String>> TRUSTED_BY_KEY = new WeakHashMap<>();

    /**
     * Where the lookup ended: the offset committed last; a claimed cut the partition's next file must follow
     * ({@code claimedFirst}..{@code claimedLast}, or -1s); or why the partition must halt ({@code stale}).
     */
    record Result(long committed, long claimedFirst, long claimedLast, Optional<String> stale, boolean claimedLate,
                  Optional<Claims.Run> run) {
        Result(long committed, long claimedFirst, long claimedLast, Optional<String> stale, boolean claimedLate) {
            this(committed, claimedFirst, claimedLast, stale, claimedLate, Optional.empty());
        }

        Result(long committed, long claimedFirst, long claimedLast, Optional<String> stale) {
            this(committed, claimedFirst, claimedLast, stale, false);
        }

        /** The lookup ended inside a run claim's range: the partition's files follow its cuts up to its end. */
        static Result in(long committed, Claims.Run run) {
            return new Result(committed, -1, -1, Optional.empty(), false, Optional.of(run));
        }

        static Result at(long committed) {
            return new Result(committed, -1, -1, Optional.empty());
        }
    }

    private final MessageSource source;
    private final ObjectStore store;
    private final RecordCodec codec;
    private final FileLayout layout;
    private final String dlqPrefix;
    private final boolean deadLetters;
    private final Claims claims;
    /** Told of each file the lookup is about to commit (completeness markers list it first), or null. */
    private Recovered recovered;

    /** A file found durable, about to be committed by the lookup. */
    interface Recovered {
        void recovered(PartitionRef partition, String key, long size, long first, long last,
                       Map<String, String> metadata, boolean deadLetter, boolean late) throws StoreException;
    }

    void onRecovered(Recovered listener) {
        this.recovered = listener;
    }

    DurableFileRecovery(MessageSource source, ObjectStore store, RecordCodec codec, FileLayout layout,
                        boolean deadLetters, String dlqPrefix, Claims claims) {
        this.source = source;
        this.store = store;
        this.codec = codec;
        this.layout = layout;
        this.deadLetters = deadLetters;
        this.dlqPrefix = dlqPrefix;
        this.claims = claims;
    }

    /**
     * Commits the files already durable right after {@code committed}, checking what it finds, and says where the
     * partition's reading starts (one past the offset committed last) and, when {@code claimsOn} and a claim starts
     * there, where its next file must end. Stops at the first offset without a file, at the end of the partition,
     * or when the partition is not owned any more.
     */
    Result lookup(PartitionRef partition, long committed, boolean claimsOn) throws SourceException, StoreException {
        long c = committed;
        // Claims of the files committed here: removed at the end, but for a run claim whose run goes on past them.
        List<String> passed = new ArrayList<>();
        while (true) {
            Batch batch = source.poll(partition, c + 1, 1);
            if (!batch.owned()) return Result.at(c); // claims passed are left to the lifecycle rule
            if (batch.records().isEmpty()) {
                // Runs cover only records that were there when claimed: none goes on past the partition's end.
                removePassed(passed, null);
                return Result.at(c);
            }
            SinkRecord record = batch.records().get(0);
            Found found = durableFileFrom(partition, record);
            if (found == null) {
                if (claimsOn && !layout.firstOffsetKeys()) {
                    Optional<Claims.Claimed> claimed = claims.claimed(partition, record.offset(),
                            ObjectStamps.stamp(record));
                    if (claimed.isPresent() && claimed.get().runEnd() > claimed.get().last()) {
                        removePassed(passed, null);
                        return Result.in(c, new Claims.Run(record.offset(), claimed.get().last(),
                                claimed.get().runEnd(), Optional.of(ObjectStamps.stamp(record)),
                                claimed.get().rule()));
                    }
                    if (claimed.isPresent()) {
                        removePassed(passed, null);
                        return new Result(c, record.offset(), claimed.get().last(), Optional.empty(),
                                claimedLate(partition, record, claimed.get()));
                    }
                    Optional<Claims.Run> run = claims.runCovering(partition, record.offset());
                    if (run.isPresent() && madeFor(partition, run.get())) {
                        String kept = claims.key(partition, run.get().first());
                        removePassed(passed, kept);
                        return Result.in(c, run.get());
                    }
                    removePassed(passed, null);
                }
                return Result.at(c);
            }
            Optional<String> stale = check(partition, record, found);
            if (stale.isPresent()) return new Result(c, -1, -1, stale);
            long last = found.last;
            // The partition may have moved away and back meanwhile: never store an offset below the group's.
            long stored = source.committedOffset(partition).orElse(-1);
            if (stored > c) {
                c = stored;
                continue;
            }
            // Completeness markers list the file before its commit (ADR 0016).
            if (recovered != null) {
                recovered.recovered(partition, found.key, found.size, record.offset(), last, found.metadata,
                        found.deadLetter, found.late);
            }
            source.commit(partition, last);
            LOG.log(Level.INFO, "partition " + partition + ": offsets " + record.offset() + "-" + last
                    + " were already durable (their commit had not landed); committed " + last
                    + " instead of writing them again");
            if (claimsOn && !found.deadLetter && !layout.firstOffsetKeys()) {
                passed.add(claims.key(partition, record.offset()));
            }
            c = last;
        }
    }

    /** Removes the claims of the files the lookup committed, in one request, all but {@code kept} (or all). */
    private void removePassed(List<String> passed, String kept) {
        if (kept != null) passed.remove(kept);
        if (passed.isEmpty()) return;
        if (passed.size() == 1) {
            claims.remove(passed.get(0));
        } else {
            for (int i = 0; i < passed.size(); i += ObjectStore.MAX_DELETE_BATCH) {
                claims.remove(passed.subList(i, Math.min(passed.size(), i + ObjectStore.MAX_DELETE_BATCH)));
            }
        }
    }

    /**
     * Whether a run claim found below the partition's next offset was made for the partition's record at its start:
     * one left by a kill in an earlier life of the topic names another record, decides nothing, and is removed. When
     * that record is gone (expired), the run is followed: its cuts cost nothing but their order.
     */
    private boolean madeFor(PartitionRef partition, Claims.Run run) throws SourceException {
        if (run.firstStamp().isEmpty()) return true;
        Batch batch = source.poll(partition, run.first(), 1);
        if (!batch.owned() || batch.records().isEmpty()) return true;
        SinkRecord record = batch.records().get(0);
        if (record.offset() != run.first() || ObjectStamps.stamp(record).equals(run.firstStamp().get())) return true;
        String key = claims.key(partition, run.first());
        LOG.log(Level.INFO, "the run claim " + key + " was made for another record (" + run.firstStamp().get()
                + ", the partition's record is " + ObjectStamps.stamp(record) + "): an earlier life of the topic left"
                + " it; removed");
        claims.remove(key);
        return false;
    }

    /** A durable object starting at a record: its key, last offset, and metadata (empty when it has none). */
    private record Found(String key, long size, long last, Map<String, String> metadata, boolean deadLetter,
                         boolean late) {
    }

    /** Whether the claimed file starting at {@code record} is the one in the late/ folder of its window. */
    private boolean claimedLate(PartitionRef partition, SinkRecord record, Claims.Claimed claimed) {
        if (!layout.latePath() || claimed.keyCrc().isEmpty()) return false;
        try {
            String directory = layout.directory(partition, codec.decode(record));
            String lateKey = layout.key(layout.lateDirectory(partition, directory), partition, record.offset(),
                    claimed.last());
            return claimed.names(lateKey);
        } catch (BadRecordException e) {
            return false;
        }
    }

    /** The durable file starting at {@code record}, or null when there is none. */
    private Found durableFileFrom(PartitionRef partition, SinkRecord record) throws StoreException {
        String directory;
        try {
            directory = layout.directory(partition, codec.decode(record));
        } catch (BadRecordException e) {
            return deadLetters ? deadLetter(record) : null;
        }
        if (layout.keyProblem(directory, partition, record.offset()).isPresent()) {
            // Its key cannot be stored: the record was a bad record, and only a dead letter can hold it.
            return deadLetters ? deadLetter(record) : null;
        }
        if (layout.firstOffsetKeys()) return firstOffsetObject(partition, directory, record);
        Found found = durableFileIn(directory, partition, record, false);
        if (found == null && layout.latePath()) {
            String late = layout.lateDirectory(partition, directory);
            if (layout.keyProblem(late, partition, record.offset()).isEmpty()) {
                found = durableFileIn(late, partition, record, true);
            }
        }
        if (found != null) return found;
        // A record that decoded but could not be written (e.g. its key was too long) is a dead letter.
        return deadLetters ? deadLetter(record) : null;
    }

    /** The durable file of {@code partition} starting at {@code record} in {@code directory}, or null. */
    private Found durableFileIn(String directory, PartitionRef partition, SinkRecord record, boolean late)
            throws StoreException {
        StoredObject object = null;
        long last = -1;
        for (StoredObject o : store.list(layout.keyStart(directory, partition, record.offset()))) {
            KeyRange range = ObjectKey.parse(o.key()).orElse(null);
            if (range != null && range.partitionId() == partition.partitionId()
                    && range.firstOffset() == record.offset() && range.lastOffset() > last) {
                last = range.lastOffset();
                object = o;
            }
        }
        if (object == null) return null;
        Optional<Map<String, String>> meta = store.metadata(object.key());
        return meta.isPresent() ? new Found(object.key(), object.size(), last, meta.get(), false, late) : null;
    }

    /**
     * Under the first-offset layout the key of a file starting at the record is known: one HEAD, no LIST. Its metadata
     * names its last offset (every such object is written with it: ADR 0019).
     */
    private Found firstOffsetObject(PartitionRef partition, String directory, SinkRecord record)
            throws StoreException {
        String key = layout.key(directory, partition, record.offset(), record.offset());
        Optional<Map<String, String>> meta = store.metadata(key);
        if (meta.isEmpty()) return deadLetters ? deadLetter(record) : null;
        Optional<long[]> range = ObjectStamps.offsets(meta.get());
        if (range.isEmpty() || range.get()[0] != record.offset()) {
            throw new StoreException("the object " + key + " does not name the offsets it holds (metadata "
                    + ObjectStamps.OFFSETS + " = " + meta.get().get(ObjectStamps.OFFSETS) + "), so whether offset "
                    + record.offset() + " is durable cannot be told; move it away if it is not this sink's", false, 0,
                    null, null);
        }
        return new Found(key, -1, range.get()[1], meta.get(), false, false);
    }

    private Found deadLetter(SinkRecord record) throws StoreException {
        String key = DeadLetters.key(layout.prefix(), dlqPrefix, record);
        Optional<Map<String, String>> meta = store.metadata(key);
        return meta.map(m -> new Found(key, -1, record.offset(), m, true, false)).orElse(null);
    }

    /** Why {@code found} must not be trusted as holding the partition's records from {@code first} on, if so. */
    private Optional<String> check(PartitionRef partition, SinkRecord first, Found found)
            throws SourceException, StoreException {
        Map<String, String> meta = found.metadata;
        if (!ObjectStamps.stamped(meta)) return byContent(partition, first, found);
        String expected = ObjectStamps.stamp(first);
        if (!expected.equals(meta.get(ObjectStamps.FIRST))) {
            return Optional.of(stale(partition, found, "its first record is " + meta.get(ObjectStamps.FIRST)
                    + " (offset/message id/timestamp) but the partition's record at offset " + first.offset() + " is "
                    + expected));
        }
        if (found.last != first.offset()) {
            Batch at = source.poll(partition, found.last, 1);
            if (!at.owned()) return Optional.empty(); // the next owner looks again
            SinkRecord last = at.records().isEmpty() ? null : at.records().get(0);
            String lastStamp = last == null || last.offset() != found.last ? null : ObjectStamps.stamp(last);
            if (!meta.get(ObjectStamps.LAST).equals(lastStamp)) {
                return Optional.of(stale(partition, found, "its last record is " + meta.get(ObjectStamps.LAST)
                        + " but the partition's record at offset " + found.last + " is "
                        + (lastStamp == null ? "not there" : lastStamp)));
            }
        }
        long span = found.last - first.offset() + 1;
        long records = ObjectStamps.records(meta).orElse(span);
        if (records < span) {
            long letters = deadLettersIn(partition, first.offset(), found.last);
            if (records + letters < span) {
                return Optional.of("stream " + partition.stream() + ", topic " + partition.topic() + ", partition "
                        + partition.partitionId() + ": " + found.key + " holds " + records + " records of offsets "
                        + first.offset() + "-" + found.last + " and " + letters + " of the others are in dead-letter"
                        + " objects, so " + (span - records - letters) + " are in no object (a dead letter was deleted?)."
                        + " The partition is halted rather than skip them; remove " + found.key + " and restart to"
                        + " write those offsets again");
            }
        }
        return Optional.empty();
    }

    /**
     * Why an object without metadata must not be trusted, judged by the first and last record its content names; a
     * content that names none is trusted by key, and the prefix's warning said.
     */
    private Optional<String> byContent(PartitionRef partition, SinkRecord first, Found found)
            throws SourceException, StoreException {
        if (found.deadLetter) return Optional.empty(); // a dead letter's payload is the record's own bytes
        HeldRecords held = codec.held(store, new StoredObject(found.key, found.size));
        if (held instanceof HeldRecords.Unnamed unnamed) {
            if (firstTrustedByKey()) {
                String where = layout.prefix().isEmpty() ? "the bucket's root" : "the prefix " + layout.prefix();
                LOG.log(Level.WARNING, "objects under " + where + " carry no x-amz-meta-iggy-*"
                        + " metadata and their content names no records (" + unnamed.why() + "; e.g. " + found.key
                        + "): they are trusted by their key, so after the topic is deleted and created again (or the"
                        + " server wiped) their offsets would be skipped. Move such objects away (or give the sink"
                        + " another prefix) when the topic starts a new life; audit lists them");
            }
            return Optional.empty();
        }
        if (held instanceof HeldRecords.Unreadable unreadable) {
            return Optional.of("stream " + partition.stream() + ", topic " + partition.topic() + ", partition "
                    + partition.partitionId() + ": the object " + found.key + " has no metadata and its content"
                    + " cannot be read (" + unreadable.why() + "), so it cannot be checked against the partition's"
                    + " records. The partition is halted rather than skip offsets " + first.offset() + "-" + found.last
                    + "; move or delete " + found.key + " and restart to write them again");
        }
        HeldRecords.Held h = (HeldRecords.Held) held;
        if (!h.first().is(first)) {
            return Optional.of(stale(partition, found, "its first record is " + h.first()
                    + " but the partition's record at offset " + first.offset() + " is " + named(first)));
        }
        long lastInside = h.last().offset();
        // Offsets after the content's last record and up to the key's end were dead-lettered, or the key lies.
        if (lastInside > found.last || lastInside < first.offset() || (lastInside < found.last
                && deadLettersIn(partition, lastInside + 1, found.last) < found.last - lastInside)) {
            return Optional.of(stale(partition, found, "its last record is " + h.last() + " but its key ends at "
                    + found.last + (lastInside < found.last ? " and the offsets between are in no dead-letter object"
                    : "")));
        }
        if (lastInside != first.offset()) {
            Batch at = source.poll(partition, lastInside, 1);
            if (!at.owned()) return Optional.empty(); // the next owner looks again
            SinkRecord last = at.records().isEmpty() ? null : at.records().get(0);
            if (last == null || last.offset() != lastInside || !h.last().is(last)) {
                return Optional.of(stale(partition, found, "its last record is " + h.last()
                        + " but the partition's record at offset " + lastInside + " is "
                        + (last == null || last.offset() != lastInside ? "not there" : named(last))));
            }
        }
        return Optional.empty();
    }

    private boolean firstTrustedByKey() {
        synchronized (TRUSTED_BY_KEY) {
            return TRUSTED_BY_KEY.computeIfAbsent(store, s -> new HashSet<>()).add(layout.prefix());
        }
    }

    private static String named(SinkRecord record) {
        return "offset " + record.offset() + " at " + record.timestampMicros() + " µs";
    }

    private long deadLettersIn(PartitionRef partition, long first, long last) throws StoreException {
        String topicPrefix = DeadLetters.topicPrefix(layout.prefix(), dlqPrefix, partition.stream(), partition.topic());
        long n = 0;
        for (StoredObject o : store.list(topicPrefix + String.format("%05d-", partition.partitionId()))) {
            OptionalLong offset = DeadLetters.offset(o.key().substring(topicPrefix.length()), partition.partitionId());
            if (offset.isPresent() && offset.getAsLong() >= first && offset.getAsLong() <= last) n++;
        }
        return n;
    }

    private static String stale(PartitionRef partition, Found found, String why) {
        return "stream " + partition.stream() + ", topic " + partition.topic() + ", partition "
                + partition.partitionId() + ": the object " + found.key + " does not hold this partition's records ("
                + why + "): it is from an earlier life of the topic (deleted and created again, or a server whose data"
                + " was wiped while the bucket was kept). The partition is halted; nothing is skipped. Move or delete"
                + " the earlier topic's objects (or give the sink another prefix), then restart the sink";
    }
}
