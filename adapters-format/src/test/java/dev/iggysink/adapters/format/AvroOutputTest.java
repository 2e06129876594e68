package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.StreamSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.SeekableByteArrayInput;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class AvroOutputTest {

    @ParameterizedTest
    @CsvSource({"null, null, true", "deflate, deflate, true", "snappy, snappy, false", "zstd, zstandard, true"})
    void every_codec_round_trips_through_the_standard_reader_value_by_value(String codecName, String specName,
                                                                             boolean metadata) throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(OutputFormat.AVRO, metadata, "snappy", codecName));
        WideSchema.Written file = WideSchema.writeBoth(codec);

        try (DataFileReader<GenericRecord> reader = open(file.bytes(), WideSchema.readerModel())) {
            assertThat(reader.getMetaString("avro.codec")).isEqualTo(specName);
            List<GenericRecord> read = new ArrayList<>();
            reader.forEach(read::add);
            WideSchema.assertRoundTrip(read, metadata);
        }
        assertThat(codec.extension()).isEqualTo("avro");
        assertThat(codec.contentType()).isEqualTo("application/avro");
    }

    @Test
    void append_reports_the_avro_binary_size_of_the_written_record() throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(OutputFormat.AVRO, true, "snappy", "deflate"));
        WideSchema.Written file = WideSchema.writeBoth(codec);
        // Re-encode what the reader returns, in the stored representation: the datum's size, independent of the codec.
        try (DataFileReader<GenericRecord> reader = open(file.bytes(), GenericData.get())) {
            assertThat(binarySize(reader.next())).isEqualTo(file.firstSize());
            assertThat(binarySize(reader.next())).isEqualTo(file.secondSize());
        }
    }

    @Test
    void metadata_columns_follow_the_user_fields_with_their_types() throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(OutputFormat.AVRO, true, "snappy", "null"));
        try (DataFileReader<GenericRecord> reader = open(WideSchema.writeBoth(codec).bytes(), GenericData.get())) {
            Schema written = reader.getSchema();
            Schema user = new Schema.Parser().parse(WideSchema.SCHEMA);
            assertThat(written.getFullName()).isEqualTo("com.acme.Order");
            List<String> names = written.getFields().stream().map(Schema.Field::name).toList();
            assertThat(names.subList(0, user.getFields().size()))
                    .isEqualTo(user.getFields().stream().map(Schema.Field::name).toList());
            assertThat(names.subList(user.getFields().size(), names.size())).containsExactly("iggy_offset",
                    "iggy_timestamp", "iggy_stream", "iggy_topic", "iggy_partition_id");
            assertThat(written.getField("iggy_timestamp").schema().getLogicalType().getName())
                    .isEqualTo("timestamp-micros");
            assertThat(written.getField("iggy_partition_id").schema().getType()).isEqualTo(Schema.Type.INT);
        }
    }

    @Test
    void without_metadata_the_file_schema_is_the_user_schema() throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(OutputFormat.AVRO, false, "snappy", "null"));
        try (DataFileReader<GenericRecord> reader = open(WideSchema.writeBoth(codec).bytes(), GenericData.get())) {
            assertThat(reader.getSchema()).isEqualTo(new Schema.Parser().parse(WideSchema.SCHEMA));
        }
    }

    @Test
    void a_record_that_does_not_fit_is_refused_naming_the_field_and_the_file_keeps_only_good_records()
            throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(OutputFormat.AVRO, true, "snappy", "snappy"));
        FileEncoder file = codec.newFile();
        file.append(codec.decode(WideSchema.record(42, WideSchema.FIRST)));
        String badQty = WideSchema.FIRST.replace("\"qty\": 3", "\"qty\": \"three\"");
        String badZip = WideSchema.FIRST.replace("\"zip\": \"500001\"", "\"zip\": 500001");
        String badEnum = WideSchema.FIRST.replace("\"PAID\"", "\"LOST\"");
        String badDecimal = WideSchema.FIRST.replace("\"1234.50\"", "\"1234.505\"");
        assertThatThrownBy(() -> file.append(codec.decode(WideSchema.record(43, badQty))))
                .isInstanceOf(BadRecordException.class).hasMessageContaining("offset 43")
                .hasMessageContaining("field qty").hasMessageContaining("expected int");
        assertThatThrownBy(() -> file.append(codec.decode(WideSchema.record(44, badZip))))
                .isInstanceOf(BadRecordException.class).hasMessageContaining("field address.zip");
        assertThatThrownBy(() -> file.append(codec.decode(WideSchema.record(45, badEnum))))
                .isInstanceOf(BadRecordException.class).hasMessageContaining("field status");
        assertThatThrownBy(() -> file.append(codec.decode(WideSchema.record(46, badDecimal))))
                .isInstanceOf(BadRecordException.class).hasMessageContaining("field amount")
                .hasMessageContaining("2 decimal places");
        assertThatThrownBy(() -> file.append(codec.decode(WideSchema.record(47, "[1,2]"))))
                .isInstanceOf(BadRecordException.class).hasMessageContaining("JSON object");
        file.append(codec.decode(WideSchema.record(48, WideSchema.SECOND)));
        assertThat(file.count()).isEqualTo(2);

        try (DataFileReader<GenericRecord> reader = open(file.finish().toByteArray(), GenericData.get())) {
            List<Object> offsets = new ArrayList<>();
            reader.forEach(r -> offsets.add(r.get("iggy_offset")));
            assertThat(offsets).containsExactly(42L, 48L);
        }
    }

    @Test
    void the_same_records_give_the_same_bytes_so_a_retried_upload_is_identical() throws Exception {
        OutputSettings out = WideSchema.output(OutputFormat.AVRO, true, "snappy", "zstd");
        assertThat(WideSchema.writeBoth(WideSchema.codec(out)).bytes())
                .isEqualTo(WideSchema.writeBoth(WideSchema.codec(out)).bytes());
    }

    @Test
    void an_empty_file_is_a_valid_container_with_no_records() throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(OutputFormat.AVRO, false, "snappy", "deflate"));
        try (DataFileReader<GenericRecord> reader = open(codec.newFile().finish().toByteArray(), GenericData.get())) {
            assertThat(reader.hasNext()).isFalse();
        }
    }

    @Test
    void the_stream_schema_wins_over_the_output_schema() throws Exception {
        String streamSchema = """
                {"type": "record", "name": "Small", "fields": [{"name": "method", "type": "string"}]}""";
        StreamSettings stream = new StreamSettings("application_logs", List.of("api_requests"), PayloadSchema.JSON,
                1000, Duration.ofMillis(100), "s3_sink", Optional.of(streamSchema));
        RecordCodec codec = RecordCodecs.forStream(stream,
                WideSchema.output(OutputFormat.AVRO, false, "snappy", "null"), List.of(), Fixtures.FIXED_CLOCK);
        FileEncoder file = codec.newFile();
        file.append(codec.decode(Fixtures.record(Fixtures.SEED_PAYLOAD)));
        try (DataFileReader<GenericRecord> reader = open(file.finish().toByteArray(), GenericData.get())) {
            assertThat(reader.getSchema().getFullName()).isEqualTo("Small");
            assertThat(reader.next().get("method")).hasToString("GET");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"AVRO", "PARQUET"})
    void settings_that_cannot_be_honoured_are_refused_when_the_codec_is_built(OutputFormat format) {
        OutputSettings ok = WideSchema.output(format, true, "snappy", "null");
        assertThatThrownBy(() -> WideSchema.codec(withCompression(ok, Compression.GZIP)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(format == OutputFormat.AVRO ? "avro_codec" : "parquet_codec");
        assertThatThrownBy(() -> WideSchema.codec(withSchema(ok, "{\"type\": \"record\"")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("avro_schema_json");
        assertThatThrownBy(() -> WideSchema.codec(withSchema(ok, "\"string\"")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("record schema");
        String clash = """
                {"type": "record", "name": "R", "fields": [{"name": "iggy_offset", "type": "long"}]}""";
        assertThatThrownBy(() -> WideSchema.codec(withSchema(ok, clash)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("iggy_offset");
        assertThat(WideSchema.codec(withMetadata(withSchema(ok, clash), false)).newFile()).isNotNull();
        assertThatThrownBy(() -> WideSchema.codec(new OutputSettings("", "{stream}", format, Compression.NONE, false,
                false, ZoneId.of("UTC"), Optional.of(WideSchema.SCHEMA), "brotli", "lzma", "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(format == OutputFormat.AVRO ? "avro_codec" : "parquet_codec");
    }

    static DataFileReader<GenericRecord> open(byte[] bytes, GenericData model) throws IOException {
        return new DataFileReader<>(new SeekableByteArrayInput(bytes), new GenericDatumReader<>(null, null, model));
    }

    private static long binarySize(GenericRecord r) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        var enc = EncoderFactory.get().directBinaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(r.getSchema(), GenericData.get()).write(r, enc);
        return out.size();
    }

    private static OutputSettings withCompression(OutputSettings o, Compression c) {
        return new OutputSettings(o.prefix(), o.pathTemplate(), o.format(), c, o.includeMetadata(),
                o.includeHeaders(), o.timezone(), o.avroSchemaJson(), o.parquetCodec(), o.avroCodec(),
                o.missingFieldPlaceholder());
    }

    private static OutputSettings withSchema(OutputSettings o, String schema) {
        return new OutputSettings(o.prefix(), o.pathTemplate(), o.format(), o.compression(), o.includeMetadata(),
                o.includeHeaders(), o.timezone(), Optional.of(schema), o.parquetCodec(), o.avroCodec(),
                o.missingFieldPlaceholder());
    }

    private static OutputSettings withMetadata(OutputSettings o, boolean metadata) {
        return new OutputSettings(o.prefix(), o.pathTemplate(), o.format(), o.compression(), metadata,
                o.includeHeaders(), o.timezone(), o.avroSchemaJson(), o.parquetCodec(), o.avroCodec(),
                o.missingFieldPlaceholder());
    }
}
