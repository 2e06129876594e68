package dev.iggysink.adapters.format.buffer;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * Spare file-buffer chunks, handed back once their file is in the store and taken again by the files that follow.
 *
 * <p>Why: an 8 MiB file lives for seconds, long enough for its chunks to survive young collections, be copied and
 * promoted, and then die in the old generation, whose full collections then cost more than the encoding (figures:
 * docs/adr/0005-open-files-in-a-buffer-directory.md).
 * Reused chunks stay in the old generation for good, and young collections see only per-record garbage.
 *
 * <p>Only the buffer's own sizes (powers of two from 64 KiB to 4 MiB, less {@link ByteBuf#HEADER_SLACK}) are kept,
 * and no more than {@link #maxIdleBytes} of them at a time; the rest is left to the collector. A chunk comes back
 * only from its file's single owner, after the last read of it (see {@code FileBytes.release}). Thread-safe.
 */
final class ChunkPool {
    private static final int MIN_SHIFT = 16;
    private static final int MAX_SHIFT = 22;
    /** An eighth of the heap: 32 MiB of a 256 MiB heap; the rest of the heap is the budget's (HeapFit). */
    static final ChunkPool SHARED = new ChunkPool(Runtime.getRuntime().maxMemory() / 8);

    private final List<ConcurrentLinkedQueue<byte[]>> free = IntStream.rangeClosed(MIN_SHIFT, MAX_SHIFT)
            .mapToObj(shift -> new ConcurrentLinkedQueue<byte[]>()).toList();
    private final AtomicLong idle = new AtomicLong();
    private final long maxIdleBytes;

    ChunkPool(long maxIdleBytes) {
        this.maxIdleBytes = maxIdleBytes;
    }

    /** A chunk of exactly {@code size} bytes, a spare one when there is one; its content is undefined. */
    byte[] take(int size) {
        int c = sizeClass(size);
        if (c >= 0) {
            byte[] spare = free.get(c).poll();
            if (spare != null) {
                idle.addAndGet(-spare.length);
                return spare;
            }
        }
        return new byte[size];
    }

    /** Keeps {@code chunk} for reuse, if it is of a kept size and there is room; the caller must not touch it again. */
    void give(byte[] chunk) {
        int c = sizeClass(chunk.length);
        if (c < 0) return;
        if (idle.addAndGet(chunk.length) > maxIdleBytes) {
            idle.addAndGet(-chunk.length);
            return;
        }
        free.get(c).offer(chunk);
    }

    long idleBytes() {
        return idle.get();
    }

    private static int sizeClass(int size) {
        int withSlack = size + ByteBuf.HEADER_SLACK;
        if (Integer.bitCount(withSlack) != 1) return -1;
        int shift = Integer.numberOfTrailingZeros(withSlack);
        return shift < MIN_SHIFT || shift > MAX_SHIFT ? -1 : shift - MIN_SHIFT;
    }
}
