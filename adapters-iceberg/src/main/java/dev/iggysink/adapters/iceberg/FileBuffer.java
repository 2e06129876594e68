package dev.iggysink.adapters.iceberg;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.inmemory.InMemoryInputFile;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * A data file's bytes in memory, written by Iceberg's Parquet writer and then read where they are: in chunks that
 * are never copied, each as large as what came before it (8 KiB at first, at most 1 MiB).
 *
 * <p>Why not Iceberg's {@code InMemoryOutputFile}: its stream grows one array by doubling, and its file copies the
 * bytes twice (when the stream closes and when they are asked for), so closing an 8 MiB data file held up to 40 MiB
 * at once: the writer's pages, an array of up to twice the file and two copies. Here it holds the pages and the file,
 * and at most a chunk more.
 */
final class FileBuffer implements OutputFile {
    private static final int FIRST = 8 * 1024;
    private static final int LARGEST = 1024 * 1024;
    private final String location;
    private final List<byte[]> chunks = new ArrayList<>();
    /** The last chunk, and how much of it is written; the chunks before it are full. */
    private byte[] last;
    private int used;
    private long length;
    private long capacity;
    private boolean closed;

    FileBuffer(String location) {
        this.location = location;
    }

    /** How many bytes were written. */
    long length() {
        return length;
    }

    /** What the chunks hold on the heap. */
    long capacity() {
        return capacity;
    }

    /** The file's bytes, the chunks themselves (not copied): valid until the next {@link #createOrOverwrite}. */
    dev.iggysink.application.file.FileBytes bytes() {
        byte[][] all = chunks.toArray(new byte[0][]);
        int[] filled = new int[all.length];
        for (int i = 0; i < all.length; i++) filled[i] = all[i] == last ? used : all[i].length;
        return dev.iggysink.application.file.FileBytes.ofChunks(all, filled);
    }

    /** Writes the file's bytes to {@code out}. */
    void writeTo(OutputStream out) throws IOException {
        for (byte[] chunk : chunks) out.write(chunk, 0, chunk == last ? used : chunk.length);
    }

    @Override
    public PositionOutputStream create() {
        return createOrOverwrite();
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
        chunks.clear();
        last = null;
        used = 0;
        length = 0;
        capacity = 0;
        closed = false;
        return new PositionOutputStream() {
            @Override
            public long getPos() {
                return length;
            }

            @Override
            public void write(int b) {
                room();
                last[used++] = (byte) b;
                length++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                while (len > 0) {
                    room();
                    int n = Math.min(len, last.length - used);
                    System.arraycopy(b, off, last, used, n);
                    used += n;
                    length += n;
                    off += n;
                    len -= n;
                }
            }

            @Override
            public void close() {
                closed = true;
            }

            private void room() {
                if (closed) throw new IllegalStateException("the data file " + location + " is closed");
                if (last != null && used < last.length) return;
                last = new byte[(int) Math.min(LARGEST, Math.max(FIRST, length))];
                chunks.add(last);
                used = 0;
                capacity += last.length;
            }
        };
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public InputFile toInputFile() {
        byte[] all = new byte[Math.toIntExact(length)];
        int at = 0;
        for (byte[] chunk : chunks) {
            int n = chunk == last ? used : chunk.length;
            System.arraycopy(chunk, 0, all, at, n);
            at += n;
        }
        return new InMemoryInputFile(location, all);
    }
}
