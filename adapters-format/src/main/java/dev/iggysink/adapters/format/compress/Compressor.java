package dev.iggysink.adapters.format.compress;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdOutputStream;
import dev.iggysink.adapters.format.buffer.BufferDirectory;
import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.adapters.format.buffer.SpillFile;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.settings.Compression;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.zip.GZIPOutputStream;

/** Whole-file compression at seal time: one gzip member or one zstd frame per file. */
public final class Compressor {
    /** zstd's default level; the Rust sink has no compression, so nothing to match. */
    public static final int ZSTD_LEVEL = 3;

    private Compressor() {
    }

    /**
     * The file's bytes, compressed as asked; the buffer is released, so only the result stays on the heap. Plain
     * files are the buffer's own chunks; gzip reads the chunks and writes into chunks of its own, so neither is ever
     * gathered into one array.
     */
    public static FileBytes apply(Compression compression, ByteBuf content) {
        return switch (compression) {
            case NONE -> content.takeFileBytes();
            case GZIP -> gzip(content);
            case ZSTD -> zstd(content);
        };
    }

    /**
     * A file written to disk as it grew ({@link BufferDirectory}), compressed as asked into another file there; the
     * plain file is deleted. The heap holds only the compressor's own buffers.
     */
    public static FileBytes applyOnDisk(Compression compression, FileBytes plain, BufferDirectory dir) {
        if (compression == Compression.NONE) return plain;
        SpillFile out = null;
        try {
            out = SpillFile.createHeldOpen(dir);
            SpillFile target = out;
            OutputStream sink = new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    target.append(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    target.append(b, off, len);
                }
            };
            try (OutputStream compressed = compression == Compression.GZIP
                    ? new GZIPOutputStream(sink, 64 * 1024)
                    : new ZstdOutputStream(sink, ZSTD_LEVEL)) {
                plain.writeTo(compressed);
            }
            return out.seal();
        } catch (IOException e) {
            if (out != null) out.discard();
            throw new UncheckedIOException("cannot compress a file in " + dir, e);
        } finally {
            plain.release();
        }
    }

    private static FileBytes gzip(ByteBuf content) {
        // A quarter of the input is about what JSON compresses to; the chunks double from there as needed.
        ByteBuf out = new ByteBuf(Math.max(64, Math.min(content.length() / 4, 1 << 20) - ByteBuf.HEADER_SLACK));
        try (GZIPOutputStream gz = new GZIPOutputStream(out.asOutputStream(), 64 * 1024)) {
            content.writeTo(gz);
        } catch (IOException e) {
            throw new UncheckedIOException("gzip into memory failed", e); // cannot happen with a byte array
        }
        content.release();
        return out.takeFileBytes();
    }

    private static FileBytes zstd(ByteBuf content) {
        // zstd-jni compresses one array into one array: the plain chunks are gathered once (and dropped at once),
        // the compressed result is kept as it is.
        return FileBytes.of(Zstd.compress(content.takeBytes(), ZSTD_LEVEL));
    }
}
