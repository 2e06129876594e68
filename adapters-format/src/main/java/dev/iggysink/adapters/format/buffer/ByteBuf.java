package dev.iggysink.adapters.format.buffer;

import dev.iggysink.application.file.FileBytes;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * A growable byte buffer: the open file's bytes, written in place without a stream per record. Not thread-safe.
 *
 * <p>It grows by adding chunks, never by copying: each chunk twice the last, up to {@value #MAX_CHUNK} bytes. A
 * file of 8 MiB then holds at most 12 MiB, where one doubling array held 16 MiB (its last growth step) and 24 MiB
 * while growing, and copied every byte once more per step.
 *
 * <p>Chunk sizes are powers of two less {@value #HEADER_SLACK} bytes, so that an array with its header fits whole
 * G1 regions: the large chunks are humongous objects on any heap with regions up to 8 MiB, reclaimed as soon as they
 * are free and never copied by young collections; a power of two itself would take one more region (twice the
 * memory with 1 MiB regions, a heap of 256 MiB).
 *
 * <p>At seal time {@link #takeFileBytes} hands the chunks over as they are: the sealed file is never gathered into
 * one array. Chunks come from a {@link ChunkPool} and go back to it when the buffer lets go of them unread
 * ({@link #release}, {@link #truncate}) or when the sealed file's owner releases it after the upload.
 */
public final class ByteBuf {
    /** Room for an array header (16 bytes with compressed class pointers, 24 without) and then some. */
    public static final int HEADER_SLACK = 64;
    private static final int MAX_CHUNK = (4 << 20) - HEADER_SLACK;
    private static final int MAX_LENGTH = Integer.MAX_VALUE - 8;
    private static final byte[] EMPTY = new byte[0];

    private final ChunkPool pool;
    private byte[][] chunks = new byte[4][];
    /** Bytes used in each chunk before the current one. */
    private int[] fills = new int[4];
    /** Chunks in use; the last one is {@link #current}. */
    private int count;
    private byte[] current;
    /** Bytes used in {@link #current}. */
    private int pos;
    /** Bytes in the chunks before the current one. */
    private int before;

    public ByteBuf(int initialCapacity) {
        this(initialCapacity, ChunkPool.SHARED);
    }

    public ByteBuf(int initialCapacity, ChunkPool pool) {
        this.pool = pool;
        current = pool.take(Math.max(16, initialCapacity));
        chunks[0] = current;
        count = 1;
    }

    public int length() {
        return before + pos;
    }

    /** Drops everything after {@code newLength}: how a record that failed half-way is taken back. */
    public void truncate(int newLength) {
        if (newLength < 0 || newLength > length()) throw new IllegalArgumentException("bad length " + newLength);
        while (newLength < before) {
            pool.give(chunks[--count]);
            chunks[count] = null;
            current = chunks[count - 1];
            pos = fills[count - 1];
            before -= pos;
        }
        pos = newLength - before;
    }

    public void write(int b) {
        if (pos == current.length) nextChunk(1);
        current[pos++] = (byte) b;
    }

    public void write(byte[] src) {
        write(src, 0, src.length);
    }

    public void write(byte[] src, int offset, int count) {
        checkRoom(count);
        while (count > 0) {
            if (pos == current.length) nextChunk(count);
            int n = Math.min(count, current.length - pos);
            System.arraycopy(src, offset, current, pos, n);
            pos += n;
            offset += n;
            count -= n;
        }
    }

    /** Writes a string known to be ASCII (digits, field names, base64). */
    public void writeAscii(String s) {
        int n = s.length();
        byte[] a = reserve(n);
        int p = pos;
        for (int i = 0; i < n; i++) a[p++] = (byte) s.charAt(i);
        pos = p;
    }

    /** Writes {@code v} in decimal, as {@link Long#toString(long)} prints it, without the String. */
    public void writeLong(long v) {
        if (v == Long.MIN_VALUE) {
            writeAscii("-9223372036854775808");
            return;
        }
        byte[] a = reserve(20);
        if (v < 0) {
            a[pos++] = '-';
            v = -v;
        }
        int n = 1;
        for (long t = v; t >= 10; t /= 10) n++;
        int end = pos + n;
        for (int i = end - 1; i >= pos; i--) {
            a[i] = (byte) ('0' + (int) (v % 10));
            v /= 10;
        }
        pos = end;
    }

    /** A copy of the content. */
    public byte[] toByteArray() {
        byte[] out = new byte[length()];
        int at = 0;
        for (int i = 0; i < count - 1; i++) {
            System.arraycopy(chunks[i], 0, out, at, fills[i]);
            at += fills[i];
        }
        System.arraycopy(current, 0, out, at, pos);
        return out;
    }

    /** Hands the content to {@code visitor}, chunk by chunk, in order. */
    void forEachChunk(FileBytes.ChunkVisitor visitor) throws IOException {
        for (int i = 0; i < count - 1; i++) visitor.accept(chunks[i], 0, fills[i]);
        visitor.accept(current, 0, pos);
    }

    /** Writes the content to {@code out}, chunk by chunk. */
    public void writeTo(OutputStream out) throws IOException {
        forEachChunk(out::write);
    }

    /**
     * The content as one array of its own length (the only chunk itself when it is exactly full, else a copy), and
     * the buffer lets go of its chunks: a sealed file's bytes then live once on the heap while it uploads.
     */
    public byte[] takeBytes() {
        if (count == 1 && pos == current.length) {
            byte[] out = current;
            forget();
            return out;
        }
        byte[] out = toByteArray();
        release();
        return out;
    }

    /**
     * The content, chunks not copied, and the buffer lets go of them: the sealed file's bytes then live once on the
     * heap, in the arrays that were written, while it uploads.
     */
    public FileBytes takeFileBytes() {
        fills[count - 1] = pos;
        byte[][] taken = Arrays.copyOf(chunks, count);
        ChunkPool to = pool;
        FileBytes out = FileBytes.ofChunks(taken, Arrays.copyOf(fills, count), () -> {
            for (byte[] chunk : taken) to.give(chunk);
        });
        forget();
        return out;
    }

    /** An output stream that appends to this buffer (for libraries that write to a stream). */
    public OutputStream asOutputStream() {
        return new OutputStream() {
            @Override
            public void write(int b) {
                ByteBuf.this.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                ByteBuf.this.write(b, off, len);
            }
        };
    }

    /** Empties the buffer and gives its chunks back to the pool: nothing may read them any more. */
    public void release() {
        for (int i = 0; i < count; i++) {
            if (chunks[i] != null && chunks[i].length > 0) pool.give(chunks[i]);
        }
        forget();
    }

    /** Empties the buffer and drops its chunks, which someone else now owns. */
    private void forget() {
        Arrays.fill(chunks, null);
        current = EMPTY;
        chunks[0] = current;
        count = 1;
        pos = 0;
        before = 0;
    }

    /** Bytes the buffer holds on the heap, used or not. */
    public long capacity() {
        long sum = 0;
        for (int i = 0; i < count; i++) sum += chunks[i].length;
        return sum;
    }

    /**
     * Makes room for {@code extra} more contiguous bytes and returns the array to write them into, from
     * {@link #position()}; the caller then calls {@link #setPosition}. The array is only valid until the next write.
     */
    public byte[] reserve(int extra) {
        if (extra > current.length - pos) {
            checkRoom(extra);
            nextChunk(extra);
        }
        return current;
    }

    /** Where the next byte goes in the array {@link #reserve} returned. */
    public int position() {
        return pos;
    }

    /** Commits bytes written directly into the array from {@link #reserve}, up to (not including) {@code p}. */
    public void setPosition(int p) {
        if (p < 0 || p > current.length) throw new IllegalArgumentException("bad position " + p);
        pos = p;
    }

    private void checkRoom(int extra) {
        long needed = (long) length() + extra;
        if (extra < 0 || needed > MAX_LENGTH) throw new OutOfMemoryError("file buffer above 2 GiB");
    }

    /** Closes the current chunk as it is and starts one with room for at least {@code extra} bytes. */
    private void nextChunk(int extra) {
        long doubled = 2L * (Math.max(16, current.length) + HEADER_SLACK) - HEADER_SLACK;
        int size = Math.max(extra, (int) Math.min(MAX_CHUNK, doubled));
        if (count == chunks.length) {
            chunks = Arrays.copyOf(chunks, count * 2);
            fills = Arrays.copyOf(fills, count * 2);
        }
        if (current.length == 0) {
            // Released or empty: replace the empty chunk rather than keep it.
            count--;
        } else {
            fills[count - 1] = pos;
            before += pos;
        }
        current = pool.take(size);
        chunks[count++] = current;
        pos = 0;
    }
}
