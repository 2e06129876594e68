package dev.iggysink.application.port.out;

import dev.iggysink.domain.message.PartitionRef;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Where the table sink's records land: tables of a catalog, each commit one snapshot. The table, not the consumer
 * group, says how far each partition is durable: every commit records the last offset of each partition it covers in
 * the snapshot it makes (the offset map), carried forward from the snapshot it is based on. Thread-safe: files are
 * built and staged by several threads, a commit runs on one.
 *
 * <p>Table names are {@code namespace.table} (the last dot separates the table), as the Rust Iggy sink names them.
 */
public interface TableStore extends AutoCloseable {

    /** The rows of one file on its way into one table; used by one thread. */
    interface RowFile {
        /**
         * Converts the record to a row of the table's schema and keeps it.
         *
         * @throws BadRecordException the record does not fit the schema (a missing required field, a value of
         *                            another type, a payload that is not a JSON object); nothing was kept
         */
        void append(DecodedRecord record) throws BadRecordException;

        int count();

        /** The heap the kept rows hold, for the memory budget. */
        long heapBytes();

        /**
         * Writes the rows as data files of the table (one per table partition they fall in). They are invisible until
         * a commit names them. The file is unusable afterwards.
         */
        Staged stage() throws StoreException;

        /** Lets go of the rows without writing them. */
        void discard();
    }

    /** Data files written but not committed. Opaque to the core but for what it reports. */
    interface Staged {
        int dataFiles();

        long bytes();
    }

    /**
     * The files of one partition for one commit, in offset order, holding every record routed to the table from
     * {@code expected + 1} to {@code last}. {@code expected} is what this member believes the table's map holds for
     * the partition (−1: nothing).
     */
    record Append(PartitionRef partition, long expected, long last, List<Staged> files) {
        public Append {
            Objects.requireNonNull(partition, "partition");
            files = List.copyOf(files);
            if (last <= expected) throw new IllegalArgumentException("last " + last + " <= expected " + expected);
        }
    }

    /**
     * What a commit did: {@code committed} partitions are in the table's map at their {@code last}; each
     * {@code refused} partition had moved in the map past what this member expected (another member committed it
     * since), with the offset found, and its files were not committed. {@code conflicts} counts the attempts lost to
     * concurrent commits (each retried on the new snapshot).
     */
    record CommitResult(Set<PartitionRef> committed, Map<PartitionRef, Long> refused, int conflicts,
                        java.util.OptionalLong watermarkMicros) {
        public CommitResult {
            committed = Set.copyOf(committed);
            refused = Map.copyOf(refused);
            Objects.requireNonNull(watermarkMicros, "watermarkMicros");
        }

        /** A commit that says nothing of the table's watermark. */
        public CommitResult(Set<PartitionRef> committed, Map<PartitionRef, Long> refused, int conflicts) {
            this(committed, refused, conflicts, java.util.OptionalLong.empty());
        }
    }

    /**
     * How far each partition of one topic is complete in record time, as this member knows it at a commit
     * ({@code dev.iggysink.domain.completeness.Watermark}): {@code completeBefore} by partition id, for the partitions
     * of the commit and the idle ones this member holds; the topic has {@code partitions} partitions.
     */
    record Times(String stream, String topic, int partitions, Map<Integer, Long> completeBefore) {
        public Times {
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(topic, "topic");
            completeBefore = Map.copyOf(completeBefore);
        }
    }

    /**
     * A table this store found dropped and created again (by an operator, a reset of the lake, or this store itself
     * under {@code create_tables} after a drop): {@code oldId} and {@code newId} are the catalog's identities of the
     * two, {@code count} how many replacements of the table this store has found so far. Files and expectations built
     * on an earlier table are worthless to the new one.
     */
    record Replacement(String table, String oldId, String newId, long count) {
        public Replacement {
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(oldId, "oldId");
            Objects.requireNonNull(newId, "newId");
        }
    }

    /**
     * The last replacement of {@code table} this store found (see {@link Replacement}); empty while it serves the table
     * it first loaded. Any thread.
     */
    default java.util.Optional<Replacement> replacement(String table) {
        return java.util.Optional.empty();
    }

    /** Checks that the table exists (creating it when configured to) and can be written. */
    void open(String table) throws StoreException;

    RowFile newFile(String table) throws StoreException;

    /**
     * The table's map for these partitions, from its current snapshot (looking back through earlier snapshots for a
     * partition the current one does not name: another writer, a compaction, may have made it). A partition the
     * table never had is absent.
     */
    Map<PartitionRef, Long> durableOffsets(String table, Collection<PartitionRef> partitions) throws StoreException;

