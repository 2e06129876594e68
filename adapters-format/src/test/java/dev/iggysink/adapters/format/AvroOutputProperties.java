package dev.iggysink.adapters.format;

import dev.iggysink.domain.Seeded;
import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.adapters.format.json.Json;
import dev.iggysink.adapters.format.json.JsonOut;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.OutputFormat;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

class AvroOutputProperties {
    private static final RecordCodec AVRO =
            WideSchema.codec(WideSchema.output(OutputFormat.AVRO, true, "snappy", "null"));
    private static final RecordCodec PARQUET =
            WideSchema.codec(WideSchema.output(OutputFormat.PARQUET, true, "snappy", "null"));
    private static final List<String> FIELDS = new Schema.Parser().parse(WideSchema.SCHEMA).getFields().stream()
            .map(Schema.Field::name).toList();

    /**
     * Any JSON value in any field (the good record with one field replaced) is either written or refused as a bad
     * record that leaves the file as it was; nothing else escapes (no ClassCastException, no ArithmeticException).
     */
    @Test
    void any_value_in_any_field_is_written_or_refused_cleanly() {
        Seeded.check(200, r -> {
            int field = r.nextInt(FIELDS.size());
            Object value = json(r, 0);
            try {
                writtenOrRefused(field, value);
            } catch (Exception e) {
                throw new AssertionError("field " + FIELDS.get(field) + " = " + value, e);
            }
        });
    }

    private static void writtenOrRefused(int field, Object value) throws Exception {
        @SuppressWarnings("unchecked")
        Map<String, Object> doc = (Map<String, Object>) Json.parse(
                WideSchema.FIRST.getBytes(StandardCharsets.UTF_8), Json.Dialect.SIMD);
        doc.put(FIELDS.get(field), value);
        ByteBuf payload = new ByteBuf(256);
        JsonOut.value(payload, doc, JsonOut.Keys.INSERTION);

        for (RecordCodec codec : List.of(AVRO, PARQUET)) {
            FileEncoder file = codec.newFile();
            file.append(codec.decode(WideSchema.record(1, WideSchema.FIRST)));
            boolean written;
            try {
                file.append(codec.decode(Fixtures.record(2, payload.toByteArray(), List.of())));
                written = true;
            } catch (BadRecordException refused) {
                assertThat(refused).hasMessageContaining("field " + FIELDS.get(field));
                written = false;
            }
            assertThat(file.count()).isEqualTo(written ? 2 : 1);
            byte[] bytes = file.finish().toByteArray();
            if (codec == AVRO) {
                try (DataFileReader<GenericRecord> reader = AvroOutputTest.open(bytes, GenericData.get())) {
                    int rows = 0;
                    while (reader.hasNext()) {
                        reader.next();
                        rows++;
                    }
                    assertThat(rows).isEqualTo(written ? 2 : 1);
                }
            }
        }
    }

    /** Like {@link CodecProperties#json}, with the strings and keys the wide schema's fields react to. */
    private static Object json(Random r, int depth) {
        switch (r.nextInt(depth >= 3 ? 5 : 7)) {
            case 0: return Generators.text(r, 12);
            case 1: return List.of("2026-03-16T14:02:31Z", "2026-03-16", "1e999999999", "NaN", "PAID",
                    "0191f3a0-7c1e-7cc2-8a51-1a2b3c4d5e6f", "12.5").get(r.nextInt(7));
            case 2: return Seeded.longBetween(r, Long.MIN_VALUE, Long.MAX_VALUE);
            case 3: return CodecProperties.finiteDouble(r);
            case 4: return List.of(Boolean.TRUE, Boolean.FALSE, Json.NULL).get(r.nextInt(3));
            case 5: {
                List<Object> list = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) list.add(json(r, depth + 1));
                return list;
            }
            default: {
                Map<String, Object> map = new LinkedHashMap<>();
                List<String> keys = List.of("city", "zip", "x", "string", "long");
                for (int i = r.nextInt(4); i > 0; i--) map.put(keys.get(r.nextInt(keys.size())), json(r, depth + 1));
                return map;
            }
        }
    }
}
