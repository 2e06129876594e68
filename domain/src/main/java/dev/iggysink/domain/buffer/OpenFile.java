package dev.iggysink.domain.buffer;

import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.FileProgress;
import dev.iggysink.domain.rotation.RotationReason;
import java.time.Instant;
import java.util.Objects;

/**
 * The bookkeeping of a file being filled for one partition and one rendered directory. Record bytes count the
 * encoded records only, without separators, brackets or framing, as the Rust sink counts them, so a
 * sealed object can be somewhat larger than the size limit. Not thread-safe; once sealed it takes no more records.
 */
public final class OpenFile implements FileProgress {
    private final PartitionRef partition;
    private final String directory;
    private final Instant openedAt;
    private long recordCount;
    private long recordBytes;
    private long firstOffset = -1;
    private long lastOffset = -1;
    private long firstTimestampMicros;
    private long lastTimestampMicros;
    private boolean sealed;

    /**
     * @param directory the rendered path (without prefix and file name) every record of this file goes to
     * @param openedAt  wall-clock time the file was opened, the start of a scheduled rotation period
     */
    public OpenFile(PartitionRef partition, String directory, Instant openedAt) {
        this.partition = Objects.requireNonNull(partition, "partition");
        this.directory = Objects.requireNonNull(directory, "directory");
        this.openedAt = Objects.requireNonNull(openedAt, "openedAt");
    }

    /** Accounts one encoded record; offsets must increase (gaps are allowed: records routed elsewhere). */
    public void add(long offset, long timestampMicros, long recordBytes) {
        if (sealed) throw new IllegalStateException("file of " + partition + " at " + firstOffset + " is sealed");
        if (offset < 0) throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        if (recordBytes < 0) throw new IllegalArgumentException("record bytes must be >= 0, was " + recordBytes);
        if (timestampMicros < 0) throw new IllegalArgumentException("timestamp must be >= 0, was " + timestampMicros);
        if (recordCount > 0 && offset <= lastOffset) {
            throw new IllegalArgumentException("offset " + offset + " is not after the last offset " + lastOffset
                    + " of " + partition);
        }
        if (recordCount == 0) {
            firstOffset = offset;
            firstTimestampMicros = timestampMicros;
        }
        lastOffset = offset;
        lastTimestampMicros = timestampMicros;
        recordCount++;
        this.recordBytes = Math.addExact(this.recordBytes, recordBytes);
    }

    /** Freezes the file into its upload description; the file takes no further records afterwards. */
    public SealedFile seal(String key, RotationReason reason) {
        requireRecords();
        if (sealed) throw new IllegalStateException("file of " + partition + " at " + firstOffset + " already sealed");
        SealedFile file = new SealedFile(partition, key, firstOffset, lastOffset, recordCount, recordBytes,
                firstTimestampMicros, reason);
        sealed = true;
        return file;
    }

    public PartitionRef partition() {
        return partition;
    }

    public String directory() {
        return directory;
    }

    @Override
    public Instant openedAt() {
        return openedAt;
    }

    @Override
    public boolean isEmpty() {
        return recordCount == 0;
    }

    public boolean isSealed() {
        return sealed;
    }

    @Override
    public long recordCount() {
        return recordCount;
    }

    @Override
    public long recordBytes() {
        return recordBytes;
    }

    public long firstOffset() {
        requireRecords();
        return firstOffset;
    }

    public long lastOffset() {
        requireRecords();
        return lastOffset;
    }

    @Override
    public long firstTimestampMicros() {
        requireRecords();
        return firstTimestampMicros;
    }

    public long lastTimestampMicros() {
        requireRecords();
        return lastTimestampMicros;
    }

    private void requireRecords() {
        if (recordCount == 0) throw new IllegalStateException("file of " + partition + " is empty");
    }

    @Override
    public String toString() {
        return "OpenFile[" + partition + ", " + directory + ", " + recordCount + " records, " + recordBytes + "B"
                + (recordCount == 0 ? "" : ", offsets " + firstOffset + ".." + lastOffset) + (sealed ? ", sealed" : "")
                + "]";
    }
}
