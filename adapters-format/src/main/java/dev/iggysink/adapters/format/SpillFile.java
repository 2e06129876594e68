package dev.iggysink.adapters.format;

import dev.iggysink.application.port.out.FileBytes;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One open file's bytes on disk, in a {@link BufferDirectory}: written at the end as the encoder's buffer fills, and
 * handed over as a {@link FileBytes} at seal. A file that is never sealed (its partition was halted or revoked, the
 * encoder dropped) is deleted once it is garbage, or with its directory at stop. Not thread-safe.
 */
final class SpillFile {
    private static final Cleaner CLEANER = Cleaner.create();

    /** What must be undone if the file is dropped unsealed; references neither the SpillFile nor the encoder. */
    private static final class Open implements Runnable {
        final Path path;
        final FileChannel channel;
        volatile boolean handedOver;

        Open(Path path, FileChannel channel) {
            this.path = path;
            this.channel = channel;
        }

        @Override
        public void run() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // deleting it below is what matters
            }
            if (!handedOver) BufferDirectory.deleteQuietly(path);
        }
    }

    private final Open open;
    private final Cleaner.Cleanable cleanable;
    /** Bytes written in full; a failed write is written again from here. */
    private long size;

    private SpillFile(Open open) {
        this.open = open;
        this.cleanable = CLEANER.register(this, open);
    }

    static SpillFile create(BufferDirectory dir) throws IOException {
        Path path = dir.newFile();
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.WRITE);
        } catch (IOException e) {
            BufferDirectory.deleteQuietly(path);
            throw e;
        }
        return new SpillFile(new Open(path, channel));
    }

    long size() {
        return size;
    }

    Path path() {
        return open.path;
    }

    /**
     * Writes the buffer's content after what is already on disk. On failure (a full disk) nothing counts as written,
     * and the buffer is left as it was: the caller keeps the bytes and may try again later.
     */
    void append(ByteBuf buf) throws IOException {
        long[] at = {size};
        buf.forEachChunk((array, offset, length) -> {
            ByteBuffer src = ByteBuffer.wrap(array, offset, length);
            while (src.hasRemaining()) at[0] += open.channel.write(src, at[0]);
        });
        size = at[0];
    }

    /** Writes the given bytes after what is already on disk (same failure rule as {@link #append(ByteBuf)}). */
    void append(byte[] array, int offset, int length) throws IOException {
        long at = size;
        ByteBuffer src = ByteBuffer.wrap(array, offset, length);
        while (src.hasRemaining()) at += open.channel.write(src, at);
        size = at;
    }

    /**
     * Closes the file and hands it over: the returned bytes are the file's {@link #size} bytes, and releasing them
     * (or dropping them) deletes it.
     */
    FileBytes seal() throws IOException {
        open.handedOver = true;
        cleanable.clean(); // closes the channel; the file now belongs to the FileBytes
        return LocalFile.bytes(open.path, size);
    }

    /** Closes and deletes the file. */
    void discard() {
        cleanable.clean();
    }
}
