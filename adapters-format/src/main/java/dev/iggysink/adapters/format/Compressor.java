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

    static byte[] apply(Compression compression, ByteBuf content) {
        return switch (compression) {
            case NONE -> content.toByteArray();
            case GZIP -> gzip(content);
            case ZSTD -> Zstd.compress(content.toByteArray(), ZSTD_LEVEL);
        };
    }

    private static byte[] gzip(ByteBuf content) {
        byte[] plain = content.toByteArray();
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, plain.length / 4));
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 64 * 1024)) {
            gz.write(plain);
        } catch (IOException e) {
            throw new UncheckedIOException("gzip into memory failed", e); // cannot happen with a byte array
        }
        return out.toByteArray();
    }
}
