package dev.iggysink.domain.delivery;

import dev.iggysink.domain.buffer.SealedFile;
import dev.iggysink.domain.message.PartitionRef;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One partition's delivery bookkeeping: which offsets were read, which file each file-start offset belongs to and
 * how far that file got. The commit point is one before the smallest offset that is not yet durable, so several
 * open files per partition (records routed to different directories) are handled as well as one.
 *
 * <p>The caller keeps the invariant that every offset read belongs to exactly one file, open or sealed (a
 * dead-lettered record being a one-record file), and calls {@link #opened} for a file's first offset no later than
 * the next {@link #committable} query. Files are identified by their first offset.
 *
 * <p>After {@link #revoke} (the partition moved to another member) everything is forgotten, nothing is ever
 * committable again and every mutating call is ignored. Not thread-safe: the caller synchronizes.
 */
public final class DeliveryLedger {
    private static final class Entry {
        FileState state = FileState.OPEN;
        SealedFile file;
    }

    private final PartitionRef partition;
    private final NavigableMap<Long, Entry> files = new TreeMap<>();
    private long position;
    private long lastCommitted;
    private boolean revoked;

    /** @param committedOffset the group's stored offset, −1 when nothing was committed yet */
    public DeliveryLedger(PartitionRef partition, long committedOffset) {
        this.partition = Objects.requireNonNull(partition, "partition");
        if (committedOffset < -1) throw new IllegalArgumentException("committed offset must be >= -1");
        this.lastCommitted = committedOffset;
        this.position = committedOffset + 1;
    }

    public PartitionRef partition() {
        return partition;
    }

    /** Records that {@code offset} was read; offsets only grow (gaps are allowed). */
    public void read(long offset) {
        if (revoked) return;
        if (offset < position) {
            throw new IllegalArgumentException(partition + ": offset " + offset + " read again, position is "
                    + position);
        }
        position = offset + 1;
    }

    /** A new open file starts at {@code firstOffset}. */
    public void opened(long firstOffset) {
        if (revoked) return;
        if (firstOffset <= lastCommitted) {
            throw new IllegalArgumentException(partition + ": file at " + firstOffset
                    + " opened at or below the committed offset " + lastCommitted);
        }
        if (files.containsKey(firstOffset)) {
            throw new IllegalArgumentException(partition + ": file at " + firstOffset + " is already "
                    + files.get(firstOffset).state);
        }
        files.put(firstOffset, new Entry());
    }

    /** The open file at {@code file.firstOffset()} was sealed and now waits for upload. */
    public void sealed(SealedFile file) {
        if (revoked) return;
        Objects.requireNonNull(file, "file");
        if (!file.partition().equals(partition)) {
            throw new IllegalArgumentException("file of " + file.partition() + " sealed on the ledger of " + partition);
        }
        Entry e = require(file.firstOffset(), FileState.OPEN);
        e.file = file;
        e.state = FileState.PENDING;
    }

    /** The object store holds the file; idempotent. */
    public void durable(long firstOffset) {
        if (revoked) return;
        Entry e = require(firstOffset, FileState.PENDING, FileState.FAILED, FileState.DURABLE);
        e.state = FileState.DURABLE;
    }

    /** The last upload attempt failed; the file stays in the way of the commit point until it is durable. */
    public void failed(long firstOffset) {
        if (revoked) return;
        Entry e = require(firstOffset, FileState.PENDING, FileState.FAILED);
        e.state = FileState.FAILED;
    }

    /**
     * The state of a tracked file; fails for an unknown one (never opened, forgotten by a revoke, or durable and
     * dropped once its last offset was committed).
     */
    public FileState state(long firstOffset) {
        Entry e = files.get(firstOffset);
        if (e == null) {
            throw new IllegalArgumentException(partition + ": no file at " + firstOffset);
        }
        return e.state;
    }

    /** The next offset to read. */
    public long position() {
        return position;
    }

    /**
     * One before the smallest offset that is not durable, lowered further below any durable file that straddles it.
     * Nothing above it may be committed. The second rule is what makes a replay exact: after a crash the sink reads
     * again from the commit point + 1 with no file open, so no file may hold offsets on both sides of that point
     * (with several open files per partition, a durable file can interleave with a pending one; replaying from
     * inside it would write its tail again under another key).
     */
    public long commitPoint() {
        if (revoked) return lastCommitted;
        long smallestNotDurable = position;
        for (Map.Entry<Long, Entry> e : files.entrySet()) {
            if (e.getKey() >= smallestNotDurable) break;
            if (e.getValue().state != FileState.DURABLE) {
                smallestNotDurable = e.getKey();
                break;
            }
        }
        long point = smallestNotDurable - 1;
        boolean lowered = true;
        while (lowered) {
            lowered = false;
            for (Map.Entry<Long, Entry> e : files.headMap(point, true).entrySet()) {
                Entry entry = e.getValue();
                if (entry.state == FileState.DURABLE && entry.file.lastOffset() > point) {
                    point = e.getKey() - 1;
                    lowered = true;
                    break;
                }
            }
        }
        return point;
    }

    /** The offset to commit now, when the commit point moved past the last commit and the partition is still ours. */
    public OptionalLong committable() {
        if (revoked) return OptionalLong.empty();
        long point = commitPoint();
        return point > lastCommitted ? OptionalLong.of(point) : OptionalLong.empty();
    }

    /** The group's offset was stored; smaller or equal offsets are ignored, offsets past the commit point refused. */
    public void committed(long offset) {
        if (revoked || offset <= lastCommitted) return;
        long point = commitPoint();
        if (offset > point) {
            throw new IllegalArgumentException(partition + ": offset " + offset + " committed past the commit point "
                    + point);
        }
        lastCommitted = offset;
        dropCommittedDurable();
    }

    public long lastCommitted() {
        return lastCommitted;
    }

    /** Sealed files not yet durable (pending or failed), in offset order. */
    public List<SealedFile> notDurable() {
        List<SealedFile> out = new ArrayList<>();
        for (Entry e : files.values()) {
            if (e.file != null && e.state != FileState.DURABLE) out.add(e.file);
        }
        return out;
    }

    /** First offsets of the open files, ascending. */
    public List<Long> openFiles() {
        List<Long> out = new ArrayList<>();
        files.forEach((first, e) -> {
            if (e.state == FileState.OPEN) out.add(first);
        });
        return out;
    }

    /** Forgets everything: the partition belongs to another member now. */
    public void revoke() {
        revoked = true;
        files.clear();
    }

    public boolean revoked() {
        return revoked;
    }

    /** Files not yet durable, open ones included. */
    public long bufferedFiles() {
        return files.values().stream().filter(e -> e.state != FileState.DURABLE).count();
    }

    private Entry require(long firstOffset, FileState... allowed) {
        Entry e = files.get(firstOffset);
        if (e == null) throw new IllegalArgumentException(partition + ": no file at " + firstOffset);
        for (FileState s : allowed) {
            if (e.state == s) return e;
        }
        throw new IllegalStateException(partition + ": file at " + firstOffset + " is " + e.state);
    }

    // Durable files whose offsets are all committed no longer affect anything. They are kept until then so that
    // state() still answers DURABLE between the upload and the commit.
    private void dropCommittedDurable() {
        Iterator<Entry> it = files.values().iterator();
        while (it.hasNext()) {
            Entry e = it.next();
            if (e.state != FileState.DURABLE) break;
            if (e.file.lastOffset() <= lastCommitted) it.remove();
        }
    }

    @Override
    public String toString() {
        return "DeliveryLedger[" + partition + ", position " + position + ", committed " + lastCommitted + ", "
                + files.size() + " files" + (revoked ? ", revoked" : "") + "]";
    }
}
