package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.adapters.format.json.CompactJson;
import dev.iggysink.adapters.format.json.DoubleFormat;
import dev.iggysink.adapters.format.json.Json;
import dev.iggysink.adapters.format.json.JsonOut;
import dev.iggysink.adapters.format.payload.CodecRecord;
import dev.iggysink.adapters.format.payload.Payload;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.domain.message.SinkRecord;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The JSON pass-through ({@link CompactJson}) against the tree path it replaces: for many generated payloads, some
 * printed exactly as the printer prints them and most not (key orders, whitespace, escapes, number forms, broken
 * bytes), a file written with the pass-through is byte for byte the file written through the tree, and a payload
 * the tree refuses is refused with the same message. Seeded; a failure names its seed and payload.
 */
class PassThroughTest {
    private static final long SEED = Long.getLong("passthrough.seed", 0x5EED_14L);
    private static final int CASES = 3000;

    private static final String[] KEY_CHARS = {"a", "b", "c", "id", "x_y", "A", "Z", "0", "9", "é", "ß", "中", "😀",
        "\u007f", " ", "-", "aa", "ab", "", "\uffff"};
    private static final String[] TEXT_CHARS = {"a", "z", " ", "\"", "\\", "/", "\b", "\f", "\n", "\r", "\t",
        "\u0000", "\u0001", "\u001f", "\u007f", "é", "\u07ff", "\u0800", "中", "\uffff", "😀", "lorem ipsum "};

    @Test
    void pass_through_files_are_the_tree_paths_files_for_generated_payloads() throws Exception {
        Random random = new Random(SEED);
        RecordCodec[][] codecs = codecs();
        int printed = 0;
        int unsorted = 0;
        int fallback = 0;
        for (int i = 0; i < CASES; i++) {
            long caseSeed = random.nextLong();
            byte[] payload = payload(new Random(caseSeed));
            int[] plan = CompactJson.check(payload);
            if (plan == null) fallback++;
            else if (plan.length == 0) printed++;
            else unsorted++;
            for (RecordCodec[] pair : codecs) {
                String failure = compare(pair[0], pair[1], payload);
                if (failure != null) {
                    throw new AssertionError("seed " + SEED + ", case " + i + " (case seed " + caseSeed + "): "
                            + failure + "\npayload: " + new String(payload, StandardCharsets.UTF_8));
                }
            }
        }
        // The generator must exercise all three answers, or the comparison proves little.
        assertThat(printed).as("printed").isGreaterThan(CASES / 10);
        assertThat(unsorted).as("unsorted of %d (printed %d, fallback %d)", CASES, printed, fallback).isGreaterThan(CASES / 10);
        assertThat(fallback).as("fallback").isGreaterThan(CASES / 10);
    }

    @Test
    void payloads_printed_by_the_printer_pass_through_and_shuffled_ones_are_reordered() {
        Random random = new Random(SEED + 1);
        for (int i = 0; i < 2000; i++) {
            Object tree = random.nextBoolean() ? object(random, 1 + random.nextInt(8), false) : tree(random, 0, false);
            ByteBuf out = new ByteBuf(64);
            JsonOut.value(out, tree, JsonOut.Keys.SORTED);
            byte[] sorted = out.toByteArray();
            assertThat(CompactJson.check(sorted)).as("seed %d case %d: %s", SEED, i, utf8(sorted))
                    .isSameAs(CompactJson.IN_ORDER);
            ByteBuf insertion = new ByteBuf(64);
            JsonOut.value(insertion, tree, JsonOut.Keys.INSERTION);
            byte[] asBuilt = insertion.toByteArray();
            int[] plan = CompactJson.check(asBuilt);
            assertThat(plan).as("seed %d case %d: %s", SEED, i, utf8(asBuilt)).isNotNull();
            ByteBuf rewritten = new ByteBuf(16);
            CompactJson.write(rewritten, asBuilt, plan);
            assertThat(utf8(rewritten.toByteArray())).as("seed %d case %d", SEED, i).isEqualTo(utf8(sorted));
        }
    }

