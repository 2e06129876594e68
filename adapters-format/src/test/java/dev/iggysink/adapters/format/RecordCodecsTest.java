package dev.iggysink.adapters.format;

import static dev.iggysink.adapters.format.Fixtures.SEED_LINE;
import static dev.iggysink.adapters.format.Fixtures.SEED_PAYLOAD;
import static dev.iggysink.adapters.format.Fixtures.SEED_TIME;
import static dev.iggysink.adapters.format.Fixtures.codec;
import static dev.iggysink.adapters.format.Fixtures.fileOf;
import static dev.iggysink.adapters.format.Fixtures.jsonLines;
import static dev.iggysink.adapters.format.Fixtures.output;
import static dev.iggysink.adapters.format.Fixtures.payloadOf;
import static dev.iggysink.adapters.format.Fixtures.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.domain.message.HeaderKind;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class RecordCodecsTest {

    private static final RecordCodec SEED = codec(PayloadSchema.JSON, jsonLines(true, false));

    @Test
    void seed_example_is_written_byte_for_byte_as_one_json_line() throws BadRecordException {
        assertThat(fileOf(SEED, record(SEED_PAYLOAD))).isEqualTo(SEED_LINE + "\n");
    }

    @Test
    void append_counts_the_record_without_its_newline() throws BadRecordException {
        FileEncoder file = SEED.newFile();
        long size = file.append(SEED.decode(record(SEED_PAYLOAD)));
        assertThat(size).isEqualTo(SEED_LINE.getBytes(StandardCharsets.UTF_8).length);
        assertThat(file.count()).isEqualTo(1);
    }

    /** Run claims of size cuts (docs/adr/0022-run-claims-of-size-cuts.md) rely on members counting records alike. */
    @Test
    void the_size_rule_is_the_same_for_the_same_settings_and_differs_where_a_record_would_count_otherwise() {
        TransformSettings.FieldValue fixed = new TransformSettings.FieldValue("env", Optional.of("prod"),
                Optional.empty());
        TransformSettings.FieldValue now = new TransformSettings.FieldValue("at", Optional.empty(),
                Optional.of(TransformSettings.Computed.DATE_TIME));
        Optional<String> seed = SEED.sizeRule();
        assertThat(seed).hasValueSatisfying(rule -> assertThat(rule).matches("json_lines:[0-9a-f]{8}"));
        assertThat(codec(PayloadSchema.JSON, jsonLines(true, false)).sizeRule()).isEqualTo(seed);
        assertThat(codec(PayloadSchema.JSON, output(OutputFormat.JSON_LINES, Compression.GZIP, true, false))
                .sizeRule()).as("compression does not change what a record counts").isEqualTo(seed);
        assertThat(List.of(codec(PayloadSchema.JSON, jsonLines(false, false)).sizeRule(),
                codec(PayloadSchema.JSON, jsonLines(true, true)).sizeRule(),
                codec(PayloadSchema.RAW, jsonLines(true, false)).sizeRule(),
                codec(PayloadSchema.JSON, jsonLines(true, false), new TransformSettings.AddFields(List.of(fixed)))
                        .sizeRule())).allSatisfy(rule -> assertThat(rule).isPresent().isNotEqualTo(seed));
        assertThat(codec(PayloadSchema.JSON, jsonLines(true, false), new TransformSettings.AddFields(List.of(now)))
                .sizeRule()).as("a computed value may print otherwise on another member").isEmpty();
        assertThat(codec(PayloadSchema.JSON, output(OutputFormat.RAW, Compression.NONE, false, false)).sizeRule())
                .hasValueSatisfying(rule -> assertThat(rule).startsWith("raw:"));
    }

    @Test
    void json_array_joins_records_with_commas_inside_brackets_and_counts_no_separator() throws BadRecordException {
        RecordCodec codec = codec(PayloadSchema.JSON, output(OutputFormat.JSON_ARRAY, Compression.NONE, true, false));
        FileEncoder file = codec.newFile();
        long first = file.append(codec.decode(record(SEED_PAYLOAD)));
        long second = file.append(codec.decode(record(SEED_PAYLOAD)));
        assertThat(new String(file.finish().toByteArray(), StandardCharsets.UTF_8)).isEqualTo("[" + SEED_LINE + "," + SEED_LINE + "]");
        assertThat(first).isEqualTo(second).isEqualTo(SEED_LINE.length());
    }

    @Test
    void empty_json_array_file_is_a_pair_of_brackets_and_empty_lines_file_is_empty() {
        assertThat(codec(PayloadSchema.JSON, output(OutputFormat.JSON_ARRAY, Compression.NONE, true, false))
                .newFile().finish().toByteArray()).asString().isEqualTo("[]");
        assertThat(SEED.newFile().finish().toByteArray()).isEmpty();
    }

    @Test
    void each_record_of_a_file_carries_its_own_partition_and_second() throws BadRecordException {
        // The encoder keeps the metadata text of the last partition and second; every change of either must show.
        PartitionRef logs = new PartitionRef("application_logs", "api_requests", 1);
        PartitionRef logs2 = new PartitionRef("application_logs", "api_requests", 2);
        PartitionRef quoted = new PartitionRef("st\"r\u00e9am", "t\\op\u0001ic", 1);
        long second = SEED_TIME.getEpochSecond() * 1_000_000L;
        Object[][] records = {
                {logs, second + 987_654L, "2026-03-16T14:02:31Z"},
                {logs, second + 1L, "2026-03-16T14:02:31Z"},
                {logs2, second + 5L, "2026-03-16T14:02:31Z"},
                {logs2, second + 1_000_000L, "2026-03-16T14:02:32Z"},
                {logs, second + 1_000_001L, "2026-03-16T14:02:32Z"},
                {logs, second, "2026-03-16T14:02:31Z"},
                {quoted, second, "2026-03-16T14:02:31Z"},
                {new PartitionRef("application_logs", "api_requests", 1), second - 1L, "2026-03-16T14:02:30Z"},
        };
        FileEncoder file = SEED.newFile();
        StringBuilder expected = new StringBuilder();
        long offset = 7;
        for (Object[] r : records) {
            PartitionRef p = (PartitionRef) r[0];
            file.append(SEED.decode(new SinkRecord(p, offset, (long) r[1], (long) r[1], MessageId.ZERO, List.of(),
                    SEED_PAYLOAD.getBytes(StandardCharsets.UTF_8))));
            String stream = p == quoted ? "\"st\\\"r\u00e9am\"" : "\"" + p.stream() + "\"";
            String topic = p == quoted ? "\"t\\\\op\\u0001ic\"" : "\"" + p.topic() + "\"";
            expected.append("{\"offset\":").append(offset++).append(",\"timestamp\":\"").append(r[2])
                    .append("\",\"stream\":").append(stream).append(",\"topic\":").append(topic)
                    .append(",\"partition_id\":").append(p.partitionId()).append(",\"payload\":")
                    .append(SEED_PAYLOAD).append("}\n");
        }
        assertThat(new String(file.finish().toByteArray(), StandardCharsets.UTF_8)).isEqualTo(expected.toString());
    }

    @Test
    void without_metadata_only_the_payload_is_wrapped() throws BadRecordException {
        RecordCodec codec = codec(PayloadSchema.JSON, jsonLines(false, false));
        assertThat(fileOf(codec, record(SEED_PAYLOAD))).isEqualTo("{\"payload\":" + SEED_PAYLOAD + "}\n");
    }

    @Test
    void raw_output_concatenates_payloads_and_ignores_both_flags() throws BadRecordException {
        RecordCodec codec = codec(PayloadSchema.RAW, output(OutputFormat.RAW, Compression.NONE, true, true));
        byte[] a = {0, 1, 2, 10, (byte) 0xFF};
        byte[] b = "tail".getBytes(StandardCharsets.UTF_8);
        FileEncoder file = codec.newFile();
        assertThat(file.append(codec.decode(record(1, a, List.of(RecordHeader.ofStrings("k", "v")))))).isEqualTo(5);
        assertThat(file.append(codec.decode(record(2, b, List.of())))).isEqualTo(4);
        assertThat(file.finish().toByteArray()).containsExactly(0, 1, 2, 10, (byte) 0xFF, 't', 'a', 'i', 'l');
        assertThat(codec.extension()).isEqualTo("bin");
    }

    @Test
    void raw_output_of_a_json_stream_is_compact_reserialization_in_document_order() throws BadRecordException {
        RecordCodec codec = codec(PayloadSchema.JSON, output(OutputFormat.RAW, Compression.NONE, false, false));
        assertThat(fileOf(codec, record("{ \"z\" : 1.50, \"a\" : [ true , null ] }")))
                .isEqualTo("{\"z\":1.5,\"a\":[true,null]}");
    }

    @Test
    void json_payload_keys_are_sorted_and_numbers_reprinted_as_serde_json_does() throws BadRecordException {
        RecordCodec codec = codec(PayloadSchema.JSON, jsonLines(false, false));
        assertThat(payloadOf(codec, record("{\"b\":1E2,\"a\":{\"y\":-0,\"x\":1e-7},\"é\":\"\\u00e9\\n\\u0001/\"}")))
                .isEqualTo("{\"a\":{\"x\":1e-7,\"y\":0},\"b\":100.0,\"é\":\"é\\n\\u0001/\"}");
    }

    @Test
    void invalid_json_is_a_bad_record_naming_offset_and_partition() {
        assertThatThrownBy(() -> SEED.decode(record("{\"a\":")))
                .isInstanceOf(BadRecordException.class)
                .hasMessageContaining("offset 42")
                .hasMessageContaining("application_logs/api_requests/1");
    }

    /**
     * A table sink's json stream routed to fixed tables: the codec hands each payload on as it came, the row
     * converter's parse being its one check; read by a field or transformed, the codec parses it first, as the
     * object sink's does.
     */
    @Test
    void a_table_sinks_codec_leaves_a_json_payload_to_the_row_converter_unless_it_reads_the_payload_itself()
            throws BadRecordException {
        RecordCodec rows = RecordCodecs.forTable(Fixtures.stream(PayloadSchema.JSON), List.of(), true);
        byte[] spaced = "{\"b\": 1.50, \"a\": \"é\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(rows.decode(record(42, spaced, List.of())).json()).isSameAs(spaced);
        byte[] text = "this is text, not JSON".getBytes(StandardCharsets.UTF_8);
        assertThat(rows.decode(record(42, text, List.of())).json()).isEqualTo(text);

        RecordCodec routed = RecordCodecs.forTable(Fixtures.stream(PayloadSchema.JSON), List.of(), false);
        assertThatThrownBy(() -> routed.decode(record(42, text, List.of()))).isInstanceOf(BadRecordException.class)
                .hasMessageStartingWith("offset 42 of application_logs/api_requests/1: not valid JSON at byte 0");
        assertThat(routed.decode(record(42, spaced, List.of())).fieldText("a")).hasValue("é");
        RecordCodec transformed = RecordCodecs.forTable(Fixtures.stream(PayloadSchema.JSON),
                List.of(new dev.iggysink.application.settings.TransformSettings.DeleteFields(List.of("b"))), true);
        assertThatThrownBy(() -> transformed.decode(record(42, text, List.of()))).isInstanceOf(BadRecordException.class);
        assertThat(transformed.decode(record(42, spaced, List.of())).json()).asString(StandardCharsets.UTF_8)
                .isEqualTo("{\"a\":\"é\"}");
    }

    @Test
    void a_payload_that_is_not_json_is_reported_as_such_with_its_byte() {
        assertThatThrownBy(() -> SEED.decode(record("this is text, not JSON")))
                .isInstanceOf(BadRecordException.class)
                .hasMessage("offset 42 of application_logs/api_requests/1: not valid JSON at byte 0: found "
                        + "\"this is text, not JS...\" where a value should start");
        assertThatThrownBy(() -> SEED.decode(record("{\"a\": tru}")))
                .isInstanceOf(BadRecordException.class)
                .hasMessage("offset 42 of application_logs/api_requests/1: not valid JSON at byte 6: found "
                        + "\"tru}\" where a value should start");
        assertThatThrownBy(() -> SEED.decode(record("[1, 2")))
                .isInstanceOf(BadRecordException.class)
                .hasMessage("offset 42 of application_logs/api_requests/1: not valid JSON at byte 5: "
                        + "EOF while parsing");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "18446744073709551615|18446744073709551615",
            "-9223372036854775808|-9223372036854775808",
            "[1.0,0.1,123456789012345680000.0]|[1.0,0.1,1.2345678901234568e+20]"})
    void json_schema_keeps_i64_u64_and_reprints_floats(String in, String out) throws BadRecordException {
        assertThat(payloadOf(codec(PayloadSchema.JSON, jsonLines(false, false)), record(in))).isEqualTo(out);
    }

    @Test
    void json_schema_refuses_integers_beyond_u64_as_simd_json_does() {
        assertThatThrownBy(() -> SEED.decode(record("18446744073709551616"))).isInstanceOf(BadRecordException.class);
    }

    @Test
    void raw_schema_writes_json_bytes_as_their_value_and_other_bytes_as_base64() throws BadRecordException {
        RecordCodec codec = codec(PayloadSchema.RAW, jsonLines(false, false));
        assertThat(payloadOf(codec, record("{\"b\":-0,\"a\":18446744073709551616}")))
                .isEqualTo("{\"a\":1.8446744073709552e+19,\"b\":-0.0}");
        byte[] binary = {(byte) 0xFF, 0, 'x'};
        assertThat(payloadOf(codec, record(7, binary, List.of())))
                .isEqualTo("\"" + Base64.getEncoder().encodeToString(binary) + "\"");
    }

    @Test
    void text_schema_writes_a_string_and_refuses_invalid_utf8() throws BadRecordException {
        RecordCodec codec = codec(PayloadSchema.TEXT, jsonLines(false, false));
        assertThat(payloadOf(codec, record("say \"hi\"\t→ {}"))).isEqualTo("\"say \\\"hi\\\"\\t→ {}\"");
        assertThatThrownBy(() -> codec.decode(record(1, new byte[]{(byte) 0xC3, 0x28}, List.of())))
                .isInstanceOf(BadRecordException.class);
    }

    @Test
    void proto_schema_writes_the_any_wrapper_with_base64_value() throws BadRecordException {
        RecordCodec codec = codec(PayloadSchema.PROTO, jsonLines(false, false));
        String typeUrl = "type.googleapis.com/test.Event";
        byte[] any = protoAny(typeUrl, new byte[]{1, 2, 3});
        assertThat(payloadOf(codec, record(1, any, List.of())))
                .isEqualTo("{\"type_url\":\"" + typeUrl + "\",\"value\":\"AQID\"}");
        assertThatThrownBy(() -> codec.decode(record(1, new byte[0], List.of()))).isInstanceOf(BadRecordException.class);
        assertThatThrownBy(() -> codec.decode(record(1, new byte[]{0x0A, 0x05, 'a'}, List.of())))
                .isInstanceOf(BadRecordException.class);
    }

    @Test
    void flat_buffer_schema_writes_the_sdk_summary_document() throws BadRecordException {
        RecordCodec codec = codec(PayloadSchema.FLAT_BUFFER, jsonLines(false, false));
        assertThat(payloadOf(codec, record(1, new byte[]{1, 2, 3, 4}, List.of())))
                .isEqualTo("{\"buffer_size\":4,\"has_root_table\":true,\"raw_data_base64\":\"AQIDBA==\"}");
        assertThatThrownBy(() -> codec.decode(record(1, new byte[]{1, 2, 3}, List.of())))
                .isInstanceOf(BadRecordException.class);
    }

    @Test
    void avro_schema_without_a_schema_refuses_every_record_as_upstream() {
        RecordCodec codec = codec(PayloadSchema.AVRO, jsonLines(false, false));
        assertThatThrownBy(() -> codec.decode(record(SEED_PAYLOAD))).isInstanceOf(BadRecordException.class);
    }

    @Test
    void headers_of_every_kind_render_by_kind_with_keys_sorted() throws BadRecordException {
        RecordCodec codec = codec(PayloadSchema.JSON, jsonLines(false, true));
        List<RecordHeader> headers = List.of(
                h("s", HeaderKind.STRING, "text/plain".getBytes(StandardCharsets.UTF_8)),
                h("r", HeaderKind.RAW, new byte[]{1, 2, 3}),
                h("b0", HeaderKind.BOOL, new byte[]{0}),
                h("b1", HeaderKind.BOOL, new byte[]{2}),
                h("i8", HeaderKind.INT8, new byte[]{(byte) 0xFF}),
                h("i16", HeaderKind.INT16, le(2).putShort((short) -300).array()),
                h("i32", HeaderKind.INT32, le(4).putInt(-70000).array()),
                h("i64", HeaderKind.INT64, le(8).putLong(Long.MIN_VALUE).array()),
                h("u8", HeaderKind.UINT8, new byte[]{(byte) 0xFF}),
                h("u16", HeaderKind.UINT16, le(2).putShort((short) -1).array()),
                h("u32", HeaderKind.UINT32, le(4).putInt(-1).array()),
                h("u64", HeaderKind.UINT64, le(8).putLong(-1).array()),
                h("f32", HeaderKind.FLOAT32, le(4).putFloat(0.1f).array()),
                h("f64", HeaderKind.FLOAT64, le(8).putDouble(2.5).array()),
                h("nan", HeaderKind.FLOAT64, le(8).putDouble(Double.NaN).array()),
                h("i128", HeaderKind.INT128, le(16).putLong(-2).putLong(-1).array()),
                h("u128", HeaderKind.UINT128, le(16).putLong(0).putLong(1).array()));
        String line = fileOf(codec, record(1, SEED_PAYLOAD.getBytes(StandardCharsets.UTF_8), headers));
        assertThat(line).isEqualTo("{\"headers\":{\"b0\":false,\"b1\":true,\"f32\":0.1,\"f64\":2.5,"
                + "\"i128\":\"-2\",\"i16\":-300,\"i32\":-70000,\"i64\":-9223372036854775808,\"i8\":-1,"
                + "\"nan\":\"NaN\",\"r\":\"AQID\",\"s\":\"text/plain\",\"u128\":\"18446744073709551616\","
                + "\"u16\":65535,\"u32\":4294967295,\"u64\":18446744073709551615,\"u8\":255},"
                + "\"payload\":" + SEED_PAYLOAD + "}\n");
    }

    @Test
    void headers_follow_metadata_and_are_left_out_when_absent_or_not_asked() throws BadRecordException {
        List<RecordHeader> one = List.of(RecordHeader.ofStrings("k", "v"));
        byte[] payload = SEED_PAYLOAD.getBytes(StandardCharsets.UTF_8);
        assertThat(fileOf(codec(PayloadSchema.JSON, jsonLines(true, true)), record(42, payload, one)))
                .isEqualTo(SEED_LINE.replace(",\"payload\"", ",\"headers\":{\"k\":\"v\"},\"payload\"") + "\n");
        assertThat(fileOf(codec(PayloadSchema.JSON, jsonLines(true, true)), record(42, payload, List.of())))
                .isEqualTo(SEED_LINE + "\n");
        assertThat(fileOf(SEED, record(42, payload, one))).isEqualTo(SEED_LINE + "\n");
    }

    @Test
    void a_header_of_wrong_width_is_refused_and_leaves_the_file_unchanged() throws BadRecordException {
        RecordCodec codec = codec(PayloadSchema.JSON, jsonLines(true, true));
        FileEncoder file = codec.newFile();
        file.append(codec.decode(record(SEED_PAYLOAD)));
        var bad = record(43, SEED_PAYLOAD.getBytes(StandardCharsets.UTF_8),
                List.of(h("n", HeaderKind.INT32, new byte[]{1, 2})));
        assertThatThrownBy(() -> file.append(codec.decode(bad))).isInstanceOf(BadRecordException.class);
        assertThat(file.count()).isEqualTo(1);
        assertThat(file.finish().toByteArray()).asString().isEqualTo(SEED_LINE + "\n");
    }

    @Test
    void gzip_and_zstd_files_decompress_to_the_plain_file_and_name_their_extension() throws Exception {
        RecordCodec gz = codec(PayloadSchema.JSON, output(OutputFormat.JSON_LINES, Compression.GZIP, true, false));
        RecordCodec zst = codec(PayloadSchema.JSON, output(OutputFormat.JSON_ARRAY, Compression.ZSTD, true, false));
        byte[] gzBytes = finishOne(gz);
        byte[] zstBytes = finishOne(zst);
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzBytes))) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(SEED_LINE + "\n");
        }
        byte[] plain = Zstd.decompress(zstBytes, (int) Zstd.getFrameContentSize(zstBytes));
        assertThat(new String(plain, StandardCharsets.UTF_8)).isEqualTo("[" + SEED_LINE + "]");
        assertThat(gz.extension()).isEqualTo("jsonl.gz");
        assertThat(zst.extension()).isEqualTo("json.zst");
        assertThat(gz.contentType()).isEqualTo("application/gzip");
    }

    @ParameterizedTest
    @EnumSource(value = OutputFormat.class, names = {"AVRO", "PARQUET"})
    void avro_and_parquet_output_without_a_schema_are_refused_naming_the_key(OutputFormat format) {
        assertThatThrownBy(() -> codec(PayloadSchema.JSON, output(format, Compression.NONE, true, false)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("avro_schema_json");
    }

    @Test
    void field_text_reads_scalars_by_dotted_path() throws BadRecordException {
        var r = Fixtures.decoded(SEED, "{\"user\":{\"id\":7,\"name\":\"ann\",\"ok\":true,\"f\":2.0},\"list\":[1]}");
        assertThat(r.fieldText("user.id")).contains("7");
        assertThat(r.fieldText("user.name")).contains("ann");
        assertThat(r.fieldText("user.ok")).contains("true");
        assertThat(r.fieldText("user.f")).contains("2.0");
        assertThat(r.fieldText("user")).isEmpty();
        assertThat(r.fieldText("list")).isEmpty();
        assertThat(r.fieldText("user.missing")).isEqualTo(Optional.empty());
    }

    private static byte[] finishOne(RecordCodec codec) throws BadRecordException {
        FileEncoder file = codec.newFile();
        file.append(codec.decode(record(SEED_PAYLOAD)));
        return file.finish().toByteArray();
    }

    private static RecordHeader h(String key, HeaderKind kind, byte[] value) {
        return new RecordHeader(HeaderKind.STRING, key.getBytes(StandardCharsets.UTF_8), kind, value);
    }

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    static byte[] protoAny(String typeUrl, byte[] value) {
        byte[] url = typeUrl.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + url.length + value.length);
        b.put((byte) 0x0A).put((byte) url.length).put(url).put((byte) 0x12).put((byte) value.length).put(value);
        return b.array();
    }

}
