package dev.iggysink.adapters.format.columnar;

import com.github.luben.zstd.Zstd;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.lz4.Lz4Decompressor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Page compression for Parquet without Hadoop. parquet-hadoop's own {@code CodecFactory} loads Hadoop's codec classes
 * (ZlibCompressor) even for uncompressed files, so it cannot run without Hadoop on the class path; these are the same
 * formats from the libraries the sink already ships: snappy-java (raw Snappy blocks), zstd-jni (one frame per page,
 * level 3), java.util.zip (a gzip member per page, as Hadoop's GzipCodec writes) and aircompressor (raw LZ4 blocks,
 * LZ4_RAW). Stateless and thread-safe; {@link #release} has nothing to free.
 */
public final class ParquetCodecs implements CompressionCodecFactory {
    static final ParquetCodecs INSTANCE = new ParquetCodecs();
    /** zstd's default level, as parquet-mr's {@code parquet.compression.codec.zstd.level}. */
    private static final int ZSTD_LEVEL = 3;

    private ParquetCodecs() {
    }

    /** A page's bytes in one array ({@code BytesInput.toByteArray} is deprecated; this is what it did). */
    private static byte[] bytesOf(BytesInput bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.toIntExact(bytes.size()));
        bytes.writeAllTo(out);
        return out.toByteArray();
    }

    /** The codecs {@code parquet_codec} can name. */
    public static CompressionCodecName codecName(String setting) {
        return switch (setting) {
            case "snappy" -> CompressionCodecName.SNAPPY;
            case "zstd" -> CompressionCodecName.ZSTD;
            case "gzip" -> CompressionCodecName.GZIP;
            case "lz4_raw" -> CompressionCodecName.LZ4_RAW;
            case "none", "uncompressed" -> CompressionCodecName.UNCOMPRESSED;
            default -> throw new IllegalArgumentException("parquet_codec \"" + setting
                    + "\" is not one of snappy, zstd, gzip, lz4_raw, none");
        };
    }

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        supported(codec);
        return new BytesInputCompressor() {
            @Override
            public BytesInput compress(BytesInput bytes) throws IOException {
                return codec == CompressionCodecName.UNCOMPRESSED ? bytes
                        : BytesInput.from(ParquetCodecs.compress(codec, bytesOf(bytes)));
            }

            @Override
            public CompressionCodecName getCodecName() {
                return codec;
            }

            @Override
            public void release() {
            }
        };
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        supported(codec);
        return new BytesInputDecompressor() {
            @Override
            public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
                return codec == CompressionCodecName.UNCOMPRESSED ? bytes
                        : BytesInput.from(ParquetCodecs.decompress(codec, bytesOf(bytes), uncompressedSize));
            }

            @Override
            public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
                    throws IOException {
                byte[] in = new byte[compressedSize];
                input.duplicate().get(in);
                byte[] plain = codec == CompressionCodecName.UNCOMPRESSED ? in
                        : ParquetCodecs.decompress(codec, in, uncompressedSize);
                output.put(plain, 0, uncompressedSize);
            }

            @Override
            public void release() {
            }
        };
    }

    @Override
    public void release() {
    }

    private static void supported(CompressionCodecName codec) {
        switch (codec) {
            case UNCOMPRESSED, SNAPPY, ZSTD, GZIP, LZ4_RAW -> {
            }
            default -> throw new IllegalArgumentException("parquet codec " + codec + " is not available without Hadoop");
        }
    }

    static byte[] compress(CompressionCodecName codec, byte[] in) throws IOException {
        switch (codec) {
            case SNAPPY:
                return Snappy.compress(in);
            case ZSTD:
                return Zstd.compress(in, ZSTD_LEVEL);
            case GZIP: {
                ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, in.length / 3));
                try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
                    gz.write(in);
                }
                return out.toByteArray();
            }
            case LZ4_RAW: {
                Lz4Compressor lz4 = new Lz4Compressor();
                byte[] out = new byte[lz4.maxCompressedLength(in.length)];
                int n = lz4.compress(in, 0, in.length, out, 0, out.length);
                return java.util.Arrays.copyOf(out, n);
            }
            default:
                return in;
        }
    }

    static byte[] decompress(CompressionCodecName codec, byte[] in, int uncompressedSize) throws IOException {
        switch (codec) {
            case SNAPPY:
                return Snappy.uncompress(in);
            case ZSTD:
                return Zstd.decompress(in, uncompressedSize);
            case GZIP:
                try (GZIPInputStream gz = new GZIPInputStream(new ByteArrayInputStream(in))) {
                    return gz.readNBytes(uncompressedSize);
                }
            case LZ4_RAW: {
                byte[] out = new byte[uncompressedSize];
                new Lz4Decompressor().decompress(in, 0, in.length, out, 0, out.length);
                return out;
            }
            default:
                return in;
        }
    }
}
