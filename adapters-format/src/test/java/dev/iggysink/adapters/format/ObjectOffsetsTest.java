package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.format.ObjectOffsets.CannotRead;
import dev.iggysink.adapters.format.ObjectOffsets.Found;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Files are written by the real encoders (RecordCodecs) and their offsets read back from the bytes alone. */
class ObjectOffsetsTest {
    private static final long FIRST = 1_000;
    private static final int COUNT = 300;
    /**
     * The last record of json files: a payload shaped like a wrapper, nested where a naive scan would take it (after
     * a '[' and a ','), and in a string.
     */
    private static final String DECOY = "{\"a\":[{\"offset\":999999,\"timestamp\":\"x\"},{\"offset\":999998,"
            + "\"timestamp\":\"y\"}],\"s\":\"\\\"{\\\"offset\\\":999997,\",\"n\":\"\\n{\\\"offset\\\":999996,\"}";

    static Stream<Arguments> everyFormatAndCompression() {
        List<Arguments> all = new ArrayList<>();
        for (OutputFormat format : List.of(OutputFormat.JSON_LINES, OutputFormat.JSON_ARRAY, OutputFormat.RAW)) {
            for (Compression compression : Compression.values()) {
                all.add(Arguments.of(format, compression, "snappy", "null"));
            }
        }
        for (String avroCodec : List.of("null", "deflate", "snappy", "zstd")) {
            all.add(Arguments.of(OutputFormat.AVRO, Compression.NONE, "snappy", avroCodec));
        }
        for (String parquetCodec : List.of("snappy", "zstd", "gzip", "lz4_raw", "none")) {
            all.add(Arguments.of(OutputFormat.PARQUET, Compression.NONE, parquetCodec, "null"));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} parquet={2} avro={3}")
    @MethodSource("everyFormatAndCompression")
    void reads_the_offsets_written_with_metadata(OutputFormat format, Compression compression, String parquetCodec,
                                                 String avroCodec) throws Exception {
        Written file = write(format, compression, true, parquetCodec, avroCodec);

        ObjectOffsets.Result result = ObjectOffsets.read(file.key, file.bytes);

        if (format == OutputFormat.RAW) {
            assertThat(result).isEqualTo(new CannotRead("raw files carry no offsets"));
        } else {
            assertThat(result).isEqualTo(new Found(FIRST, FIRST + COUNT - 1));
        }
    }

    @ParameterizedTest(name = "{0} {1} parquet={2} avro={3}")
    @MethodSource("everyFormatAndCompression")
    void says_why_when_written_without_metadata(OutputFormat format, Compression compression, String parquetCodec,
                                                String avroCodec) throws Exception {
        Written file = write(format, compression, false, parquetCodec, avroCodec);

        ObjectOffsets.Result result = ObjectOffsets.read(file.key, file.bytes);

        assertThat(reason(result))
                .contains(format == OutputFormat.RAW ? "raw files carry no offsets" : "without include_metadata");
    }

    @Test
    void an_empty_file_holds_no_records() throws Exception {
        RecordCodec codec = codec(OutputFormat.JSON_ARRAY, Compression.ZSTD, true, "snappy", "null");
        byte[] empty = codec.newFile().finish().toByteArray();

        assertThat(ObjectOffsets.read(key(codec), empty)).isEqualTo(new CannotRead("holds no records"));
    }

    @Test
    void damaged_content_is_a_reason_not_an_exception() throws Exception {
        for (Compression compression : List.of(Compression.GZIP, Compression.ZSTD)) {
            Written file = write(OutputFormat.JSON_LINES, compression, true, "snappy", "null");
            byte[] truncated = Arrays.copyOf(file.bytes, file.bytes.length / 2);
            assertThat(reason(ObjectOffsets.read(file.key, truncated)))
                    .startsWith("damaged " + compression.name().toLowerCase(Locale.ROOT) + " content");
        }
        for (OutputFormat format : List.of(OutputFormat.AVRO, OutputFormat.PARQUET)) {
            Written file = write(format, Compression.NONE, true, "zstd", "zstd");
            byte[] mangled = file.bytes.clone();
            Arrays.fill(mangled, mangled.length / 3, mangled.length, (byte) 0x55);
            assertThat(reason(ObjectOffsets.read(file.key, mangled))).startsWith("damaged " + format.extension());
        }
    }

    private static String reason(ObjectOffsets.Result result) {
        assertThat(result).isInstanceOf(CannotRead.class);
        return ((CannotRead) result).reason();
    }

    @Test
    void keys_the_sink_does_not_write_are_named_as_such() {
        String key = ObjectKey.of("", "s/t", 0, 1, 2, "csv");

        assertThat(ObjectOffsets.read(key, "1,2".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(new CannotRead("not a file the sink writes (extension \"csv\")"));
    }

    private record Written(String key, byte[] bytes) {
    }

    private static Written write(OutputFormat format, Compression compression, boolean metadata,
                                 String parquetCodec, String avroCodec) throws Exception {
        RecordCodec codec = codec(format, compression, metadata, parquetCodec, avroCodec);
        boolean json = format == OutputFormat.JSON_LINES || format == OutputFormat.JSON_ARRAY
                || format == OutputFormat.RAW;
        FileEncoder file = codec.newFile();
        List<RecordHeader> headers = List.of(RecordHeader.ofStrings("h", "{\"offset\":5,"));
        for (int i = 0; i < COUNT; i++) {
            String payload = json ? (i == COUNT - 1 ? DECOY : "{\"i\":" + i + "}")
                    : (i % 2 == 0 ? WideSchema.FIRST : WideSchema.SECOND);
            file.append(codec.decode(Fixtures.record(FIRST + i, payload.getBytes(StandardCharsets.UTF_8),
                    json ? headers : List.of())));
        }
        return new Written(key(codec), file.finish().toByteArray());
    }

    private static RecordCodec codec(OutputFormat format, Compression compression, boolean metadata,
                                     String parquetCodec, String avroCodec) {
        OutputSettings output = new OutputSettings("", "{stream}/{topic}", format, compression, metadata, true,
                ZoneId.of("UTC"), Optional.of(WideSchema.SCHEMA), parquetCodec, avroCodec, "__missing__");
        return Fixtures.codec(PayloadSchema.JSON, output);
    }

    private static String key(RecordCodec codec) {
        return ObjectKey.of("out", "application_logs/api_requests", 1, FIRST, FIRST + COUNT - 1, codec.extension());
    }
}
