package dev.iggysink.adapters.format;

import com.github.luben.zstd.Zstd;
import dev.iggysink.application.settings.Compression;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPOutputStream;

/** Whole-file compression at seal time: one gzip member or one zstd frame per file. */
final class Compressor {
    /** zstd's default level; the Rust sink has no compression, so nothing to match. */
    static final int ZSTD_LEVEL = 3;

    private Compressor() {
    }

    /**
     * The file's bytes, compressed as asked (gzip reads the buffer's chunks, no plain copy first); the buffer is
     * released, so only the result stays on the heap.
     */
    static byte[] apply(Compression compression, ByteBuf content) {
        return switch (compression) {
            case NONE -> content.takeBytes();
            case GZIP -> gzip(content);
            case ZSTD -> zstd(content);
        };
    }

    private static byte[] gzip(ByteBuf content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, content.length() / 4));
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 64 * 1024)) {
            content.writeTo(gz);
        } catch (IOException e) {
            throw new UncheckedIOException("gzip into memory failed", e); // cannot happen with a byte array
        }
        content.release();
        return out.toByteArray();
    }

    private static byte[] zstd(ByteBuf content) {
        return Zstd.compress(content.takeBytes(), ZSTD_LEVEL); // zstd wants one array; the chunks go at once
    }
}