    @Test
    void what_is_not_the_printers_form_falls_back() {
        for (String s : List.of("{\"a\":1 }", " 1", "1 ", "{\"b\":1,\"a\":1,\"b\":2}", "{\"a\":1,\"a\":2}",
                "{\"b\":1,\"a\":1,\"a\":2}", "{\"c\":1,\"a\":1,\"b\":1,\"a\":2}", "{\"a\":1,\"c\":1,\"b\":1,\"c\":2}",
                "{\"a\\u0062\":1}",
                "\"\\/\"", "\"\\u00e9\"", "\"\\u001F\"", "\"\\u000a\"", "\"\\u0041\"", "-0", "1e5", "1E5", "1.50",
                "100000000000000000000", "18446744073709551616", "-9223372036854775809", "01", "1.", "[1,]",
                "{\"a\":1,}", "\"\u0001\"", "tru", "nul", "", "[", "1.0e0", "0.1e1", "1e400", "0.000001", "0.10", "1e16",
                "10000000000000000.0", "00.5", "-0.50")) {
            assertThat(CompactJson.check(s.getBytes(StandardCharsets.UTF_8))).as(s).isNull();
        }
        for (String s : List.of("1.0", "-0.0", "0.1", "1e-7", "1e+16", "100.5", "-88.7", "0.00001", "10.0",
                "1000000000000000.0", "1234567890123456.0", "0.30000000000000004", "18446744073709551615", "-9223372036854775808",
                "\"\\u001f\\n\\\"\\\\é😀\u007f\"", "{\"\":[],\"a\":{}}", "[true,false,null]")) {
            assertThat(CompactJson.check(s.getBytes(StandardCharsets.UTF_8))).as(s).isSameAs(CompactJson.IN_ORDER);
        }
        byte[] deep = ("[".repeat(CompactJson.MAX_DEPTH + 1) + "]".repeat(CompactJson.MAX_DEPTH + 1))
                .getBytes(StandardCharsets.US_ASCII);
        assertThat(CompactJson.check(deep)).isNull();
    }

    @Test
    void a_field_path_reads_a_passed_through_payload() throws Exception {
        RecordCodec codec = Fixtures.codec(PayloadSchema.JSON, Fixtures.jsonLines(false, false));
        DecodedRecord record = Fixtures.decoded(codec, "{\"user\":{\"id\":42},\"a\":\"x\"}");
        assertThat(((CodecRecord) record).payload()).isInstanceOf(Payload.Printed.class);
        assertThat(record.fieldText("user.id")).contains("42");
        assertThat(record.fieldText("a")).contains("x");
    }

    @Test
    void transforms_and_other_formats_keep_the_tree() throws Exception {
        String doc = "{\"a\":1}";
        RecordCodec transformed = Fixtures.codec(PayloadSchema.JSON, Fixtures.jsonLines(false, false),
                new TransformSettings.DeleteFields(List.of("b")));
        assertThat(((CodecRecord) Fixtures.decoded(transformed, doc)).payload()).isInstanceOf(Payload.JsonDoc.class);
        RecordCodec raw = Fixtures.codec(PayloadSchema.JSON,
                Fixtures.output(OutputFormat.RAW, Compression.NONE, false, false));
        assertThat(((CodecRecord) Fixtures.decoded(raw, doc)).payload()).isInstanceOf(Payload.JsonDoc.class);
    }

    // ---- the comparison ----

    /** Pairs (pass-through, tree) over both schemas that carry JSON and both JSON formats, with and without metadata. */
    private static RecordCodec[][] codecs() {
        List<RecordCodec[]> pairs = new ArrayList<>();
        for (PayloadSchema schema : List.of(PayloadSchema.JSON, PayloadSchema.RAW)) {
            for (OutputFormat format : List.of(OutputFormat.JSON_LINES, OutputFormat.JSON_ARRAY)) {
                OutputSettings output = Fixtures.output(format, Compression.NONE, schema == PayloadSchema.JSON, false);
                pairs.add(new RecordCodec[] {
                    RecordCodecs.forStream(Fixtures.stream(schema), output, List.of(), Fixtures.FIXED_CLOCK, true),
                    RecordCodecs.forStream(Fixtures.stream(schema), output, List.of(), Fixtures.FIXED_CLOCK, false)});
            }
        }
        return pairs.toArray(new RecordCodec[0][]);
    }

