package dev.iggysink.adapters.format.buffer;

import dev.iggysink.application.file.FileBytes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * A sealed file's bytes in a local file of a {@link BufferDirectory}: read from the page cache each time, with
 * positional reads (several readers at once need no shared position), and given back to the directory (to be
 * written over, or deleted) when discarded.
 */
final class LocalFile implements FileBytes.Source {
    /** Read block: under the launcher's pretenuring size, so each block stays young garbage. */
    private static final int BLOCK = 48 * 1024;

    private final BufferDirectory dir;
    private final Path path;

    LocalFile(BufferDirectory dir, Path path) {
        this.dir = Objects.requireNonNull(dir, "dir");
        this.path = Objects.requireNonNull(path, "path");
    }

    /** The first {@code length} bytes of the file at {@code path}, given back to {@code dir} when released. */
    static FileBytes bytes(BufferDirectory dir, Path path, long length) {
        return bytes(dir, path, length, -1);
    }

    /** As {@link #bytes(BufferDirectory, Path, long)}, with the bytes' CRC32C as their writer computed it (-1: not known). */
    static FileBytes bytes(BufferDirectory dir, Path path, long length, long crc32c) {
        return FileBytes.ofSource(new LocalFile(dir, path), length, crc32c);
    }

    @Override
    public void read(long offset, long length, FileBytes.ChunkVisitor visitor) throws IOException {
        byte[] block = new byte[(int) Math.min(BLOCK, Math.max(1, length))];
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long at = offset;
            long end = offset + length;
            while (at < end) {
                int n = channel.read(ByteBuffer.wrap(block, 0, (int) Math.min(block.length, end - at)), at);
                if (n < 0) throw shortFile(at, end);
                visitor.accept(block, 0, n);
                at += n;
            }
        }
    }

    /** With {@link FileChannel#transferTo}: to a socket, the kernel sends the page cache's pages as they are. */
    @Override
    public void transferTo(long offset, long length, WritableByteChannel target) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long at = offset;
            long end = offset + length;
            while (at < end) {
                long n = channel.transferTo(at, end - at, target);
                if (n <= 0 && at >= channel.size()) throw shortFile(at, end);
                at += n;
            }
        }
    }

    @Override
    public InputStream open(long offset, long length) {
        return new Stream(offset, offset + length);
    }

    @Override
    public void discard() {
        dir.release(path);
    }

    private IOException shortFile(long at, long end) {
        return new IOException("buffer file " + path + " ends at byte " + at + " of " + end
                + " (changed or truncated while in use)");
    }

    @Override
    public String toString() {
        return path.getFileName().toString();
    }

    /**
     * Reads its range from the start; the file is open from the first read to the end or close. Reads go through a
     * block of its own: HTTP clients read a body 4 KiB at a time, and a system call per 4 KiB, twice per file (the
     * payload hash, then the body), showed in the sink's CPU per record (figures:
     * docs/adr/0007-file-bodies-by-sendfile-over-http.md).
     */
    private final class Stream extends InputStream {
        private final long end;
        /** File position of the next byte not yet in {@link #block}. */
        private long at;
        private FileChannel channel;
        private byte[] block;
        private int blockPos;
        private int blockEnd;

        Stream(long from, long end) {
            this.at = from;
            this.end = end;
        }

        private long left() {
            return end - at + (blockEnd - blockPos);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) return 0;
            if (blockPos == blockEnd) {
                if (at >= end) {
                    close();
                    return -1;
                }
                if (len >= BLOCK) return readFile(b, off, len); // large reads skip the block
                fill();
            }
            int n = Math.min(len, blockEnd - blockPos);
            System.arraycopy(block, blockPos, b, off, n);
            blockPos += n;
            return n;
        }

        private void fill() throws IOException {
            if (block == null) block = new byte[(int) Math.min(BLOCK, end - at)];
            blockPos = 0;
            blockEnd = readFile(block, 0, block.length);
        }

        private int readFile(byte[] b, int off, int len) throws IOException {
            if (channel == null) channel = FileChannel.open(path, StandardOpenOption.READ);
            int n = channel.read(ByteBuffer.wrap(b, off, (int) Math.min(len, end - at)), at);
            if (n < 0) throw shortFile(at, end);
            at += n;
            return n;
        }

        @Override
        public long skip(long n) {
            long k = Math.max(0, Math.min(n, left()));
            int inBlock = (int) Math.min(k, blockEnd - blockPos);
            blockPos += inBlock;
            at += k - inBlock;
            return k;
        }

        @Override
        public int available() {
            return (int) Math.min(Integer.MAX_VALUE, left());
        }

        @Override
        public void close() throws IOException {
            if (channel != null) {
                channel.close();
                channel = null;
            }
        }
    }
}
