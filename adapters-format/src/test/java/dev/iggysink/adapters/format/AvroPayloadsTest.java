package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.StreamSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/** {@code schema = "avro"} streams: binary datums decoded with the stream's schema. */
class AvroPayloadsTest {
    private static final String SCHEMA = """
            {"type": "record", "name": "Event", "fields": [
              {"name": "id", "type": "int"},
              {"name": "name", "type": ["null", "string"]},
              {"name": "score", "type": "float"},
              {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
              {"name": "raw", "type": "bytes"},
              {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 2}},
              {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "labels", "type": {"type": "map", "values": {"type": "array", "items": "long"}}}
            ]}""";
    private static final Schema PARSED = new Schema.Parser().parse(SCHEMA);

    @Test
    void a_datum_is_written_to_json_lines_as_its_json_value() throws Exception {
        RecordCodec codec = codec(Fixtures.jsonLines(false, false));
        String line = Fixtures.fileOf(codec, Fixtures.record(1, datum(), List.of()));
        assertThat(line).isEqualTo("{\"payload\":{\"at\":1773669751000000,\"id\":7,\"kind\":\"B\","
                + "\"labels\":{\"k\":[1,-2]},\"name\":\"ann\",\"price\":\"-12.34\",\"raw\":\"\\u0000\u00ff\","
                + "\"score\":0.1}}\n");
    }

    @Test
    void path_variables_see_the_decoded_fields() throws Exception {
        RecordCodec codec = codec(Fixtures.jsonLines(false, false));
        assertThat(codec.decode(Fixtures.record(1, datum(), List.of())).fieldText("name")).contains("ann");
    }

    @Test
    void bytes_that_are_not_a_datum_of_the_schema_are_bad_records() throws Exception {
        RecordCodec codec = codec(Fixtures.jsonLines(false, false));
        byte[] good = datum();
        byte[] longer = Arrays.copyOf(good, good.length + 1);
        byte[] shorter = Arrays.copyOf(good, good.length - 3);
        assertThatThrownBy(() -> codec.decode(Fixtures.record(5, longer, List.of())))
                .isInstanceOf(BadRecordException.class).hasMessageContaining("offset 5")
                .hasMessageContaining("after the datum");
        assertThatThrownBy(() -> codec.decode(Fixtures.record(6, shorter, List.of())))
                .isInstanceOf(BadRecordException.class);
        assertThatThrownBy(() -> codec.decode(Fixtures.record(7, new byte[0], List.of())))
                .isInstanceOf(BadRecordException.class);
    }

    @Test
    void an_avro_stream_written_as_avro_keeps_every_value_including_bytes_and_decimals() throws Exception {
        OutputSettings out = new OutputSettings("", "{stream}", OutputFormat.AVRO,
                dev.iggysink.application.settings.Compression.NONE, false, false, java.time.ZoneId.of("UTC"),
                Optional.empty(), "snappy", "deflate", "x");
        RecordCodec codec = codec(out);
        FileEncoder file = codec.newFile();
        file.append(codec.decode(Fixtures.record(1, datum(), List.of())));
        try (DataFileReader<GenericRecord> reader = AvroOutputTest.open(file.finish().toByteArray(), GenericData.get())) {
            GenericRecord r = reader.next();
            assertThat(r).isEqualTo(sent());
        }
    }

    @Test
    void a_schema_that_does_not_parse_is_refused_naming_the_key() {
        StreamSettings stream = stream("{\"type\": \"recrd\"}");
        assertThatThrownBy(() -> RecordCodecs.forStream(stream, Fixtures.jsonLines(false, false), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("avro_schema_json");
    }

    private static RecordCodec codec(OutputSettings output) {
        return RecordCodecs.forStream(stream(SCHEMA), output, List.of(), Fixtures.FIXED_CLOCK);
    }

    private static StreamSettings stream(String schema) {
        return new StreamSettings("application_logs", List.of("api_requests"), PayloadSchema.AVRO, 1000,
                Duration.ofMillis(100), "s3_sink", Optional.of(schema));
    }

    private static GenericRecord sent() {
        GenericData.Record r = new GenericData.Record(PARSED);
        r.put("id", 7);
        r.put("name", "ann");
        r.put("score", 0.1f);
        r.put("kind", new GenericData.EnumSymbol(PARSED.getField("kind").schema(), "B"));
        r.put("raw", ByteBuffer.wrap(new byte[]{0, (byte) 0xFF}));
        r.put("price", ByteBuffer.wrap(BigInteger.valueOf(-1234).toByteArray()));
        r.put("at", 1773669751000000L);
        r.put("labels", Map.of("k", List.of(1L, -2L)));
        return r;
    }

    private static byte[] datum() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(PARSED).write(sent(), enc);
        enc.flush();
        return out.toByteArray();
    }
}
