package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.OutputFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Files are read back with parquet-avro's standard (Hadoop-backed) reader, test scope only. */
class ParquetOutputTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"snappy, SNAPPY, true", "zstd, ZSTD, true", "gzip, GZIP, false", "lz4_raw, LZ4_RAW, true",
            "none, UNCOMPRESSED, true"})
    void every_codec_round_trips_through_the_standard_reader_value_by_value(String codecName,
                                                                             CompressionCodecName expected,
                                                                             boolean metadata) throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(OutputFormat.PARQUET, metadata, codecName, "null"));
        Path file = save(WideSchema.writeBoth(codec).bytes());

        WideSchema.assertRoundTrip(read(file, WideSchema.readerModel()), metadata);
        for (ColumnChunkMetaData column : footer(file).getBlocks().get(0).getColumns()) {
            assertThat(column.getCodec()).as(column.getPath().toDotString()).isEqualTo(expected);
        }
        assertThat(codec.extension()).isEqualTo("parquet");
        assertThat(codec.contentType()).isEqualTo("application/vnd.apache.parquet");
    }

    /** Parquet's library decides what a record counts: no run claims of size cuts (ADR 0022). */
    @Test
    void parquet_names_no_size_rule() {
        assertThat(WideSchema.codec(WideSchema.output(OutputFormat.PARQUET, true, "zstd", "null")).sizeRule()).isEmpty();
        assertThat(WideSchema.codec(WideSchema.output(OutputFormat.AVRO, true, "null", "null")).sizeRule()).isEmpty();
    }

    @Test
    void metadata_are_real_top_level_columns_with_parquet_types() throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(OutputFormat.PARQUET, true, "zstd", "null"));
        MessageType schema = footer(save(WideSchema.writeBoth(codec).bytes())).getFileMetaData().getSchema();

        assertThat(primitive(schema, "iggy_offset")).isEqualTo(PrimitiveType.PrimitiveTypeName.INT64);
        assertThat(primitive(schema, "iggy_timestamp")).isEqualTo(PrimitiveType.PrimitiveTypeName.INT64);
        assertThat(schema.getType("iggy_timestamp").getLogicalTypeAnnotation())
                .isEqualTo(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS));
        assertThat(primitive(schema, "iggy_stream")).isEqualTo(PrimitiveType.PrimitiveTypeName.BINARY);
        assertThat(schema.getType("iggy_stream").getLogicalTypeAnnotation())
                .isEqualTo(LogicalTypeAnnotation.stringType());
        assertThat(primitive(schema, "iggy_partition_id")).isEqualTo(PrimitiveType.PrimitiveTypeName.INT32);
        assertThat(schema.getType("iggy_offset").getRepetition()).isEqualTo(Type.Repetition.REQUIRED);
        // User columns keep their logical types too: what query engines read as DECIMAL and TIMESTAMP.
        assertThat(schema.getType("amount").getLogicalTypeAnnotation())
                .isEqualTo(LogicalTypeAnnotation.decimalType(2, 10));
        assertThat(schema.getType("created").getLogicalTypeAnnotation())
                .isEqualTo(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS));
    }

    @Test
    void append_reports_the_same_avro_binary_size_as_the_avro_format() throws Exception {
        WideSchema.Written parquet = WideSchema.writeBoth(
                WideSchema.codec(WideSchema.output(OutputFormat.PARQUET, true, "snappy", "null")));
        WideSchema.Written avro = WideSchema.writeBoth(
                WideSchema.codec(WideSchema.output(OutputFormat.AVRO, true, "snappy", "null")));
        assertThat(parquet.firstSize()).isEqualTo(avro.firstSize()).isPositive();
        assertThat(parquet.secondSize()).isEqualTo(avro.secondSize()).isPositive();
    }

    @Test
    void a_bad_record_is_refused_naming_the_field_and_leaves_no_row_behind() throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(OutputFormat.PARQUET, true, "snappy", "null"));
        FileEncoder file = codec.newFile();
        file.append(codec.decode(WideSchema.record(42, WideSchema.FIRST)));
        String badTags = WideSchema.FIRST.replace("[\"a\", \"b\"]", "[\"a\", 2]");
        String noCity = WideSchema.FIRST.replace("\"city\": \"Hyderabad\", ", "");
        assertThatThrownBy(() -> file.append(codec.decode(WideSchema.record(43, badTags))))
                .isInstanceOf(BadRecordException.class).hasMessageContaining("field tags[1]");
        assertThatThrownBy(() -> file.append(codec.decode(WideSchema.record(44, noCity))))
                .isInstanceOf(BadRecordException.class).hasMessageContaining("field address.city")
                .hasMessageContaining("missing");
        file.append(codec.decode(WideSchema.record(45, WideSchema.SECOND)));
        assertThat(file.count()).isEqualTo(2);

        List<GenericRecord> rows = read(save(file.finish().toByteArray()), GenericData.get());
        assertThat(rows).extracting(r -> r.get("iggy_offset")).containsExactly(42L, 45L);
    }

    @Test
    void an_empty_file_is_a_valid_parquet_file_with_no_rows() throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(OutputFormat.PARQUET, false, "snappy", "null"));
        Path file = save(codec.newFile().finish().toByteArray());
        assertThat(read(file, GenericData.get())).isEmpty();
        assertThat(footer(file).getFileMetaData().getSchema().getFieldCount()).isEqualTo(19);
    }

    @Test
    void thousands_of_records_read_back_in_order() throws Exception {
        RecordCodec codec = WideSchema.codec(WideSchema.output(OutputFormat.PARQUET, true, "zstd", "null"));
        FileEncoder file = codec.newFile();
        int n = 5_000;
        for (int i = 0; i < n; i++) {
            file.append(codec.decode(WideSchema.record(i, WideSchema.FIRST.replace("\"id\": 1,", "\"id\": " + i
                    + ","))));
        }
        List<GenericRecord> rows = read(save(file.finish().toByteArray()), GenericData.get());
        assertThat(rows).hasSize(n);
        for (int i = 0; i < n; i += 499) {
            assertThat(rows.get(i).get("id")).isEqualTo((long) i);
            assertThat(rows.get(i).get("iggy_offset")).isEqualTo((long) i);
        }
    }

    private Path save(byte[] bytes) throws IOException {
        Path file = Files.createTempFile(dir, "out", ".parquet");
        Files.write(file, bytes);
        return file;
    }

    static List<GenericRecord> read(Path file, GenericData model) throws IOException {
        List<GenericRecord> rows = new ArrayList<>();
        try (ParquetReader<GenericRecord> reader = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(file))
                .withDataModel(model).build()) {
            for (GenericRecord r = reader.read(); r != null; r = reader.read()) rows.add(r);
        }
        return rows;
    }

    private static ParquetMetadata footer(Path file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            return reader.getFooter();
        }
    }

    private static PrimitiveType.PrimitiveTypeName primitive(MessageType schema, String name) {
        return schema.getType(name).asPrimitiveType().getPrimitiveTypeName();
    }
}
