package dev.iggysink.adapters.format;

import dev.iggysink.adapters.format.buffer.BufferDirectory;
import dev.iggysink.adapters.format.columnar.AvroFileEncoder;
import dev.iggysink.adapters.format.columnar.AvroRecords;
import dev.iggysink.adapters.format.columnar.ParquetCodecs;
import dev.iggysink.adapters.format.columnar.ParquetFileEncoder;
import dev.iggysink.adapters.format.compress.Compressor;
import dev.iggysink.adapters.format.payload.AvroSchemas;
import dev.iggysink.adapters.format.payload.PayloadDecoders;
import dev.iggysink.adapters.format.payload.PayloadTransforms;
import dev.iggysink.adapters.format.payload.CodecRecord;
import dev.iggysink.adapters.format.payload.Payload;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.HeldRecords;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.domain.message.SinkRecord;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.parquet.avro.AvroSchemaConverter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/** Builds the {@link RecordCodec} of one stream from its settings: decoder, transforms in file order, file format. */
public final class RecordCodecs {
    private RecordCodecs() {
    }

    /** As {@link #forStream(StreamSettings, OutputSettings, List, InstantSource)} with the system clock. */
    public static RecordCodec forStream(StreamSettings stream, OutputSettings output,
                                        List<TransformSettings> transforms) {
        return forStream(stream, output, transforms, InstantSource.system());
    }

    /**
     * @param clock "now" of computed transform values (date_time, timestamp_*, uuid_v7)
     * @throws IllegalArgumentException settings this adapter cannot honour, with the key to fix: avro/parquet output
     *                                  without {@code avro_schema_json}, a schema that does not parse or clashes with
     *                                  the metadata columns, {@code compression} other than none with avro/parquet,
     *                                  an unknown codec name; or a transform that cannot be built (bad regex)
     */
    public static RecordCodec forStream(StreamSettings stream, OutputSettings output,
                                        List<TransformSettings> transforms, InstantSource clock) {
        return forStream(stream, output, transforms, clock, true);
    }

    /**
     * As {@link #forStream(StreamSettings, OutputSettings, List, InstantSource)}, for tests and benchmarks.
     *
     * @param passThrough false forces every JSON payload through the tree (parse, print): the reference the
     *                    pass-through is tested and measured against
     */
    public static RecordCodec forStream(StreamSettings stream, OutputSettings output, List<TransformSettings> transforms,
                                 InstantSource clock, boolean passThrough) {
        return forStream(stream, output, transforms, clock, passThrough, null);
    }

    /**
     * As {@link #forStream(StreamSettings, OutputSettings, List)}, with the open files of json_lines, json_array and
     * raw written to {@code buffers} as they grow (null keeps them on the heap). Avro and Parquet files stay on the
     * heap: their libraries build a file in memory.
     */
    public static RecordCodec forStream(StreamSettings stream, OutputSettings output, List<TransformSettings> transforms,
                                        BufferDirectory buffers) {
        return forStream(stream, output, transforms, InstantSource.system(), true, buffers);
    }

    /**
     * The decoder of a table sink's stream: its schema, then {@code transforms}; no file is written from it. A json
     * stream without transforms whose records are routed to fixed tables ({@code rowsOnly}) hands its payload on
     * unparsed: the table's row converter is then its one parser and reports a payload that is not JSON (the codec
     * would otherwise check each payload, then the converter parse it again). Otherwise the json_lines codec,
     * whose pass-through keeps a compact payload's bytes (the tree path prints numbers anew).
     */
    public static RecordCodec forTable(StreamSettings stream, List<TransformSettings> transforms, boolean rowsOnly) {
        RecordCodec general = forStream(stream, OutputSettings.jsonLines("", "{stream}"), transforms);
        if (!rowsOnly || stream.schema() != PayloadSchema.JSON || !transforms.isEmpty()) return general;
        return new RecordCodec() {
            @Override
            public DecodedRecord decode(SinkRecord record) {
                return new CodecRecord(record, new Payload.Raw(record.payload()));
            }

            @Override
            public FileEncoder newFile() {
                return general.newFile();
            }

            @Override
            public String extension() {
                return general.extension();
            }

            @Override
            public String contentType() {
                return general.contentType();
            }

            @Override
            public HeldRecords held(ObjectStore store, StoredObject object) throws StoreException {
                return general.held(store, object);
            }
        };
    }

    /** Whether files of {@code format} grow in a buffer directory when given one (Avro and Parquet do not). */
    public static boolean buffersOnDisk(OutputFormat format) {
        return format == OutputFormat.JSON_LINES || format == OutputFormat.JSON_ARRAY || format == OutputFormat.RAW;
    }