    /** Null when both codecs write the same file (a record before and after the payload) or refuse alike. */
    private static String compare(RecordCodec passThrough, RecordCodec tree, byte[] payload) {
        String a = file(passThrough, payload);
        String b = file(tree, payload);
        return a.equals(b) ? null : "pass-through wrote\n" + a + "\ntree path wrote\n" + b;
    }

    private static String file(RecordCodec codec, byte[] payload) {
        FileEncoder file = codec.newFile();
        StringBuilder errors = new StringBuilder();
        for (byte[] p : List.of("{\"n\":1}".getBytes(StandardCharsets.UTF_8), payload)) {
            SinkRecord record = Fixtures.record(7, p, List.of());
            try {
                file.append(codec.decode(record));
            } catch (BadRecordException e) {
                errors.append("refused: ").append(e.getMessage()).append('\n');
            }
        }
        return errors + new String(file.finish().toByteArray(), StandardCharsets.UTF_8);
    }

    // ---- the generator ----

    /** A payload: a random tree written in a random style; now and then a broken one. */
    private static byte[] payload(Random r) {
        Object tree = r.nextInt(5) > 0 ? object(r, 2 + r.nextInt(7), true) : tree(r, 0, true);
        int style = r.nextInt(10);
        String text;
        if (style < 3) {
            ByteBuf out = new ByteBuf(64);
            JsonOut.value(out, tree, JsonOut.Keys.SORTED);
            text = utf8(out.toByteArray());
        } else if (style < 5) {
            ByteBuf out = new ByteBuf(64);
            JsonOut.value(out, tree, JsonOut.Keys.INSERTION);
            text = utf8(out.toByteArray());
        } else {
            StringBuilder b = new StringBuilder();
            write(b, tree, r, new Style(r));
            text = b.toString();
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (r.nextInt(12) == 0 && bytes.length > 0) {
            // Broken: cut short, or one byte changed (maybe into invalid UTF-8).
            if (r.nextBoolean()) return Arrays.copyOf(bytes, r.nextInt(bytes.length));
            bytes[r.nextInt(bytes.length)] = (byte) r.nextInt(256);
        }
        return bytes;
    }

    private static Object tree(Random r, int depth, boolean escapedKeys) {
        int kind = r.nextInt(depth >= 4 ? 6 : 9);
        switch (kind) {
            case 0: return r.nextBoolean();
            case 1: return Json.NULL;
            case 2: return text(r, r.nextInt(6));
            case 3: return integer(r);
            case 4: return real(r);
            case 5: return text(r, r.nextInt(3));
            case 6: {
                List<Object> list = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) list.add(tree(r, depth + 1, escapedKeys));
                return list;
            }
            default: {
                Map<String, Object> map = new LinkedHashMap<>();
                for (int i = r.nextInt(6); i > 0; i--) map.put(key(r, escapedKeys), tree(r, depth + 1, escapedKeys));
                return map;
            }
        }
    }

