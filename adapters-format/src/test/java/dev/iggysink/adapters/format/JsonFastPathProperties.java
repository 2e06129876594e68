package dev.iggysink.adapters.format;

import dev.iggysink.domain.Seeded;
import static dev.iggysink.domain.Seeded.longBetween;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.adapters.format.json.DoubleFormat;
import dev.iggysink.adapters.format.json.Json;
import dev.iggysink.adapters.format.json.JsonException;
import dev.iggysink.adapters.format.json.JsonOut;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The fast paths of the JSON hot path (string scan, string print, integer parse, double print) against reference
 * implementations: the exact BigDecimal search for doubles, the char-by-char printer this replaced, Java's strict
 * UTF-8 decoder.
 */
class JsonFastPathProperties {

    // ---- DoubleFormat: fast path vs exact search ----

    @Test
    void fast_double_text_is_the_exact_search_text() {
        Seeded.check(3000, r -> {
            double d = nonZeroDouble(r);
            String fast = DoubleFormat.ryuFast(d);
            if (fast != null) assertThat(fast).as("%s", d).isEqualTo(DoubleFormat.ryuExact(d));
            assertThat(DoubleFormat.ryu(d)).as("%s", d).isEqualTo(DoubleFormat.ryuExact(d));
        });
    }

    private static double nonZeroDouble(Random r) {
        double d;
        do {
            d = switch (r.nextInt(4)) {
                // any bit pattern: mostly 16-17 digits, subnormals, extremes
                case 0 -> Double.longBitsToDouble(r.nextLong());
                // short decimals at every scale: the fast path's domain and its edges
                case 1 -> Double.parseDouble(longBetween(r, -999_999_999_999_999L, 999_999_999_999_999L) + "e"
                        + (r.nextInt(641) - 330));
                case 2 -> (r.nextInt(2001) - 1000) / 10.0;
                default -> (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20);
            };
        } while (!Double.isFinite(d) || d == 0);
        return d;
    }

    @Test
    void the_fast_path_leaves_long_and_extreme_doubles_to_the_exact_search() {
        assertThat(DoubleFormat.ryuFast(0.1 + 0.2)).isNull(); // 0.30000000000000004: 17 digits
        assertThat(DoubleFormat.ryuFast(5e-324)).isNull();
        assertThat(DoubleFormat.ryuFast(1.7976931348623157e308)).isNull();
        assertThat(DoubleFormat.ryuFast(2e-3)).isEqualTo("0.002");
        assertThat(DoubleFormat.ryuFast(-1e16)).isEqualTo("-1e+16");
    }

    // ---- JsonOut.string: bulk path vs the char-by-char printer ----

    @Test
    void printed_strings_are_the_char_by_char_printers_bytes() {
        Seeded.check(2000, r -> {
            String s = text(r);
            int fill = r.nextInt(41);
            ByteBuf out = new ByteBuf(16);
            for (int i = 0; i < fill; i++) out.write('x'); // land near the capacity boundary
            JsonOut.string(out, s);
            byte[] all = out.toByteArray();
            assertThat(Arrays.copyOfRange(all, fill, all.length)).as("%s", s).isEqualTo(referenceString(s));
        });
    }

    /** Short ASCII, any text, the characters that need escaping or several bytes, long plain runs. */
    private static String text(Random r) {
        switch (r.nextInt(4)) {
            case 0: {
                char[] c = new char[r.nextInt(201)];
                for (int i = 0; i < c.length; i++) c[i] = (char) r.nextInt(0x80);
                return new String(c);
            }
            case 1: return Generators.text(r, 60);
            case 2: {
                String pool = "a\"\\\b\f\n\r\t\u0000\u001f\u007f\u00e9\u07ff\u0800\uffff\ud83d\ude00";
                char[] c = new char[r.nextInt(41)];
                for (int i = 0; i < c.length; i++) c[i] = pool.charAt(r.nextInt(pool.length()));
                return new String(c);
            }
            default: {
                char[] c = new char[100 + r.nextInt(2901)];
                for (int i = 0; i < c.length; i++) c[i] = (char) ((r.nextBoolean() ? 'a' : 'A') + r.nextInt(26));
                return new String(c);
            }
        }
    }

