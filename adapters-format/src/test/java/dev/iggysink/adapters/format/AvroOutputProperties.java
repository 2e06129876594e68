package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.OutputFormat;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

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
    @Property(tries = 200)
    void any_value_in_any_field_is_written_or_refused_cleanly(@ForAll("fieldIndex") int field,
                                                              @ForAll("json") Object value) throws Exception {
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
            byte[] bytes = file.finish();
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

    @Provide
    Arbitrary<Integer> fieldIndex() {
        return Arbitraries.integers().between(0, FIELDS.size() - 1);
    }

    @Provide
    Arbitrary<Object> json() {
        return Arbitraries.lazyOf(
                () -> Arbitraries.strings().ofMaxLength(12).map(s -> (Object) s),
                () -> Arbitraries.of("2026-03-16T14:02:31Z", "2026-03-16", "1e999999999", "NaN", "PAID",
                        "0191f3a0-7c1e-7cc2-8a51-1a2b3c4d5e6f", "12.5").map(s -> (Object) s),
                () -> Arbitraries.longs().map(l -> (Object) l),
                () -> Arbitraries.doubles().filter(Double::isFinite).map(d -> (Object) d),
                () -> Arbitraries.of(Boolean.TRUE, Boolean.FALSE, Json.NULL),
                () -> json().list().ofMaxSize(3).map(l -> (Object) new ArrayList<>(l)),
                () -> Arbitraries.maps(Arbitraries.of("city", "zip", "x", "string", "long"), json()).ofMaxSize(3)
                        .map(m -> (Object) new LinkedHashMap<>(m)));
    }
}
