package dev.iggysink.application.service;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.Batch;
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

/**
 * Makes every seal exactly-once, not only those a replay repeats. A file sealed by a stop, a flush, the wall-clock
 * schedule or memory pressure is cut where a replay would not cut; if it became durable but its commit was lost
 * (the commit failed, or the process was killed during the drain), reading again from the committed offset would
 * write its records a second time under another key. The keys say which offsets are durable: a file starting right
 * after the committed offset {@code c} has the key {@code <path of record c+1>/PPPPP-<c+1>-<last>}. So, when a
 * partition is (re)assigned, the record at {@code c+1} is read, its path rendered, and the store listed for a key of
 * the partition starting at {@code c+1}; if there is one, its last offset is committed and the search goes on from
 * the next offset. Cost per assignment: one poll of one record and one LIST per file found, plus one of each for the
 * first offset that has no file.
 *
 * <p>Only with one open file per partition: with several, files interleave and the one holding {@code c+1} may hold
 * later offsets that other, not durable, files surround (at-least-once there, as the README says).
 */
final class DurableFileRecovery {
    private static final System.Logger LOG = System.getLogger(DurableFileRecovery.class.getName());

    private final MessageSource source;
    private final ObjectStore store;
    private final RecordCodec codec;
    private final FileLayout layout;
    private final String dlqPrefix;
    private final boolean deadLetters;

    DurableFileRecovery(MessageSource source, ObjectStore store, RecordCodec codec, FileLayout layout,
                        boolean deadLetters, String dlqPrefix) {
        this.source = source;
        this.store = store;
        this.codec = codec;
        this.layout = layout;
        this.deadLetters = deadLetters;
        this.dlqPrefix = dlqPrefix;
    }

    /**
     * Commits the files already durable right after {@code committed} and returns the offset committed last (the
     * partition's new start is one past it). Stops at the first offset without a file, at the end of the partition,
     * or when the partition is not owned any more.
     */
    long recover(PartitionRef partition, long committed) throws SourceException, StoreException {
        long c = committed;
        while (true) {
            Batch batch = source.poll(partition, c + 1, 1);
            if (!batch.owned() || batch.records().isEmpty()) return c;
            SinkRecord record = batch.records().get(0);
            long last = durableFileFrom(partition, record);
            if (last < record.offset()) return c;
            source.commit(partition, last);
            LOG.log(Level.INFO, "partition " + partition + ": offsets " + record.offset() + "-" + last
                    + " were already durable (their commit had not landed); committed " + last
                    + " instead of writing them again");
            c = last;
        }
    }

    /** The last offset of a durable file starting at {@code record}, or -1 when there is none. */
    private long durableFileFrom(PartitionRef partition, SinkRecord record) throws StoreException {
        String directory;
        try {
            directory = layout.directory(partition, codec.decode(record));
        } catch (BadRecordException e) {
            return deadLetters && exists(DeadLetters.key(layout.prefix(), dlqPrefix, record)) ? record.offset() : -1;
        }
        long last = -1;
        for (StoredObject o : store.list(layout.keyStart(directory, partition, record.offset()))) {
            KeyRange range = ObjectKey.parse(o.key()).orElse(null);
            if (range != null && range.partitionId() == partition.partitionId()
                    && range.firstOffset() == record.offset()) {
                last = Math.max(last, range.lastOffset());
            }
        }
        if (last < 0 && deadLetters && exists(DeadLetters.key(layout.prefix(), dlqPrefix, record))) {
            return record.offset(); // a record that decoded but could not be written (e.g. its key was too long)
        }
        return last;
    }

    private boolean exists(String key) throws StoreException {
        for (StoredObject o : store.list(key)) {
            if (o.key().equals(key)) return true;
        }
        return false;
    }
}
