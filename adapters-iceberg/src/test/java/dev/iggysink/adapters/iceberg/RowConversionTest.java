package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every conversion docs/tables.md claims, both ways: a JSON value a column takes is committed through
 * {@link IcebergTables} (the payload's own parse included) and read back by Iceberg's reader as the right value; a
 * value it does not take is a bad record naming the field. One column {@code v} per case, on SQLite.
 */
class RowConversionTest {
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);
    private static final AtomicInteger TABLES = new AtomicInteger();

    @TempDir
    static Path dir;
    static CatalogSettings settings;
    static Catalog catalog;

    private record Decoded(SinkRecord source) implements DecodedRecord {
        @Override
        public Optional<String> fieldText(String dottedPath) {
            return Optional.empty();
        }
    }

    @BeforeAll
    static void openCatalog() {
        settings = LocalWarehouseTest.sqlite(dir.resolve("catalog.db"), dir.resolve("warehouse").toString());
        catalog = IcebergCatalogs.open(settings);
    }

    @AfterAll
    static void closeCatalog() throws Exception {
        ((AutoCloseable) catalog).close();
    }

    static Stream<Arguments> accepted() {
        Types.StructType point = Types.StructType.of(Types.NestedField.optional(10, "x", Types.IntegerType.get()));
        GenericRecord p = GenericRecord.create(point);
        p.setField("x", 3);
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("a", 1L);
        counts.put("b", 2L);
        return Stream.of(
                arguments(Types.BooleanType.get(), "true", true),
                arguments(Types.IntegerType.get(), "-2147483648", Integer.MIN_VALUE),
                arguments(Types.LongType.get(), "9007199254740993", 9_007_199_254_740_993L),
                arguments(Types.FloatType.get(), "1.5", 1.5f),
                arguments(Types.DoubleType.get(), "0.1", 0.1),
                arguments(Types.DoubleType.get(), "3", 3.0),
                arguments(Types.DecimalType.of(10, 2), "12.5", new BigDecimal("12.50")),
                arguments(Types.DecimalType.of(10, 2), "\"12.5\"", new BigDecimal("12.50")),
                arguments(Types.DecimalType.of(10, 2), "\"-0.05\"", new BigDecimal("-0.05")),
                arguments(Types.DecimalType.of(10, 2), "7", new BigDecimal("7.00")),
                arguments(Types.DecimalType.of(10, 2), "\"12345678.90\"", new BigDecimal("12345678.90")),
                arguments(Types.DecimalType.of(10, 2), "0", new BigDecimal("0.00")),
                arguments(Types.DecimalType.of(10, 2), "\"1.5e2\"", new BigDecimal("150.00")),
                arguments(Types.DecimalType.of(18, 2), "1234567890123456.78", new BigDecimal("1234567890123456.78")),
                arguments(Types.DecimalType.of(38, 18), "0.123456789012345678", new BigDecimal("0.123456789012345678")),
                arguments(Types.DecimalType.of(38, 18), "\"12345678901234567890.123456789012345678\"",
                        new BigDecimal("12345678901234567890.123456789012345678")),
                arguments(Types.StringType.get(), "\"héllo\"", "héllo"),
                arguments(Types.StringType.get(), "42", "42"),
                arguments(Types.StringType.get(), "true", "true"),
                arguments(Types.UUIDType.get(), "\"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\"",
                        UUID.fromString("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")),
                arguments(Types.DateType.get(), "\"2026-12-01\"", LocalDate.of(2026, 12, 1)),
                arguments(Types.TimeType.get(), "\"10:15:30.123456\"", LocalTime.of(10, 15, 30, 123_456_000)),
                arguments(Types.TimestampType.withoutZone(), "\"2026-12-01T10:15:30.123456\"",
                        LocalDateTime.of(2026, 12, 1, 10, 15, 30, 123_456_000)),
                arguments(Types.TimestampType.withZone(), "\"2026-12-01T10:15:30+02:00\"",
                        OffsetDateTime.of(2026, 12, 1, 8, 15, 30, 0, ZoneOffset.UTC)),
                arguments(Types.TimestampType.withZone(), "\"2026-12-01T10:15:30Z\"",
                        OffsetDateTime.of(2026, 12, 1, 10, 15, 30, 0, ZoneOffset.UTC)),
                arguments(Types.BinaryType.get(), "\"AQID\"", ByteBuffer.wrap(new byte[] {1, 2, 3})),
                arguments(Types.FixedType.ofLength(3), "\"AQID\"", new byte[] {1, 2, 3}),
                arguments(point, "{\"x\":3,\"other\":1}", p),
                arguments(Types.ListType.ofOptional(11, Types.LongType.get()), "[1,null,3]",
                        java.util.Arrays.asList(1L, null, 3L)),
                arguments(Types.MapType.ofOptional(12, 13, Types.StringType.get(), Types.LongType.get()),
                        "{\"a\":1,\"b\":2}", counts));
    }

    static Stream<Arguments> refused() {
        Types.StructType point = Types.StructType.of(Types.NestedField.required(10, "x", Types.IntegerType.get()));
        return Stream.of(
                arguments(Types.BooleanType.get(), "\"true\"", "v"),
                arguments(Types.IntegerType.get(), "2147483648", "v"),
                arguments(Types.IntegerType.get(), "1.5", "v"),
                arguments(Types.LongType.get(), "\"1\"", "v"),
                arguments(Types.LongType.get(), "9223372036854775808", "v"),
                arguments(Types.FloatType.get(), "\"1.5\"", "v"),
                arguments(Types.FloatType.get(), "1e300", "v"),
                arguments(Types.DoubleType.get(), "1e400", "v"),
                // dates and timestamps past what Iceberg's days and microseconds count
                arguments(Types.DateType.get(), "\"+999999999-12-31\"", "v"),
                arguments(Types.TimestampType.withoutZone(), "\"+999999999-12-31T00:00:00\"", "v"),
                arguments(Types.TimestampType.withZone(), "\"-999999999-01-01T00:00:00Z\"", "v"),
                arguments(Types.DecimalType.of(10, 2), "12.345", "v"),
                arguments(Types.DecimalType.of(10, 2), "\"12.345\"", "v"),
                arguments(Types.DecimalType.of(10, 2), "123456789.1", "v"),
                arguments(Types.DecimalType.of(10, 2), "\"twelve\"", "v"),
                arguments(Types.DecimalType.of(10, 2), "true", "v"),
                arguments(Types.DecimalType.of(18, 2), "1234567890123456.789", "v"),
                arguments(Types.DecimalType.of(10, 2), "\"1e999999999\"", "v"),
                arguments(Types.DecimalType.of(10, 2), "1e-999999999", "v"),
                arguments(Types.StringType.get(), "{\"a\":1}", "v"),
                arguments(Types.UUIDType.get(), "\"1-1-1-1-1\"", "v"),
                arguments(Types.UUIDType.get(), "\"not a uuid\"", "v"),
                arguments(Types.DateType.get(), "\"2026-13-01\"", "v"),
                arguments(Types.DateType.get(), "20261201", "v"),
                arguments(Types.TimeType.get(), "\"25:00\"", "v"),
                arguments(Types.TimestampType.withoutZone(), "\"yesterday\"", "v"),
                arguments(Types.TimestampType.withZone(), "1764583200", "v"),
                arguments(Types.BinaryType.get(), "\"!!\"", "v"),
                arguments(Types.FixedType.ofLength(3), "\"AQIDBA==\"", "v"),
                arguments(point, "5", "v"),
                arguments(point, "{\"x\":\"three\"}", "v.x"),
                arguments(point, "{}", "v.x"),
                arguments(Types.ListType.ofOptional(11, Types.LongType.get()), "[1,\"two\"]", "v[1]"),
                arguments(Types.ListType.ofRequired(11, Types.LongType.get()), "[1,null]", "v[1]"),
                arguments(Types.MapType.ofOptional(12, 13, Types.StringType.get(), Types.LongType.get()),
                        "{\"a\":\"one\"}", "v.a"));
    }

    @ParameterizedTest(name = "{0} takes {1}")
    @MethodSource("accepted")
    void a_value_the_column_takes_is_read_back_as_written(Type type, String json, Object expected) throws Exception {
        String name = "conv.t" + TABLES.incrementAndGet();
        catalog.createTable(TableIdentifier.parse(name), new Schema(
                Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
                Types.NestedField.optional(2, "v", type)));
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink")) {
            TableStore.RowFile file = store.newFile(name);
            file.append(record("{\"v\":" + json + "}"));
            store.commit(name, List.of(new TableStore.Append(P0, -1, 0, List.of(file.stage()))));
        }
        Table t = catalog.loadTable(TableIdentifier.parse(name));
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> read = IcebergGenerics.read(t).build()) {
            read.forEach(r -> rows.add(r.copy()));
        }
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).getField("v")).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} refuses {1}")
    @MethodSource("refused")
    void a_value_the_column_does_not_take_is_a_bad_record_naming_the_field(Type type, String json, String field) {
        RowConverter converter = new RowConverter(new Schema(Types.NestedField.optional(2, "v", type)));
        assertThatThrownBy(() -> converter.convert(record("{\"v\":" + json + "}").source()))
                .isInstanceOf(BadRecordException.class).hasMessageContaining("field '" + field + "'");
    }

    /** 2026-12-01T10:00:00Z in microseconds, the record's timestamp; its origin timestamp is one second earlier. */
    private static final long AT = OffsetDateTime.of(2026, 12, 1, 10, 0, 0, 0, ZoneOffset.UTC).toEpochSecond()
            * 1_000_000;

    /** Timestamps as Iceberg's internal value of both kinds: microseconds since the epoch (without zone: in UTC). */
    static Stream<Arguments> metadata() {
        return Stream.of(
                arguments("iggy_offset", Types.LongType.get(), 42L),
                arguments("iggy_offset", Types.StringType.get(), "42"),
                arguments("iggy_timestamp", Types.TimestampType.withZone(), AT),
                arguments("iggy_timestamp", Types.TimestampType.withoutZone(), AT),
                arguments("iggy_timestamp", Types.LongType.get(), AT),
                arguments("iggy_origin_timestamp", Types.TimestampType.withZone(), AT - 1_000_000),
                arguments("iggy_partition_id", Types.IntegerType.get(), 3),
                arguments("iggy_partition_id", Types.LongType.get(), 3L),
                arguments("iggy_stream", Types.StringType.get(), "app"),
                arguments("iggy_topic", Types.StringType.get(), "events"),
                arguments("iggy_id", Types.StringType.get(), "7"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("metadata")
    void a_metadata_column_takes_the_records_metadata_whatever_the_payload_says(String column, Type type,
                                                                              Object expected) throws Exception {
        RowConverter converter = new RowConverter(new Schema(Types.NestedField.required(2, column, type)));
        Record row = converter.convert(new SinkRecord(new PartitionRef("app", "events", 3), 42, AT,
                AT - 1_000_000, new MessageId(0, 7), List.of(),
                ("{\"" + column + "\":\"from the payload\"}").getBytes(StandardCharsets.UTF_8)));
        assertThat(row.getField(column)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("unfitMetadata")
    void a_metadata_column_of_a_type_the_metadata_does_not_fit_is_named(String column, Type type) {
        RowConverter converter = new RowConverter(new Schema(Types.NestedField.required(2, column, type)));
        assertThatThrownBy(() -> converter.convert(record("{}").source())).isInstanceOf(BadRecordException.class)
                .hasMessageContaining("column '" + column + "' holds Iggy metadata");
    }

    static Stream<Arguments> unfitMetadata() {
        return Stream.of(arguments("iggy_offset", Types.IntegerType.get()),
                arguments("iggy_timestamp", Types.DateType.get()),
                arguments("iggy_partition_id", Types.StringType.get()),
                arguments("iggy_stream", Types.LongType.get()));
    }

    /** The payload is read token by token into the row: what it skips and what it keeps, as a whole parse did. */
    @org.junit.jupiter.api.Test
    void fields_without_a_column_are_skipped_whatever_their_shape_and_a_repeated_field_keeps_its_last_value()
            throws Exception {
        RowConverter converter = new RowConverter(new Schema(Types.NestedField.optional(2, "v", Types.LongType.get()),
                Types.NestedField.optional(3, "w", Types.StringType.get())));
        Record row = converter.convert(record("{\"skip\":{\"a\":[1,{\"b\":null}],\"c\":\"}\"},\"v\":1,"
                + "\"more\":[[],{},\"]\"],\"w\":\"a\\\"b\\u00e9\",\"v\":2}").source());
        assertThat(row.getField("v")).isEqualTo(2L);
        assertThat(row.getField("w")).isEqualTo("a\"b\u00e9");
    }

    /**
     * A converter guesses each field from the order of the object before: payloads in one order, then others, with
     * unknown and repeated fields between, in the row and in a nested struct, each read as if it came first.
     */
    @Test
    void fields_in_any_order_unknown_and_repeated_read_the_same_after_payloads_of_another_order() throws Exception {
        Types.StructType point = Types.StructType.of(Types.NestedField.optional(10, "x", Types.LongType.get()),
                Types.NestedField.optional(11, "y", Types.LongType.get()));
        List<String> names = List.of("a", "b", "c", "d");
        RowConverter converter = new RowConverter(new Schema(
                Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
                Types.NestedField.optional(2, "a", Types.LongType.get()),
                Types.NestedField.optional(3, "b", Types.LongType.get()),
                Types.NestedField.optional(4, "c", Types.LongType.get()),
                Types.NestedField.optional(5, "d", Types.LongType.get()),
                Types.NestedField.optional(6, "p", point)));
        java.util.Random random = new java.util.Random(49);
        for (int n = 0; n < 400; n++) {
            // the first half in one order, as a topic's producer writes them; then any order
            List<String> order = new ArrayList<>(names);
            if (n >= 200) java.util.Collections.shuffle(order, random);
            Map<String, Long> expected = new LinkedHashMap<>();
            StringBuilder json = new StringBuilder("{");
            for (String name : order) {
                if (n >= 200 && random.nextInt(3) == 0) json.append("\"u").append(random.nextInt(3)).append("\":[1],");
                if (n >= 200 && random.nextInt(4) == 0) continue;
                long v = random.nextInt(1000);
                json.append('"').append(name).append("\":").append(v).append(',');
                expected.put(name, v);
                if (n >= 200 && random.nextInt(4) == 0) {
                    v = random.nextInt(1000);
                    json.append('"').append(name).append("\":").append(v).append(',');
                    expected.put(name, v);
                }
            }
            long x = random.nextInt(1000);
            long y = random.nextInt(1000);
            json.append(n >= 200 && random.nextBoolean()
                    ? "\"p\":{\"y\":" + y + ",\"z\":0,\"x\":" + x + "}}"
                    : "\"p\":{\"x\":" + x + ",\"y\":" + y + "}}");
            Record row = converter.convert(record(json.toString()).source());
            for (String name : names) {
                assertThat(row.getField(name)).as("%s of %s", name, json).isEqualTo(expected.get(name));
            }
            Record p = (Record) row.getField("p");
            assertThat(p.getField("x")).as("p.x of %s", json).isEqualTo(x);
            assertThat(p.getField("y")).as("p.y of %s", json).isEqualTo(y);
        }
    }

    @org.junit.jupiter.api.Test
    void a_payload_field_named_like_a_metadata_column_is_skipped_whatever_its_shape() throws Exception {
        RowConverter converter = new RowConverter(new Schema(
                Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
                Types.NestedField.optional(2, "v", Types.LongType.get())));
        Record row = converter.convert(record("{\"iggy_offset\":{\"a\":[1]},\"v\":7}").source());
        assertThat(row.getField("iggy_offset")).isEqualTo(0L);
        assertThat(row.getField("v")).isEqualTo(7L);
    }

    @org.junit.jupiter.api.Test
    void rows_of_one_converter_share_no_values() throws Exception {
        Types.StructType point = Types.StructType.of(Types.NestedField.optional(10, "x", Types.IntegerType.get()));
        RowConverter converter = new RowConverter(new Schema(Types.NestedField.optional(2, "v", point),
                Types.NestedField.optional(3, "w", Types.IntegerType.get())));
        Record first = converter.convert(record("{\"v\":{\"x\":1},\"w\":1}").source());
        Record second = converter.convert(record("{\"v\":{}}").source());
        assertThat(((Record) first.getField("v")).getField("x")).isEqualTo(1);
        assertThat(first.getField("w")).isEqualTo(1);
        assertThat(((Record) second.getField("v")).getField("x")).isNull();
        assertThat(second.getField("w")).isNull();
    }

    /** A value that does not fit is found before the payload's end; a payload that is not JSON is still named so. */
    @ParameterizedTest(name = "payload [{0}]")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"{\"v\":\"x\",", "{\"v\":\"x\"} {}",
            "{\"v\":[\"x\",", "{\"v\":{\"a\":1}", "[1,", "{\"v\":1}]", ""})
    void a_payload_that_is_not_json_is_named_so_even_after_a_value_that_does_not_fit(String json) {
        RowConverter converter = new RowConverter(new Schema(Types.NestedField.optional(2, "v", Types.LongType.get())));
        assertThatThrownBy(() -> converter.convert(record(json).source())).isInstanceOf(BadRecordException.class)
                .hasMessageContaining(json.isEmpty() ? "not a JSON object" : "the payload is not JSON");
    }

    /**
     * String columns take a value's bytes from the payload when it has no escape, Jackson's text when it has: both
     * read back as sent, beyond ASCII too (two- and four-byte sequences), in nested lists and maps alike.
     */
    @Test
    void strings_with_escapes_and_beyond_ascii_are_read_back_as_sent() throws Exception {
        String name = "conv.t" + TABLES.incrementAndGet();
        Types.ListType list = Types.ListType.ofOptional(11, Types.StringType.get());
        Types.MapType map = Types.MapType.ofOptional(12, 13, Types.StringType.get(), Types.StringType.get());
        Schema schema = new Schema(
                Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
                Types.NestedField.optional(2, "escaped", Types.StringType.get()),
                Types.NestedField.optional(3, "plain", Types.StringType.get()),
                Types.NestedField.optional(4, "list", list),
                Types.NestedField.optional(5, "map", map));
        // partitioned by both kinds of value: an identity partition's value is read back from the table's metadata
        catalog.createTable(TableIdentifier.parse(name), schema, org.apache.iceberg.PartitionSpec.builderFor(schema)
                .identity("plain").truncate("escaped", 2).build());
        String escaped = "\"é\\u00e9\\\\n\\\"x\"";
        String plain = "\"a é \uD83D\uDE00 z\"";
        String json = "{\"escaped\":" + escaped + ",\"plain\":" + plain + ",\"list\":[" + plain + "," + escaped
                + ",\"\"],\"map\":{\"k\":" + plain + ",\"e\":" + escaped + "}}";
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink")) {
            TableStore.RowFile file = store.newFile(name);
            file.append(record(json));
            store.commit(name, List.of(new TableStore.Append(P0, -1, 0, List.of(file.stage()))));
        }
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> read = IcebergGenerics.read(catalog.loadTable(TableIdentifier.parse(name)))
                .build()) {
            read.forEach(r -> rows.add(r.copy()));
        }
        String escapedText = "éé\\n\"x";
        String plainText = "a é \uD83D\uDE00 z";
        assertThat(rows).singleElement().satisfies(r -> {
            assertThat(r.getField("escaped")).isEqualTo(escapedText);
            assertThat(r.getField("plain")).isEqualTo(plainText);
            assertThat(r.getField("list")).isEqualTo(List.of(plainText, escapedText, ""));
            assertThat(r.getField("map")).isEqualTo(Map.of("k", plainText, "e", escapedText));
        });
    }

    /** JSON is UTF-8: malformed bytes make no row (overlong, surrogate, beyond U+10FFFF, cut short), read or not. */
    @ParameterizedTest(name = "bytes {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"C0 80", "ED A0 80", "F4 90 80 80", "E9", "80"})
    void a_payload_of_malformed_utf8_is_not_json_wherever_it_is(String hex) {
        RowConverter converter = new RowConverter(new Schema(Types.NestedField.optional(2, "v", Types.StringType.get())));
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        bytes.writeBytes("{\"skipped\":\"".getBytes(StandardCharsets.UTF_8));
        for (String b : hex.split(" ")) bytes.write(Integer.parseInt(b, 16));
        bytes.writeBytes("\",\"v\":\"ok\"}".getBytes(StandardCharsets.UTF_8));
        SinkRecord source = new SinkRecord(P0, 0, 0, 0, new MessageId(0, 1), List.of(), bytes.toByteArray());
        assertThatThrownBy(() -> converter.convert(source)).isInstanceOf(BadRecordException.class)
                .hasMessageContaining("the payload is not JSON").hasMessageContaining("UTF-8");
    }

    /** An escaped surrogate without its pair is text no UTF-8 can hold: the field is named, not written as '?'. */
    @Test
    void a_string_of_a_lone_surrogate_is_refused() throws Exception {
        RowConverter converter = new RowConverter(new Schema(Types.NestedField.optional(2, "v", Types.StringType.get())));
        assertThatThrownBy(() -> converter.convert(record("{\"v\":\"a\\ud800b\"}").source()))
                .isInstanceOf(BadRecordException.class).hasMessageContaining("field 'v'")
                .hasMessageContaining("lone surrogate");
        assertThat(converter.convert(record("{\"v\":\"a\\ud83d\\ude00b\"}").source()).getField("v").toString())
                .isEqualTo("a\uD83D\uDE00b");
    }

    private static Decoded record(String json) {
        return new Decoded(new SinkRecord(P0, 0, 0, 0, new MessageId(0, 1), List.of(),
                json.getBytes(StandardCharsets.UTF_8)));
    }
}
