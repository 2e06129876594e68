package dev.iggysink.adapters.format;

import dev.iggysink.adapters.format.payload.AvroSchemas;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.domain.message.SinkRecord;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A schema with every shape the converter handles (nested record, array, map, nullable union, enum, fixed, bytes and
 * the logical types), two payloads for it, and the values a standard reader must return for them.
 */
final class WideSchema {
    static final String SCHEMA = """
            {"type": "record", "name": "Order", "namespace": "com.acme", "fields": [
              {"name": "id", "type": "long"},
              {"name": "qty", "type": "int"},
              {"name": "price", "type": "double"},
              {"name": "ratio", "type": "float"},
              {"name": "paid", "type": "boolean"},
              {"name": "customer", "type": "string"},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "counts", "type": {"type": "map", "values": "long"}},
              {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
                {"name": "city", "type": "string"},
                {"name": "zip", "type": ["null", "string"], "default": null}]}},
              {"name": "note", "type": ["null", "string"], "default": null},
              {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
              {"name": "created", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "updated", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}]},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
              {"name": "tax", "type": {"type": "fixed", "name": "Tax", "size": 5, "logicalType": "decimal",
                                       "precision": 9, "scale": 3}},
              {"name": "ref", "type": {"type": "string", "logicalType": "uuid"}},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "blob", "type": "bytes"},
              {"name": "channel", "type": "string", "default": "web"}
            ]}""";

    static final String FIRST = """
            {"id": 1, "qty": 3, "price": 19.99, "ratio": 0.25, "paid": true, "customer": "Zoë",
             "tags": ["a", "b"], "counts": {"x": 1, "y": -2},
             "address": {"city": "Hyderabad", "zip": "500001"}, "note": "leave at door", "status": "PAID",
             "created": "2026-03-16T14:02:31.123456Z", "updated": 1773669751123,
             "amount": "1234.50", "tax": -12.345, "ref": "0191f3a0-7c1e-7cc2-8a51-1a2b3c4d5e6f",
             "day": "2026-03-16", "blob": "\\u0000\\u00ff\\u0041", "extra_ignored": 7}""";

    /** Nulls, empties, defaults taken (zip and channel missing), offsets in timestamps, numbers for logical types. */
    static final String SECOND = """
            {"id": -9007199254740993, "qty": -2147483648, "price": -0.0, "ratio": 3, "paid": false,
             "customer": "", "tags": [], "counts": {},
             "address": {"city": "Pune"}, "note": null, "status": "NEW",
             "created": "2026-03-16T16:02:31+02:00", "updated": null,
             "amount": 7, "tax": "0.001", "ref": "00000000-0000-0000-0000-000000000000",
             "day": 0, "blob": ""}""";

    static final Instant FIRST_CREATED = Instant.parse("2026-03-16T14:02:31.123456Z");

    private WideSchema() {
    }

    static OutputSettings output(OutputFormat format, boolean metadata, String parquetCodec, String avroCodec) {
        return new OutputSettings("", "{stream}/{topic}", format, Compression.NONE, metadata, false,
                ZoneId.of("UTC"), Optional.of(SCHEMA), parquetCodec, avroCodec, "__missing__");
    }

    static RecordCodec codec(OutputSettings output) {
        return Fixtures.codec(PayloadSchema.JSON, output);
    }

    /** A model that turns logical types into Java values, so the checks below compare meanings, not encodings. */
    static GenericData readerModel() {
        GenericData model = new GenericData();
        model.addLogicalTypeConversion(new Conversions.DecimalConversion());
        model.addLogicalTypeConversion(new Conversions.UUIDConversion());
        model.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
        model.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        model.addLogicalTypeConversion(new TimeConversions.DateConversion());
        return model;
    }

    static SinkRecord record(long offset, String payload) {
        return Fixtures.record(offset, payload.getBytes(java.nio.charset.StandardCharsets.UTF_8), List.of());
    }

    /** Appends FIRST (offset 42) and SECOND (offset 43); returns the file and the two sizes append reported. */
    static Written writeBoth(RecordCodec codec) throws BadRecordException {
        FileEncoder file = codec.newFile();
        long a = file.append(codec.decode(record(42, FIRST)));
        long b = file.append(codec.decode(record(43, SECOND)));
        assertThat(file.count()).isEqualTo(2);
        return new Written(file.finish().toByteArray(), a, b);
    }

    record Written(byte[] bytes, long firstSize, long secondSize) {
    }