    /** The printer before the fast path, byte for byte (serde_json's escaping). */
    private static byte[] referenceString(String s) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        String hex = "0123456789abcdef";
        out.write('"');
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                switch (c) {
                    case '"' -> { out.write('\\'); out.write('"'); }
                    case '\\' -> { out.write('\\'); out.write('\\'); }
                    case '\b' -> { out.write('\\'); out.write('b'); }
                    case '\f' -> { out.write('\\'); out.write('f'); }
                    case '\n' -> { out.write('\\'); out.write('n'); }
                    case '\r' -> { out.write('\\'); out.write('r'); }
                    case '\t' -> { out.write('\\'); out.write('t'); }
                    default -> {
                        if (c < 0x20) {
                            out.writeBytes("\\u00".getBytes(StandardCharsets.US_ASCII));
                            out.write(hex.charAt(c >> 4));
                            out.write(hex.charAt(c & 0xF));
                        } else {
                            out.write(c);
                        }
                    }
                }
            } else if (c < 0x800) {
                out.write(0xC0 | (c >> 6));
                out.write(0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                out.write(0xF0 | (cp >> 18));
                out.write(0x80 | ((cp >> 12) & 0x3F));
                out.write(0x80 | ((cp >> 6) & 0x3F));
                out.write(0x80 | (cp & 0x3F));
            } else {
                char w = Character.isSurrogate(c) ? '\uFFFD' : c;
                out.write(0xE0 | (w >> 12));
                out.write(0x80 | ((w >> 6) & 0x3F));
                out.write(0x80 | (w & 0x3F));
            }
        }
        out.write('"');
        return out.toByteArray();
    }

    // ---- Json.string: byte scan vs strict UTF-8 ----

    @Test
    void unescaped_string_bytes_parse_as_strict_utf8_or_fail() {
        Seeded.check(2000, r -> {
            byte[] body = utf8ish(r);
            for (int i = 0; i < body.length; i++) {
                // no quote, backslash or control: what is left is the UTF-8 question
                if (body[i] == '"' || body[i] == '\\' || (body[i] >= 0 && body[i] < 0x20)) body[i] = 'a';
            }
            byte[] doc = quoted(body);
            String strict = strictUtf8(body);
            if (strict == null) {
                assertThatThrownBy(() -> Json.parse(doc, Json.Dialect.SIMD)).as(Arrays.toString(body))
                        .isInstanceOf(JsonException.class);
            } else {
                assertThat(parse(doc)).as(Arrays.toString(body)).isEqualTo(strict);
            }
        });
    }

    /**
     * Up to 40 bytes: random ones (mostly invalid UTF-8), or valid text with one byte changed now and then, so the
     * scan meets well-formed two-, three- and four-byte sequences and near misses of them, not only noise.
     */
    private static byte[] utf8ish(Random r) {
        if (r.nextBoolean()) return Generators.bytes(r, 40);
        byte[] b = Generators.validText(r, 10).getBytes(StandardCharsets.UTF_8);
        if (b.length > 40) b = Arrays.copyOf(b, 40);
        if (b.length > 0 && r.nextBoolean()) b[r.nextInt(b.length)] = (byte) r.nextInt(256);
        return b;
    }

    @Test
    void printed_strings_parse_back() {
        Seeded.check(1000, r -> {
            String s = text(r);
            ByteBuf out = new ByteBuf(16);
            JsonOut.string(out, s);
            StringBuilder expected = new StringBuilder();
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (Character.isHighSurrogate(c) && i + 1 < s.length()
                        && Character.isLowSurrogate(s.charAt(i + 1))) {
                    expected.append(c).append(s.charAt(++i));
                } else {
                    expected.append(Character.isSurrogate(c) ? '\uFFFD' : c);
                }
            }
            assertThat(parse(out.toByteArray())).as("%s", s).isEqualTo(expected.toString());
        });
    }

    @Test
    void escapes_after_a_clean_prefix_and_errors_keep_their_positions() {
        assertThat(parse(utf8("\"caf\u00e9 \\\"x\\\" \\u00e9\\ud83d\\ude00 tail\""))).isEqualTo("caf\u00e9 \"x\" \u00e9\ud83d\ude00 tail");
        assertThat(parse(utf8("\"plain\""))).isEqualTo("plain");
        assertThat(parse(utf8("\"\""))).isEqualTo("");
        assertThat(position(utf8("\"abc\u0001\""))).isEqualTo(4);
        assertThat(position(new byte[] {'"', 'a', 'b', (byte) 0xC0, (byte) 0x80, '"'})).isEqualTo(3);
        assertThat(position(new byte[] {'"', 'a', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'})).isEqualTo(2);
        assertThat(position(utf8("\"abc"))).isEqualTo(4);
        assertThat(position(utf8("\"ab\\q\""))).isEqualTo(5);
    }

    // ---- Json.number: integers without a String ----

    @Test
    void integers_parse_to_their_value() {
        Seeded.check(1000, r -> {
            long v = anyLong(r);
            try {
                assertThat(Json.parse(utf8(Long.toString(v)), Json.Dialect.SIMD)).isEqualTo(v);
                assertThat(Json.parse(utf8("[" + v + "]"), Json.Dialect.SERDE)).isEqualTo(java.util.List.of(v));
            } catch (JsonException e) {
                throw new AssertionError(String.valueOf(v), e);
            }
        });
    }

    /** Any long, with every length of decimal digits equally likely and the bounds now and then. */
    private static long anyLong(Random r) {
        long v = longBetween(r, Long.MIN_VALUE, Long.MAX_VALUE);
        int digits = 1 + r.nextInt(19);
        return r.nextBoolean() ? v : v % (long) Math.pow(10, digits);
    }

    @Test
    void minus_zero_keeps_its_dialect_meaning() throws JsonException {
        assertThat(Json.parse(utf8("-0"), Json.Dialect.SIMD)).isEqualTo(0L);
        assertThat(Json.parse(utf8("-0"), Json.Dialect.SERDE)).isEqualTo(-0.0d);
        assertThat(Json.parse(utf8("-999999999999999999"), Json.Dialect.SIMD)).isEqualTo(-999_999_999_999_999_999L);
    }

    @Test
    void buffer_longs_are_long_to_string() {
        Seeded.check(500, r -> {
            long v = anyLong(r);
            ByteBuf out = new ByteBuf(16);
            out.writeLong(v);
            assertThat(new String(out.toByteArray(), StandardCharsets.US_ASCII)).isEqualTo(Long.toString(v));
        });
    }

    private static String parse(byte[] doc) {
        try {
            return (String) Json.parse(doc, Json.Dialect.SIMD);
        } catch (JsonException e) {
            throw new AssertionError(new String(doc, StandardCharsets.ISO_8859_1), e);
        }
    }

    private static int position(byte[] doc) {
        try {
            Json.parse(doc, Json.Dialect.SIMD);
        } catch (JsonException e) {
            return e.position();
        }
        throw new AssertionError("parsed");
    }

    private static byte[] quoted(byte[] body) {
        byte[] doc = new byte[body.length + 2];
        doc[0] = '"';
        System.arraycopy(body, 0, doc, 1, body.length);
        doc[doc.length - 1] = '"';
        return doc;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String strictUtf8(byte[] b) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
