package dev.iggysink.adapters.format.columnar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.adapters.format.json.Json;
import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One field at a time: which JSON values a type takes, what it stores, and which it refuses. */
class JsonToAvroTest {

    @ParameterizedTest(name = "{0} <- {1} = {2}")
    @CsvSource(delimiter = '|', value = {
            "\"int\"                                                     | 2.0                          | 2",
            "\"long\"                                                    | -9223372036854775808         | -9223372036854775808",
            "\"double\"                                                  | \"NaN\"                      | NaN",
            "\"double\"                                                  | 18446744073709551615         | 1.8446744073709552E19",
            "\"float\"                                                   | \"-Infinity\"                | -Infinity",
            "[\"null\",\"long\",\"string\"]                              | {\"string\": \"5\"}          | 5",
            "[\"null\",\"long\",\"string\"]                              | 5                            | 5",
            "[\"null\",\"string\"]                                       | null                         | null",
            "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}    | \"1970-01-01T00:00:01.5Z\"   | 1500",
            "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}    | \"1970-01-01 00:00:00.000001+00:00\" | 1",
            "{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}     | \"1969-12-31T23:59:59.999999999Z\" | -1",
            "{\"type\":\"long\",\"logicalType\":\"local-timestamp-micros\"} | \"1970-01-01T00:00:02\"  | 2000000",
            "{\"type\":\"int\",\"logicalType\":\"time-millis\"}          | \"00:00:01.25\"              | 1250",
            "{\"type\":\"int\",\"logicalType\":\"date\"}                 | \"1969-12-31\"               | -1",
            "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"Z\"],\"default\":\"Z\"} | \"Q\" | Z",
    })
    void accepted(String schema, String json, String stored) throws Exception {
        assertThat(String.valueOf(convert(schema, json))).isEqualTo(stored);
    }

    @ParameterizedTest(name = "{0} refuses {1}")
    @CsvSource(delimiter = '|', value = {
            "\"int\"                                                  | 2.5                 | expected int",
            "\"int\"                                                  | 2147483648          | out of range",
            "\"long\"                                                 | 9223372036854775808 | expected long",
            "\"long\"                                                 | \"1\"               | expected long, got string",
            "\"string\"                                               | 1                   | expected string",
            "\"boolean\"                                              | \"true\"            | expected boolean",
            "\"bytes\"                                                | \"\u20ac\"          | code points 0..255",
            "{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}           | \"abc\"             | needs 2 bytes",
            "[\"null\",\"long\"]                                      | \"x\"               | fits no branch",
            "\"long\"                                                 | null                | expected long, got null",
            "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"} | \"yesterday\"       | not a timestamp-micros",
            "{\"type\":\"string\",\"logicalType\":\"uuid\"}           | \"1-2-3-4-5\"       | not a canonical UUID",
            "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":3,\"scale\":1} | 123.4 | more than 2 digits before the point",
            "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":3,\"scale\":1} | \"1e999999999\" | digits before the point",
            "{\"type\":\"array\",\"items\":\"int\"}                   | {\"a\": 1}          | expected array",
            "{\"type\":\"map\",\"values\":\"int\"}                    | {\"a\": \"b\"}      | field v[\"a\"]",
    })
    void refused(String schema, String json, String message) {
        assertThatThrownBy(() -> convert(schema, json)).isInstanceOf(JsonToAvro.Mismatch.class)
                .hasMessageContaining(message).hasMessageContaining("field v");
    }

    /** Wraps the type as field {@code v} of a record, so the path in messages is {@code v}. */
    private static Object convert(String fieldSchema, String json) throws Exception {
        Schema record = new Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"v\",\"type\":" + fieldSchema + "}]}");
        Object tree = Json.parse(("{\"v\":" + json + "}").getBytes(StandardCharsets.UTF_8), Json.Dialect.SIMD);
        GenericData.Record r = JsonToAvro.record(record, tree);
        return r.get("v");
    }
}