    /** Checks the two records as read back, value by value against what was sent. */
    static void assertRoundTrip(List<GenericRecord> read, boolean metadata) {
        assertThat(read).hasSize(2);
        GenericRecord a = read.get(0);
        assertThat(a.get("id")).isEqualTo(1L);
        assertThat(a.get("qty")).isEqualTo(3);
        assertThat(a.get("price")).isEqualTo(19.99);
        assertThat(a.get("ratio")).isEqualTo(0.25f);
        assertThat(a.get("paid")).isEqualTo(true);
        assertThat(text(a.get("customer"))).isEqualTo("Zoë");
        assertThat(((List<?>) a.get("tags")).stream().map(WideSchema::text)).containsExactly("a", "b");
        assertThat(textKeys((Map<?, ?>) a.get("counts"))).containsExactlyInAnyOrderEntriesOf(Map.of("x", 1L, "y", -2L));
        GenericRecord address = (GenericRecord) a.get("address");
        assertThat(text(address.get("city"))).isEqualTo("Hyderabad");
        assertThat(text(address.get("zip"))).isEqualTo("500001");
        assertThat(text(a.get("note"))).isEqualTo("leave at door");
        assertThat(text(a.get("status"))).isEqualTo("PAID");
        assertThat(a.get("created")).isEqualTo(FIRST_CREATED);
        assertThat(a.get("updated")).isEqualTo(Instant.ofEpochMilli(1773669751123L));
        assertThat(a.get("amount")).isEqualTo(new BigDecimal("1234.50"));
        assertThat(a.get("tax")).isEqualTo(new BigDecimal("-12.345"));
        assertThat(a.get("ref")).isEqualTo(UUID.fromString("0191f3a0-7c1e-7cc2-8a51-1a2b3c4d5e6f"));
        assertThat(a.get("day")).isEqualTo(LocalDate.of(2026, 3, 16));
        assertThat(bytes(a.get("blob"))).containsExactly(0, 0xFF, 0x41);
        assertThat(text(a.get("channel"))).isEqualTo("web");
        assertThat(a.getSchema().getField("extra_ignored")).isNull();

        GenericRecord b = read.get(1);
        assertThat(b.get("id")).isEqualTo(-9007199254740993L);
        assertThat(b.get("qty")).isEqualTo(Integer.MIN_VALUE);
        assertThat(Double.doubleToRawLongBits((Double) b.get("price"))).isEqualTo(Double.doubleToRawLongBits(-0.0));
        assertThat(b.get("ratio")).isEqualTo(3.0f);
        assertThat(b.get("paid")).isEqualTo(false);
        assertThat(text(b.get("customer"))).isEmpty();
        assertThat((List<?>) b.get("tags")).isEmpty();
        assertThat((Map<?, ?>) b.get("counts")).isEmpty();
        assertThat(((GenericRecord) b.get("address")).get("zip")).isNull();
        assertThat(b.get("note")).isNull();
        assertThat(text(b.get("status"))).isEqualTo("NEW");
        assertThat(b.get("created")).isEqualTo(Instant.parse("2026-03-16T14:02:31Z"));
        assertThat(b.get("updated")).isNull();
        assertThat(b.get("amount")).isEqualTo(new BigDecimal("7.00"));
        assertThat(b.get("tax")).isEqualTo(new BigDecimal("0.001"));
        assertThat(b.get("ref")).isEqualTo(new UUID(0, 0));
        assertThat(b.get("day")).isEqualTo(LocalDate.EPOCH);
        assertThat(bytes(b.get("blob"))).isEmpty();
        assertThat(text(b.get("channel"))).isEqualTo("web");

        if (metadata) {
            assertThat(a.get(AvroSchemas.OFFSET)).isEqualTo(42L);
            assertThat(b.get(AvroSchemas.OFFSET)).isEqualTo(43L);
            assertThat(a.get(AvroSchemas.TIMESTAMP)).isEqualTo(Instant.ofEpochSecond(0, Fixtures.SEED_MICROS * 1000));
            assertThat(text(a.get(AvroSchemas.STREAM))).isEqualTo("application_logs");
            assertThat(text(a.get(AvroSchemas.TOPIC))).isEqualTo("api_requests");
            assertThat(a.get(AvroSchemas.PARTITION_ID)).isEqualTo(1);
        } else {
            assertThat(a.getSchema().getFields()).extracting(Schema.Field::name).doesNotContain(AvroSchemas.OFFSET);
        }
    }

    static String text(Object v) {
        // Readers hand strings back as Utf8 or String, enums as EnumSymbol: compare their text.
        return v == null ? null : v.toString();
    }

    private static Map<String, Object> textKeys(Map<?, ?> m) {
        Map<String, Object> out = new java.util.HashMap<>();
        m.forEach((k, v) -> out.put(k.toString(), v));
        return out;
    }

    static int[] bytes(Object v) {
        ByteBuffer b = ((ByteBuffer) v).duplicate();
        int[] out = new int[b.remaining()];
        for (int i = 0; i < out.length; i++) out[i] = b.get() & 0xFF;
        return out;
    }
}