    /**
     * Appends the files of every partition whose map entry is at most its {@code expected} in one snapshot, and
     * moves those entries to {@code last}; the other partitions are refused and their files left out. A commit that
     * loses a race with another writer is tried again on the new snapshot, with the check made again. Exactly one
     * snapshot is made, or none when every partition was refused.
     *
     * <p>An attempt whose outcome the catalog left unknown (a timeout after sending) is looked up in the table's
     * history before anything else is tried, so a refused partition was never committed by this call and its files
     * may be discarded.
     *
     * @throws StoreException the commit failed; when {@link StoreException#retryable()} its outcome may be unknown:
     *                        the files must then be kept, and the partitions looked up again before reading on
     */
    CommitResult commit(String table, List<Append> appends) throws StoreException;

    /**
     * As {@link #commit(String, List)}, and the snapshot also records the topic's complete-before times (each
     * partition's time only moves forward; those of a refused partition are left out) and, when every partition has
     * one, the watermark: {@code iggy.watermark.<group>.<stream>.<topic>}, the least of them. A store that keeps no
     * watermark commits as {@link #commit(String, List)} does.
     */
    default CommitResult commit(String table, List<Append> appends, Times times) throws StoreException {
        return commit(table, appends);
    }

    /**
     * The watermark of {@code stream}/{@code topic} in the table's current snapshot, in microseconds since the epoch:
     * every record of the topic stamped before it is in the table. Empty when the table has none. For {@code audit}.
     */
    default java.util.OptionalLong watermark(String table, String stream, String topic) throws StoreException {
        return java.util.OptionalLong.empty();
    }

    /**
     * The offsets of the rows of these partitions in the table's current snapshot, read from its {@code iggy_offset}
     * and {@code iggy_partition_id} columns (and {@code iggy_stream}, {@code iggy_topic} when the table has them, so
     * that topics sharing a table are told apart); a partition with no row is absent. Empty when the table lacks
     * {@code iggy_offset} or {@code iggy_partition_id}: then its rows cannot be checked. For {@code audit}.
     */
    java.util.Optional<Map<PartitionRef, List<Long>>> rowOffsets(String table, Collection<PartitionRef> partitions)
            throws StoreException;

    /**
     * As {@link #rowOffsets(String, Collection)}, only the rows whose {@code iggy_offset} is at least {@code from}: the
     * self-audit reads the recent window of each partition, not the whole table. A store that can filter its files by
     * the column's bounds reads only those that may hold such rows.
     */
    default java.util.Optional<Map<PartitionRef, List<Long>>> rowOffsets(String table,
                                                                        Collection<PartitionRef> partitions, long from)
            throws StoreException {
        java.util.Optional<Map<PartitionRef, List<Long>>> all = rowOffsets(table, partitions);
        if (all.isEmpty()) return all;
        Map<PartitionRef, List<Long>> out = new java.util.HashMap<>();
        all.get().forEach((p, offsets) -> {
            List<Long> kept = offsets.stream().filter(o -> o >= from).toList();
            if (!kept.isEmpty()) out.put(p, kept);
        });
        return java.util.Optional.of(out);
    }

    /**
     * A data file of a table's current snapshot, as the self-audit knows it: {@code path} and {@code size} say which
     * (a data file is never written over), {@code deletes} names the delete files that apply to it (rows another
     * writer deleted without rewriting the file), {@code upper} the greatest {@code iggy_offset} its bounds allow
     * ({@link Long#MAX_VALUE} when it has none). What the store needs to read it is its own.
     */
    interface DataFileRef {
        String path();

        long size();

        List<String> deletes();

        long upper();

        /** What the file's statistics say of every one of its rows; empty when they do not say it. */
        default java.util.Optional<FileStats> stats() {
            return java.util.Optional.empty();
        }
    }

    /**
     * A data file's statistics as its manifest entry holds them, computed by its writer from the rows themselves:
     * {@code records} rows, each with an {@code iggy_offset} from {@code lowerOffset} to {@code upperOffset} and an
     * {@code iggy_partition_id} from {@code lowerPartition} to {@code upperPartition}; {@code stream} and
     * {@code topic} the one {@code iggy_stream} and {@code iggy_topic} every row holds, empty when the table has no
     * such columns. A store gives them only when no row lacks any of these values.
     */
    record FileStats(long records, long lowerOffset, long upperOffset, int lowerPartition, int upperPartition,
                     java.util.Optional<String> stream, java.util.Optional<String> topic) {
    }

    /**
     * The data files of a table's current snapshot that may hold rows whose {@code iggy_offset} is at least an offset
     * (by the column's bounds), whole or as the change since an earlier listing. {@code snapshot} names the current
     * snapshot; {@code descends} says whether the snapshot asked about is it or one of its ancestors (false after a
     * rollback, or when that one expired). When {@code whole}, {@code files} are all of them; otherwise they are the
     * data files added since the snapshot asked about and {@code removed} the paths of those taken out since (no
     * delete file came or went meanwhile: the files listed before have the deletes they had). {@code reads} counts
     * the catalog and metadata reads the listing took (the table's metadata, manifest lists, manifests).
     * {@code checkable} is false when the table lacks {@code iggy_offset} or {@code iggy_partition_id}: then no file
     * is listed.
     */
    record FileListing(boolean checkable, long snapshot, boolean descends, boolean whole, List<DataFileRef> files,
                       List<String> removed, int reads) {
        public FileListing {
            files = List.copyOf(files);
            removed = List.copyOf(removed);
        }

        /** Every data file that may hold the rows asked about. */
        public static FileListing whole(long snapshot, boolean descends, List<DataFileRef> files, int reads) {
            return new FileListing(true, snapshot, descends, true, files, List.of(), reads);
        }
    }

