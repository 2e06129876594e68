package dev.iggysink.application.file;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of one sealed file, as the encoder left them: a run of arrays (an encoder's buffer grows by chunks)
 * that are read in place and never copied into one. The store sends them as they are, so a pending file lives once
 * on the heap. Immutable and re-readable: every read starts afresh, so a retried upload sends the same bytes; the
 * arrays handed to it must not be written to afterwards.
 *
 * <p>Once the file is in the store, its owner calls {@link #release}: the encoder that made the arrays may then
 * reuse them for later files. Nothing may read the bytes after that (reads then fail rather than send another file's
 * bytes), so only the one who decides that no read is under way or will start releases: the uploader, in the thread
 * whose {@code put} has returned.
 *
 * <p>The bytes may also lie outside the heap ({@link #ofSource}, e.g. a local file an adapter wrote as the file
 * grew), so the heap never held them; reads then go to the {@link Source}, a block at a time.
 */
public final class FileBytes {
    /** No bytes. */
    public static final FileBytes EMPTY = new FileBytes(new byte[0][], new int[0], 0, 0, new Owner(null));

    /** Receives the file's bytes a chunk at a time. */
    @FunctionalInterface
    public interface ChunkVisitor {
        void accept(byte[] array, int offset, int length) throws IOException;
    }

    private static final Cleaner CLEANER = Cleaner.create();

    /**
     * Bytes kept outside the heap by an adapter. Reads may run in several threads at once (a retried upload, the
     * parts of a multipart upload); {@link #discard} runs once, after the last read.
     */
    public interface Source {
        /** Hands the {@code length} bytes from {@code offset} to {@code visitor}, in order, a block at a time. */
        void read(long offset, long length, ChunkVisitor visitor) throws IOException;

        /** A stream of the {@code length} bytes from {@code offset}; it opens what it reads on its first read. */
        InputStream open(long offset, long length);

        /** Frees the bytes (deletes the file); nothing reads them afterwards. Must not throw. */
        void discard();

        /**
         * Writes the {@code length} bytes from {@code offset} to {@code target}, all of them; a source that can hand
         * them to the target without passing them through the heap (a file sent to a socket) does so.
         */
        default void transferTo(long offset, long length, WritableByteChannel target) throws IOException {
            read(offset, length, (array, from, n) -> writeFully(target, ByteBuffer.wrap(array, from, n)));
        }
    }

    private static void writeFully(WritableByteChannel target, ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) target.write(bytes);
    }

    private final byte[][] chunks;
    /** Bytes used at the start of each chunk. */
    private final int[] used;
    /** Where this view starts in the concatenated chunks. */
    private final long start;
    private final long length;
    /** Shared by a file and its slices: one release for all. */
    private final Owner owner;
    /** Where the bytes are when they are not {@link #chunks}; null when they are. */
    private final Source source;
    /** The CRC32C of these bytes when their maker computed it as it wrote them, else -1. */
    private final long crc32c;

    private FileBytes(byte[][] chunks, int[] used, long start, long length, Owner owner) {
        this(chunks, used, start, length, owner, null, -1);
    }

    private FileBytes(byte[][] chunks, int[] used, long start, long length, Owner owner, Source source,
                      long crc32c) {
        this.chunks = chunks;
        this.used = used;
        this.start = start;
        this.length = length;
        this.owner = owner;
        this.source = source;
        this.crc32c = crc32c;
    }

    private static final class Owner {
        final AtomicBoolean released = new AtomicBoolean();
        /** Bytes handed out by every view: how far the uploads of these bytes got. */
        final AtomicLong handedOut = new AtomicLong();
        /** Set before the first FileBytes of this owner is made, never after. */
        Runnable onRelease;

        Owner(Runnable onRelease) {
            this.onRelease = onRelease;
        }
    }

    /** The whole array, not copied. */
    public static FileBytes of(byte[] bytes) {
        return of(bytes, bytes.length);
    }

    /** The first {@code length} bytes of {@code bytes}, not copied. */
    public static FileBytes of(byte[] bytes, int length) {
        Objects.checkFromIndexSize(0, length, bytes.length);
        return new FileBytes(new byte[][] {bytes}, new int[] {length}, 0, length, new Owner(null));
    }

    /**
     * The first {@code used[i]} bytes of each {@code chunks[i]}, in order; the chunks themselves are not copied.
     */
    public static FileBytes ofChunks(byte[][] chunks, int[] used) {
        return ofChunks(chunks, used, null);
    }

    /**
     * As {@link #ofChunks(byte[][], int[])}; {@code onRelease} (may be null) runs once, at the first {@link #release},
     * and may reuse the chunks.
     */
    public static FileBytes ofChunks(byte[][] chunks, int[] used, Runnable onRelease) {
        if (chunks.length != used.length) throw new IllegalArgumentException("one used length per chunk");
        long total = 0;
        for (int i = 0; i < chunks.length; i++) {
            Objects.checkFromIndexSize(0, used[i], chunks[i].length);
            total += used[i];
        }
        return new FileBytes(chunks.clone(), used.clone(), 0, total, new Owner(onRelease));
    }

    /**
     * The first {@code length} bytes of {@code source}, read each time they are read. The source is discarded at
     * {@link #release}, or once no view of these bytes is reachable any more (a file whose upload was abandoned, or
     * dropped with its partition), whichever comes first.
     */
    public static FileBytes ofSource(Source source, long length) {
        return ofSource(source, length, -1);
    }

    /**
     * As {@link #ofSource(Source, long)}, with the CRC32C of the {@code length} bytes, computed by whoever wrote them
     * (so a store that sends a checksum need not read them once more for it); -1 when not known.
     */
    public static FileBytes ofSource(Source source, long length, long crc32c) {
        Objects.requireNonNull(source, "source");
        if (length < 0) throw new IllegalArgumentException("length " + length);
        if (crc32c < -1 || crc32c > 0xffffffffL) throw new IllegalArgumentException("crc32c " + crc32c);
        Owner owner = new Owner(null);
        // The action must not reach the owner, or the owner would never become unreachable.
        Cleaner.Cleanable discard = CLEANER.register(owner, source::discard);
        owner.onRelease = discard::clean;
        return new FileBytes(new byte[0][], new int[0], 0, length, owner, source, crc32c);
    }

    /** The CRC32C of these bytes, when their maker computed it (a whole file, not a slice of it). */
    public OptionalLong crc32c() {
        return crc32c < 0 ? OptionalLong.empty() : OptionalLong.of(crc32c);
    }

    /** True when the bytes lie outside the heap ({@link #ofSource}). */
    public boolean offHeap() {
        return source != null;
    }

    /**
     * Bytes handed out so far by this view and every slice of the same bytes, counted as they are passed on (a
     * chunk once its visitor returned): an upload still sending them, part after part, moves it.
     */
    public long bytesHandedOut() {
        return owner.handedOut.get();
    }

    public long length() {
        return length;
    }

    /** The {@code length} bytes from {@code offset}: a view over the same arrays (a multipart part). */
    public FileBytes slice(long offset, long length) {
        if (offset < 0 || length < 0 || offset > this.length - length) {
            throw new IndexOutOfBoundsException("slice " + offset + "+" + length + " of " + this.length + " bytes");
        }
        return new FileBytes(chunks, used, start + offset, length, owner, source,
                offset == 0 && length == this.length ? crc32c : -1);
    }

    /**
     * Declares that the bytes (of this file and every slice of it) will not be read again, so that their arrays can
     * be reused; the second and later calls do nothing. Reads after it throw {@link IllegalStateException}. Bytes
     * made without a release action (arrays nobody reuses, {@link #EMPTY}) stay readable.
     */
    public void release() {
        if (owner.onRelease != null && owner.released.compareAndSet(false, true)) owner.onRelease.run();
    }

    public boolean released() {
        return owner.released.get();
    }

    private void checkNotReleased() {
        if (owner.released.get()) throw new IllegalStateException("file bytes read after release");
    }

    /** Hands every byte to {@code visitor} in order, in as few calls as the chunks allow. */
    public void forEachChunk(ChunkVisitor visitor) throws IOException {
        checkNotReleased();
        if (source != null) {
            source.read(start, length, (array, from, n) -> {
                visitor.accept(array, from, n);
                owner.handedOut.addAndGet(n);
            });
            return;
        }
        long skip = start;
        long left = length;
        for (int i = 0; i < chunks.length && left > 0; i++) {
            if (skip >= used[i]) {
                skip -= used[i];
                continue;
            }
            int from = (int) skip;
            int n = (int) Math.min(left, used[i] - from);
            visitor.accept(chunks[i], from, n);
            owner.handedOut.addAndGet(n);
            left -= n;
            skip = 0;
        }
    }

    public void writeTo(OutputStream out) throws IOException {
        forEachChunk(out::write);
    }

    /** Writes every byte to {@code target}; bytes outside the heap go there without a copy on the heap. */
    public void transferTo(WritableByteChannel target) throws IOException {
        checkNotReleased();
        if (source != null) {
            source.transferTo(start, length, target);
            owner.handedOut.addAndGet(length);
            return;
        }
        forEachChunk((array, from, n) -> writeFully(target, ByteBuffer.wrap(array, from, n)));
    }

    /** A new stream over the bytes; each call starts at the beginning. */
    public InputStream openStream() {
        checkNotReleased();
        return source != null ? new SourceStream() : new ChunkStream();
    }

    /** A copy in one array: for tests and small files, not for the upload path. */
    public byte[] toByteArray() {
        if (length > Integer.MAX_VALUE - 8) throw new IllegalStateException(length + " bytes do not fit one array");
        byte[] out = new byte[(int) length];
        int[] at = {0};
        try {
            forEachChunk((a, off, n) -> {
                System.arraycopy(a, off, out, at[0], n);
                at[0] += n;
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + this, e);
        }
        return out;
    }

    @Override
    public String toString() {
        if (source != null) return "FileBytes[" + length + " bytes in " + source + "]";
        return "FileBytes[" + length + " bytes in " + chunks.length + " chunk(s)]";
    }

    /** The source's stream, refused once the bytes are released. */
    private final class SourceStream extends InputStream {
        private final InputStream in = source.open(start, length);

        @Override
        public int read() throws IOException {
            checkNotReleased();
            int b = in.read();
            if (b >= 0) owner.handedOut.incrementAndGet();
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            checkNotReleased();
            int n = in.read(b, off, len);
            if (n > 0) owner.handedOut.addAndGet(n);
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            return in.skip(n);
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** Reads the view chunk by chunk, without copying it first. */
    private final class ChunkStream extends InputStream {
        private int chunk;
        private int pos;
        private long left = length;

        ChunkStream() {
            long skip = start;
            while (chunk < chunks.length && skip >= used[chunk] && skip > 0) {
                skip -= used[chunk];
                chunk++;
            }
            pos = (int) skip;
        }

        /** Moves past spent chunks; false at the end. */
        private boolean ready() {
            if (left == 0) return false;
            while (pos >= used[chunk]) {
                chunk++;
                pos = 0;
            }
            return true;
        }

        @Override
        public int read() {
            if (!ready()) return -1;
            left--;
            owner.handedOut.incrementAndGet();
            return chunks[chunk][pos++] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) return 0;
            if (!ready()) return -1;
            int n = (int) Math.min(Math.min(len, left), used[chunk] - pos);
            System.arraycopy(chunks[chunk], pos, b, off, n);
            pos += n;
            left -= n;
            owner.handedOut.addAndGet(n);
            return n;
        }

        @Override
        public long skip(long n) {
            long skipped = 0;
            while (skipped < n && ready()) {
                int k = (int) Math.min(Math.min(n - skipped, left), used[chunk] - pos);
                pos += k;
                left -= k;
                skipped += k;
            }
            return skipped;
        }

        @Override
        public int available() {
            return (int) Math.min(Integer.MAX_VALUE, left);
        }

        @Override
        public long transferTo(OutputStream out) throws IOException {
            long n = left;
            slice(length - left, left).writeTo(out);
            left = 0;
            return n;
        }
    }
}
