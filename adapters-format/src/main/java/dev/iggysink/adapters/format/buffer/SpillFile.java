package dev.iggysink.adapters.format.buffer;

import dev.iggysink.application.file.FileBytes;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * One open file's bytes on disk, in a {@link BufferDirectory}: written at the end as the encoder's buffer fills, and
 * handed over as a {@link FileBytes} at seal. A file that is never sealed (its partition was halted or revoked, the
 * encoder dropped) is deleted once it is garbage, or with its directory at stop. Not thread-safe.
 *
 * <p>An open file of the encoder keeps its descriptor from its first write until seal while the directory has one to
 * spare ({@link BufferDirectory#MAX_HELD_OPEN}); any further one is opened for each write (one per 256 KiB) and
 * closed again, so a sink with many partitions and open files holds a bounded number of descriptors. Why hold them:
 * opening and closing the file for each write costs CPU on every write (figures:
 * docs/adr/0005-open-files-in-a-buffer-directory.md). A compressor's
 * output, written in many small pieces over a short time, keeps its file open until seal, outside that bound.
 */
public final class SpillFile {
    private static final Cleaner CLEANER = Cleaner.create();

    /** What must be undone if the file is dropped unsealed; references neither the SpillFile nor the encoder. */
    private static final class Open implements Runnable {
        final BufferDirectory dir;
        final Path path;
        /** Whether the file holds one of the directory's descriptors to spare, given back when it is closed. */
        final boolean counted;
        /** Held only by a file kept open between writes. */
        volatile FileChannel channel;
        volatile boolean handedOver;

        Open(BufferDirectory dir, Path path, boolean counted) {
            this.dir = dir;
            this.path = path;
            this.counted = counted;
        }

        @Override
        public void run() {
            FileChannel c = channel;
            channel = null;
            if (c != null) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // deleting it below is what matters
                }
            }
            if (counted) dir.releaseHeldOpen();
            if (!handedOver) dir.release(path);
        }
    }

    private final Open open;
    private final boolean holdOpen;
    private final Cleaner.Cleanable cleanable;
    /** Bytes written in full; a failed write is written again from here. */
    private long size;
    /**
     * The CRC32C of those bytes, for a store that sends one with the file: computed here, while the bytes are at
     * hand, rather than by reading the whole file back before the upload.
     */
    private final CRC32C crc = new CRC32C();

    private SpillFile(Open open, boolean holdOpen) {
        this.open = open;
        this.holdOpen = holdOpen;
        this.cleanable = CLEANER.register(this, open);
    }

    /** A new file, kept open between writes if the directory has a descriptor to spare, else opened for each. */
    public static SpillFile create(BufferDirectory dir) throws IOException {
        Path path = dir.newFile();
        boolean held = dir.tryHoldOpen();
        return new SpillFile(new Open(dir, path, held), held);
    }

    /** A new file kept open from the first write until {@link #seal} or {@link #discard}. */
    public static SpillFile createHeldOpen(BufferDirectory dir) throws IOException {
        return new SpillFile(new Open(dir, dir.newFile(), false), true);
    }

    private FileChannel channel() throws IOException {
        FileChannel c = open.channel;
        if (c == null) {
            c = FileChannel.open(open.path, StandardOpenOption.WRITE);
            if (holdOpen) open.channel = c;
        }
        return c;
    }

    private void done(FileChannel c) throws IOException {
        if (!holdOpen) c.close();
    }

    /**
     * Writes the buffer's content after what is already on disk. On failure (a full disk) nothing counts as written,
     * and the buffer is left as it was: the caller keeps the bytes and may try again later.
     */
    public void append(ByteBuf buf) throws IOException {
        FileChannel c = channel();
        try {
            long[] at = {size};
            buf.forEachChunk((array, offset, length) -> {
                ByteBuffer src = ByteBuffer.wrap(array, offset, length);
                while (src.hasRemaining()) at[0] += c.write(src, at[0]);
            });
            size = at[0];
            buf.forEachChunk(crc::update);
        } finally {
            done(c);
        }
    }

    /** Writes the given bytes after what is already on disk (same failure rule as {@link #append(ByteBuf)}). */
    public void append(byte[] array, int offset, int length) throws IOException {
        FileChannel c = channel();
        try {
            long at = size;
            ByteBuffer src = ByteBuffer.wrap(array, offset, length);
            while (src.hasRemaining()) at += c.write(src, at);
            size = at;
            crc.update(array, offset, length);
        } finally {
            done(c);
        }
    }

    /**
     * Closes the file and hands it over: the returned bytes are the file's {@link #size} bytes, and releasing them
     * (or dropping them) gives the file back to its directory.
     */
    public FileBytes seal() {
        cutAfterSize();
        open.handedOver = true;
        cleanable.clean(); // closes a held channel; the file now belongs to the FileBytes
        return LocalFile.bytes(open.dir, open.path, size, crc.getValue());
    }

    /**
     * Cuts off what a reused file held beyond this file's bytes, so the file is exactly them and no page beyond
     * stays cached. Nothing reads past the size either way; failing here costs only those pages.
     */
    private void cutAfterSize() {
        try {
            FileChannel c = channel();
            try {
                if (c.size() > size) c.truncate(size);
            } finally {
                done(c);
            }
        } catch (IOException e) {
            // the bytes are whole; what lies after them is never read
        }
    }

    /** Closes the file and gives it back to its directory. */
    public void discard() {
        cleanable.clean();
    }
}
