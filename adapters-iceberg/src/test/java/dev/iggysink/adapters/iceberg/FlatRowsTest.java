package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The converter's quick way ({@link FlatRows}) against Jackson's reading of the same payloads: for every payload,
 * valid or not, both give the same row or the same bad-record message. Payloads are drawn from fields, values and
 * spacing that JSON allows and that it does not, with a fixed seed.
 */
class FlatRowsTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "n", Types.IntegerType.get()),
            Types.NestedField.optional(3, "d", Types.DoubleType.get()),
            Types.NestedField.optional(4, "b", Types.BooleanType.get()),
            Types.NestedField.optional(5, "s", Types.StringType.get()),
            Types.NestedField.required(6, "r", Types.StringType.get()),
            Types.NestedField.optional(7, "at", Types.TimestampType.withZone()),
            Types.NestedField.optional(8, "iggy_offset", Types.LongType.get()),
            Types.NestedField.optional(9, "iggy_timestamp", Types.TimestampType.withZone()));
    private static final String[] NAMES = {"id", "n", "d", "b", "s", "r", "at", "iggy_offset", "other", "", "r\\u0000",
        "é", "ID"};
    private static final String[] VALUES = {
        "0", "-0", "1", "-1", "01", "1.", "1.5", ".5", "-", "1e5", "1E+5", "1e-5", "1e", "2147483647", "2147483648",
        "-2147483648", "-2147483649", "9223372036854775807", "9223372036854775808", "123456789012345678",
        "-123456789012345678", "1234567890123456789", "1e400", "-1e400", "0.1", "3.141592653589793", "1_0", "+1",
        "NaN", "Infinity", "0e0", "-0.0", "4.9e-324", "2.2250738585072014E-308", "1" + "0".repeat(120),
        "\"\"", "\"abc\"", "\"a\\\"b\"", "\"a\\u0041\"", "\"tab\tinside\"", "\"é\"", "\"\u007f\"", "\"unterminated",
        "\"2026-12-06T09:00:00Z\"", "\"x\u0001\"", "\"" + "long text ".repeat(40) + "\"",
        "true", "false", "null", "nul", "tru", "True", "nulll", "falsey",
        "{}", "[]", "[1]", "{\"x\":1}", "{\"x\":[1,{\"y\":null}]}"};
    private static final String[] SPACES = {"", "", "", " ", "\n\t ", "\r\n"};
    /** Not JSON whitespace. */
    private static final String[] NOT_SPACES = {"\u000b", "\u00a0", "\u0000"};

    @Test
    void a_short_decimal_is_the_double_java_parses() {
        Random random = new Random(49);
        int quick = 0;
        for (int k = 0; k < 200_000; k++) {
            // 1 to 17 digits, a point anywhere or none, either sign: the quick way up to 15 digits, NaN beyond
            int count = 1 + random.nextInt(17);
            StringBuilder b = new StringBuilder(random.nextBoolean() ? "-" : "");
            int point = random.nextInt(count + 1);
            for (int d = 0; d < count; d++) {
                if (d == point && d > 0) b.append('.');
                b.append((char) ('0' + (d == 0 && point != 1 ? 1 + random.nextInt(9) : random.nextInt(10))));
            }
            if (random.nextInt(3) == 0) b.setLength(b.length() - 1);
            String text = b.length() == 0 || b.toString().equals("-") ? "7" : b.toString();
            if (text.endsWith(".")) text = text + "5";
            byte[] in = text.getBytes(StandardCharsets.US_ASCII);
            double got = FlatRows.shortDecimal(in, 0, in.length);
            long digits = text.chars().filter(Character::isDigit).count();
            if (digits > 15) {
                assertThat(got).as(text).isNaN();
            } else {
                quick++;
                assertThat(Double.doubleToRawLongBits(got)).as(text)
                        .isEqualTo(Double.doubleToRawLongBits(Double.parseDouble(text)));
            }
        }
        assertThat(quick).isGreaterThan(100_000);
        for (String text : List.of("0.1", "0.3", "-0.0", "0", "999999999999999", "0.00000000000001", "1.79769313486231",
                "123456789.012345", "900719925474.993")) {
            byte[] in = text.getBytes(StandardCharsets.US_ASCII);
            assertThat(Double.doubleToRawLongBits(FlatRows.shortDecimal(in, 0, in.length))).as(text)
                    .isEqualTo(Double.doubleToRawLongBits(Double.parseDouble(text)));
        }
        byte[] exponent = "1.5e3".getBytes(StandardCharsets.US_ASCII);
        assertThat(FlatRows.shortDecimal(exponent, 0, exponent.length)).isNaN();
    }

    @Test
    void every_payload_reads_as_jacksons_reading_reads_it() {
        RowConverter quick = new RowConverter(SCHEMA, true);
        RowConverter jackson = new RowConverter(SCHEMA, false);
        FlatRows flat = new FlatRows(SCHEMA.asStruct(),
                new boolean[] {false, false, false, false, false, false, false, true, true});
        Random random = new Random(20261206);
        int taken = 0;
        int good = 0;
        for (int k = 0; k < 30_000; k++) {
            String json = payload(random);
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            SinkRecord record = new SinkRecord(new PartitionRef("app", "events", 0), k, 1_764_583_200_000_000L + k,
                    1_764_583_200_000_000L, new MessageId(0, k + 1), List.of(), bytes);
            if (flat.read(bytes) != null) taken++;
            String a = outcome(quick, record);
            String b = outcome(jackson, record);
            assertThat(a).as("payload %s", json).isEqualTo(b);
            if (!a.startsWith("bad:")) good++;
        }
        // the draw must exercise the quick way, and good and bad payloads both
        assertThat(taken).isGreaterThan(3_000);
        assertThat(good).isGreaterThan(3_000).isLessThan(27_000);
    }

    /** Bytes that are not UTF-8 inside a string: Jackson refuses the payload, so the quick way must leave it. */
    @Test
    void a_string_that_is_not_utf8_is_left_to_jackson_which_refuses_it() {
        RowConverter quick = new RowConverter(SCHEMA, true);
        RowConverter jackson = new RowConverter(SCHEMA, false);
        byte[][] inside = {{(byte) 0xC3, 0x28}, {(byte) 0x80}, {(byte) 0xFF}, {(byte) 0xE2, (byte) 0x82},
            {(byte) 0xC3, (byte) 0xA9}};
        int refused = 0;
        for (String field : new String[] {"r", "s", "other"}) {
            for (byte[] bad : inside) {
                for (int pad = 0; pad < 12; pad++) {
                    byte[] head = ("{\"r\":\"x\",\"" + field + "\":\"" + "a".repeat(pad))
                            .getBytes(StandardCharsets.US_ASCII);
                    byte[] tail = "b\"}".getBytes(StandardCharsets.US_ASCII);
                    byte[] bytes = new byte[head.length + bad.length + tail.length];
                    System.arraycopy(head, 0, bytes, 0, head.length);
                    System.arraycopy(bad, 0, bytes, head.length, bad.length);
                    System.arraycopy(tail, 0, bytes, head.length + bad.length, tail.length);
                    SinkRecord record = new SinkRecord(new PartitionRef("app", "events", 0), 1, 1L, 1L,
                            new MessageId(0, 2), List.of(), bytes);
                    String a = outcome(quick, record);
                    assertThat(a).as("field %s, bytes %s, pad %d", field, java.util.Arrays.toString(bad), pad)
                            .isEqualTo(outcome(jackson, record));
                    if (a.startsWith("bad:")) refused++;
                }
            }
        }
        // all but the valid two-byte character (é) are refused, whichever field holds them
        assertThat(refused).isEqualTo(3 * 4 * 12);
    }

    @Test
    void a_log_payload_is_read_the_quick_way_into_the_row_jackson_gives() throws BadRecordException {
        Schema schema = new Schema(
                Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "level", Types.StringType.get()),
                Types.NestedField.optional(3, "user", Types.StringType.get()),
                Types.NestedField.optional(4, "latency_ms", Types.DoubleType.get()),
                Types.NestedField.optional(5, "msg", Types.StringType.get()),
                Types.NestedField.optional(6, "iggy_offset", Types.LongType.get()));
        byte[] bytes = ("{\"id\":42,\"level\":\"warn\",\"user\":\"user-42\",\"latency_ms\":4.2,\"msg\":\""
                + "The quick brown fox jumps over the lazy dog. ".repeat(20) + "\"}").getBytes(StandardCharsets.UTF_8);
        SinkRecord record = new SinkRecord(new PartitionRef("app", "events", 0), 7, 1L, 1L, new MessageId(0, 8),
                List.of(), bytes);
        assertThat(new FlatRows(schema.asStruct(), new boolean[] {false, false, false, false, false, true})
                .read(bytes)).isNotNull();
        Record row = new RowConverter(schema, true).convert(record);
        assertThat(row.toString()).isEqualTo(new RowConverter(schema, false).convert(record).toString());
        assertThat(row.getField("id")).isEqualTo(42L);
        assertThat(row.getField("latency_ms")).isEqualTo(4.2);
        assertThat(row.getField("user").toString()).isEqualTo("user-42");
        assertThat(row.getField("iggy_offset")).isEqualTo(7L);
    }

    private static String payload(Random random) {
        int shape = random.nextInt(40);
        if (shape == 0) return "";
        if (shape == 1) return "[{\"r\":\"x\"}]";
        if (shape == 2) return "\uFEFF{\"r\":\"x\"}";
        StringBuilder b = new StringBuilder().append(space(random)).append('{').append(space(random));
        int fields = random.nextInt(8);
        boolean hasR = false;
        for (int f = 0; f < fields; f++) {
            if (f > 0) b.append(space(random)).append(random.nextInt(60) == 0 ? ";" : ",").append(space(random));
            String name = random.nextInt(3) == 0 ? "r" : NAMES[random.nextInt(NAMES.length)];
            hasR |= name.equals("r");
            b.append('"').append(name).append('"').append(space(random)).append(random.nextInt(60) == 0 ? "=" : ":")
                    .append(space(random)).append(value(random, name));
        }
        if (!hasR && random.nextInt(4) > 0) {
            if (fields > 0) b.append(',');
            b.append("\"r\":\"required\"");
        }
        b.append(space(random)).append(random.nextInt(50) == 0 ? "" : "}").append(space(random));
        if (random.nextInt(50) == 0) b.append(random.nextBoolean() ? "}" : " x");
        String out = b.toString();
        if (random.nextInt(40) == 0) out = out.substring(0, random.nextInt(out.length() + 1));
        return out;
    }

    private static String value(Random random, String name) {
        // mostly values of the field's own kind, so that many payloads are good
        if (random.nextInt(10) > 0) {
            switch (name) {
                case "id", "iggy_offset" -> {
                    return Long.toString(random.nextLong() >> random.nextInt(64));
                }
                case "n" -> {
                    return Integer.toString(random.nextInt() >> random.nextInt(32));
                }
                case "d" -> {
                    return random.nextBoolean() ? Double.toString(random.nextGaussian() * 1e3)
                            : Long.toString(random.nextInt(2000) - 1000);
                }
                case "b" -> {
                    return Boolean.toString(random.nextBoolean());
                }
                case "s", "r" -> {
                    return "\"text " + random.nextInt(1000) + "\"";
                }
                default -> {
                }
            }
        }
        return VALUES[random.nextInt(VALUES.length)];
    }

    private static String space(Random random) {
        return random.nextInt(150) == 0 ? NOT_SPACES[random.nextInt(NOT_SPACES.length)]
                : SPACES[random.nextInt(SPACES.length)];
    }

    private static String outcome(RowConverter converter, SinkRecord record) {
        try {
            Record row = converter.convert(record);
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                Object v = row.get(i);
                b.append(v == null ? "null" : v.getClass().getSimpleName() + ":" + Objects.toString(v)).append('|');
            }
            return b.toString();
        } catch (BadRecordException e) {
            return "bad: " + e.getMessage();
        }
    }
}