    /**
     * Offsets as runs of consecutive ones: run {@code i} holds {@code firsts[i]} to {@code lasts[i]}, sorted by their
     * first offset. Runs may overlap: an offset held by two rows lies in two runs.
     */
    record OffsetRuns(long[] firsts, long[] lasts) {
        public OffsetRuns {
            if (firsts.length != lasts.length) throw new IllegalArgumentException("firsts and lasts differ in length");
        }

        /** The runs of the first {@code count} of {@code offsets}, in any order (the array is sorted in place). */
        public static OffsetRuns of(long[] offsets, int count) {
            java.util.Arrays.sort(offsets, 0, count);
            long[] firsts = new long[count];
            long[] lasts = new long[count];
            int runs = 0;
            for (int i = 0; i < count; i++) {
                long o = offsets[i];
                if (runs > 0 && o == lasts[runs - 1] + 1) {
                    lasts[runs - 1] = o;
                } else {
                    firsts[runs] = o;
                    lasts[runs] = o;
                    runs++;
                }
            }
            return new OffsetRuns(java.util.Arrays.copyOf(firsts, runs), java.util.Arrays.copyOf(lasts, runs));
        }

        public static OffsetRuns of(Collection<Long> offsets) {
            long[] a = new long[offsets.size()];
            int i = 0;
            for (long o : offsets) a[i++] = o;
            return of(a, a.length);
        }

        public int size() {
            return firsts.length;
        }
    }

    /**
     * The data files of the table's current snapshot that may hold rows at or past {@code from}, for the self-audit to
     * read those it has not read yet ({@link #rowOffsets(String, DataFileRef, Collection, long)}); {@code since} is the
     * snapshot of its last listing, if any, for a listing of what changed since: pass it only while every file that
     * listing and those before it named is remembered. Empty when this store cannot list its files: the self-audit then reads the
     * rows whole ({@link #rowOffsets(String, Collection, long)}).
     */
    default java.util.Optional<FileListing> dataFiles(String table, long from, java.util.OptionalLong since)
            throws StoreException {
        return java.util.Optional.empty();
    }

    /**
     * The offsets of the rows of these partitions in one data file of a {@link #dataFiles} listing, with its deletes
     * applied, only those at or past {@code from}; a partition with no row there is absent.
     */
    default Map<PartitionRef, OffsetRuns> rowOffsets(String table, DataFileRef file,
                                                     Collection<PartitionRef> partitions, long from)
            throws StoreException {
        throw new UnsupportedOperationException("this store lists no data files");
    }

    /**
     * Writes the dead letter of a bad record at {@code key}, relative to the warehouse and not to a table (a record
     * that names no table has a dead letter too), replacing one of the same key: a replay rewrites it. Durable when
     * this returns.
     *
     * @return where it lies, as the store names it (a URI such as {@code s3://bucket/dlq/app/events/...}), which with
     *         a {@code dlq_location} is not below the warehouse: for log lines and the status page
     * @throws StoreException not written; when not {@link StoreException#retryable()}, trying again will not help
     */
    String writeDeadLetter(String key, byte[] content) throws StoreException;

    /** The keys of the dead letters below {@code prefix} (relative to the warehouse, as written), for {@code audit}. */
    List<String> deadLetterKeys(String prefix) throws StoreException;

    /**
     * The content of the dead letter (or redrive note) at {@code key}, relative to the warehouse as written; empty when
     * there is none. For {@code redrive}.
     */
    java.util.Optional<byte[]> readDeadLetter(String key) throws StoreException;

    /** Deletes the dead letter (or note) at {@code key}; one already gone is no failure. For {@code redrive}. */
    void deleteDeadLetter(String key) throws StoreException;

    /**
     * Appends {@code files} to the table in one snapshot that leaves its offset map as it is and names the dead
     * letters whose records they hold in its summary ({@code iggy.redriven}), so that {@link #redriven} finds them
     * however the call ended. An outcome the catalog left unknown is looked up in the table's history before this
     * throws. For {@code redrive} (ADR 0018).
     *
     * @throws StoreException not committed, or (when {@link StoreException#retryable()}) perhaps committed: look the
     *                        letters up with {@link #redriven} before trying again
     */
    void commitRedriven(String table, List<Staged> files, Collection<String> letters) throws StoreException;

    /** The dead letters that snapshots of the table's history name as redriven into it ({@link #commitRedriven}). */
    Set<String> redriven(String table) throws StoreException;

    /** Deletes staged data files that will never be committed; failures are only logged. */
    void discard(Staged files);

    @Override
    void close();
}