    private static RecordCodec forStream(StreamSettings stream, OutputSettings output,
                                         List<TransformSettings> transforms, InstantSource clock, boolean passThrough,
                                         BufferDirectory buffers) {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(transforms, "transforms");
        Objects.requireNonNull(clock, "clock");
        Supplier<FileEncoder> files = switch (output.format()) {
            case JSON_LINES -> () -> new JsonWrapperEncoder(false, output.includeMetadata(), output.includeHeaders(),
                    output.compression(), buffers);
            case JSON_ARRAY -> () -> new JsonWrapperEncoder(true, output.includeMetadata(), output.includeHeaders(),
                    output.compression(), buffers);
            case RAW -> () -> new RawFileEncoder(output.compression(), buffers);
            case AVRO -> avroFiles(stream, output);
            case PARQUET -> parquetFiles(stream, output);
        };
        boolean printed = passThrough && (stream.schema() == PayloadSchema.JSON || stream.schema() == PayloadSchema.RAW);
        return new PipelineCodec(PayloadDecoders.forSchema(stream.schema(), stream.avroSchemaJson()),
                PayloadTransforms.build(transforms, clock), files, output.format(), output.compression(), printed,
                sizeRule(stream, output, transforms, printed));
    }

    /**
     * The text behind {@link RecordCodec#sizeRule}: everything that shapes a formatted record of json_lines,
     * json_array or raw (the count is the formatted record, so compression does not matter). None for Avro and
     * Parquet, whose libraries decide what a record counts, nor with a computed transform value: "now" differs
     * between members, and so may the length of what it prints.
     */
    private static Optional<String> sizeRule(StreamSettings stream, OutputSettings output,
                                             List<TransformSettings> transforms, boolean passThrough) {
        if (!buffersOnDisk(output.format())) return Optional.empty();
        for (TransformSettings t : transforms) {
            boolean computed = t instanceof TransformSettings.AddFields add
                    && add.fields().stream().anyMatch(f -> f.computed().isPresent())
                    || t instanceof TransformSettings.UpdateFields update
                    && update.fields().stream().anyMatch(f -> f.value().computed().isPresent());
            if (computed) return Optional.empty();
        }
        String shape = "schema=" + stream.schema() + ";avro_schema=" + stream.avroSchemaJson().orElse("")
                + ";format=" + output.format() + ";metadata=" + output.includeMetadata() + ";headers="
                + output.includeHeaders() + ";pass_through=" + passThrough + ";transforms=" + transforms;
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(shape.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return Optional.of(String.format("%s:%08x", output.format().name().toLowerCase(Locale.ROOT), crc.getValue()));
    }

    /**
     * Avro container files. The codec works inside the file per block, so {@code compression} must be none (the
     * config adapter maps {@code compression = gzip|zstd} to {@code avro_codec = deflate|zstd} and clears it; a
     * caller that did not is refused here rather than writing a gzip of an Avro file under a {@code .avro} key).
     */
    private static Supplier<FileEncoder> avroFiles(StreamSettings stream, OutputSettings output) {
        requireNoWholeFileCompression(output, "avro_codec");
        CodecFactory codec = avroCodec(output.avroCodec());
        Schema user = AvroSchemas.forOutput(stream, output);
        Schema written = output.includeMetadata() ? AvroSchemas.withMetadata(user) : user;
        boolean metadata = output.includeMetadata();
        return () -> new AvroFileEncoder(new AvroRecords(user, written, metadata), codec);
    }

    /** Parquet files; as {@link #avroFiles}, the codec is {@code parquet_codec}, per page. */
    private static Supplier<FileEncoder> parquetFiles(StreamSettings stream, OutputSettings output) {
        requireNoWholeFileCompression(output, "parquet_codec");
        CompressionCodecName codec = ParquetCodecs.codecName(output.parquetCodec());
        Schema user = AvroSchemas.forOutput(stream, output);
        Schema written = output.includeMetadata() ? AvroSchemas.withMetadata(user) : user;
        try {
            // Fail at start-up, not on the first record, for shapes Parquet cannot hold (e.g. a record without fields).
            new AvroSchemaConverter(new PlainParquetConfiguration()).convert(written);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("avro_schema_json cannot be written as parquet: " + e.getMessage(), e);
        }
        boolean metadata = output.includeMetadata();
        return () -> new ParquetFileEncoder(new AvroRecords(user, written, metadata), codec);
    }

    private static void requireNoWholeFileCompression(OutputSettings output, String codecKey) {
        if (output.compression() != Compression.NONE) {
            throw new IllegalArgumentException("compression = " + output.compression().name().toLowerCase(Locale.ROOT)
                    + " does not apply to output_format = " + output.format().name().toLowerCase(Locale.ROOT)
                    + ": the file compresses inside, set " + codecKey);
        }
    }

    /** {@code avro_codec}: null, deflate (level 6, zlib's default), snappy, zstd (level 3). */
    static CodecFactory avroCodec(String setting) {
        return switch (setting) {
            case "null", "none" -> CodecFactory.nullCodec();
            case "deflate" -> CodecFactory.deflateCodec(CodecFactory.DEFAULT_DEFLATE_LEVEL);
            case "snappy" -> CodecFactory.snappyCodec();
            case "zstd" -> CodecFactory.zstandardCodec(Compressor.ZSTD_LEVEL);
            default -> throw new IllegalArgumentException("avro_codec \"" + setting
                    + "\" is not one of null, deflate, snappy, zstd");
        };
    }
}