    /** A top-level object: most payloads are one. */
    private static Map<String, Object> object(Random r, int keys, boolean escapedKeys) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keys; i++) map.put(key(r, escapedKeys), tree(r, 1, escapedKeys));
        return map;
    }

    private static String key(Random r, boolean escapedKeys) {
        StringBuilder b = new StringBuilder();
        for (int i = r.nextInt(3); i >= 0; i--) b.append(KEY_CHARS[r.nextInt(KEY_CHARS.length)]);
        if (escapedKeys && r.nextInt(20) == 0) b.append(TEXT_CHARS[r.nextInt(TEXT_CHARS.length)]); // maybe a key with an escape
        return b.toString();
    }

    private static String text(Random r, int parts) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < parts; i++) b.append(TEXT_CHARS[r.nextInt(TEXT_CHARS.length)]);
        return b.toString();
    }

    private static Object integer(Random r) {
        switch (r.nextInt(5)) {
            case 0: return (long) r.nextInt(100) - 50;
            case 1: return r.nextLong();
            case 2: return r.nextBoolean() ? Long.MAX_VALUE - r.nextInt(3) : Long.MIN_VALUE + r.nextInt(3);
            case 3: return BigInteger.ONE.shiftLeft(64).subtract(BigInteger.valueOf(1 + r.nextInt(3)));
            default: return (long) r.nextInt(1_000_000_000) * 1_000_000_000L; // 18-19 digits
        }
    }

    private static Object real(Random r) {
        switch (r.nextInt(5)) {
            case 0: return r.nextInt(2000) / 10.0 - 100;
            case 1: return r.nextDouble() * Math.pow(10, r.nextInt(40) - 20);
            case 2: return (double) r.nextInt(10);
            case 3: return Double.longBitsToDouble(r.nextLong() & 0x7FEF_FFFF_FFFF_FFFFL);
            default: return r.nextBoolean() ? -0.0 : 1e16 * (1 + r.nextInt(9));
        }
    }

    /** How a non-canonical text is written: each choice sometimes, so most texts differ in one or two ways. */
    private static final class Style {
        final boolean shuffle;
        final int space;
        final int escape;
        final int number;

        Style(Random r) {
            shuffle = r.nextBoolean();
            space = r.nextInt(4) == 0 ? 8 : 0;
            escape = r.nextInt(3) == 0 ? 6 : 0;
            number = r.nextInt(3) == 0 ? 4 : 0;
        }
    }

    @SuppressWarnings("unchecked")
    private static void write(StringBuilder b, Object v, Random r, Style s) {
        space(b, r, s);
        if (v instanceof Map<?, ?> m) {
            List<Map.Entry<String, Object>> entries = new ArrayList<>(((Map<String, Object>) m).entrySet());
            if (s.shuffle) Collections.shuffle(entries, r);
            else entries.sort((x, y) -> JsonOut.compareCodePoints(x.getKey(), y.getKey()));
            b.append('{');
            for (int i = 0; i < entries.size(); i++) {
                if (i > 0) b.append(',');
                space(b, r, s);
                string(b, entries.get(i).getKey(), r, s);
                space(b, r, s);
                b.append(':');
                write(b, entries.get(i).getValue(), r, s);
            }
            if (entries.size() > 0 && r.nextInt(30) == 0) {
                b.append(',');
                string(b, entries.get(0).getKey(), r, s); // a repeated key
                b.append(":0");
            }
            space(b, r, s);
            b.append('}');
        } else if (v instanceof List<?> list) {
            b.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) b.append(',');
                write(b, list.get(i), r, s);
            }
            space(b, r, s);
            b.append(']');
        } else if (v instanceof String str) {
            string(b, str, r, s);
        } else if (v instanceof Double d) {
            b.append(r.nextInt(10) < s.number ? numberVariant(d, r) : DoubleFormat.ryu(d));
        } else if (v instanceof Long || v instanceof BigInteger) {
            String t = v.toString();
            if (r.nextInt(10) < s.number) t = r.nextBoolean() ? t + ".0" : t + "e0";
            if (t.equals("0") && r.nextInt(4) == 0) t = "-0";
            b.append(t);
        } else {
            b.append(v == Json.NULL ? "null" : v.toString());
        }
        space(b, r, s);
    }

    private static String numberVariant(double d, Random r) {
        switch (r.nextInt(4)) {
            case 0: return Double.toString(d); // Java's form: 1.0E16, 1.0E-5, 17 digits
            case 1: return String.format(java.util.Locale.ROOT, "%e", d);
            case 2: return DoubleFormat.ryu(d) + "0";
            default: return new java.math.BigDecimal(d).toPlainString();
        }
    }

    private static void space(StringBuilder b, Random r, Style s) {
        if (r.nextInt(10) < s.space / 4) b.append(" \n\t\r".charAt(r.nextInt(4)));
    }

    /** A JSON string, each char written as the printer would or, sometimes, in another valid form. */
    private static void string(StringBuilder b, String str, Random r, Style s) {
        b.append('"');
        for (int i = 0; i < str.length(); i++) {
            char c = str.charAt(i);
            boolean other = r.nextInt(10) < s.escape / 3;
            if (other) {
                b.append(String.format(r.nextBoolean() ? "\\u%04x" : "\\u%04X", (int) c));
            } else if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c == '/' && r.nextInt(10) < s.escape) {
                b.append("\\/");
            } else if (c < 0x20) {
                switch (c) {
                    case '\b' -> b.append("\\b");
                    case '\f' -> b.append("\\f");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> b.append(String.format("\\u%04x", (int) c));
                }
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
