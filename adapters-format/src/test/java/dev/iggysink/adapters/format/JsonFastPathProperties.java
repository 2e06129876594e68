package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The fast paths of the JSON hot path (string scan, string print, integer parse, double print) against reference
 * implementations: the exact BigDecimal search for doubles, the char-by-char printer this replaced, Java's strict
 * UTF-8 decoder.
 */
class JsonFastPathProperties {

    // ---- DoubleFormat: fast path vs exact search ----

    @Property(tries = 3000)
    void fast_double_text_is_the_exact_search_text(@ForAll("doubles") double d) {
        String fast = DoubleFormat.ryuFast(d);
        if (fast != null) assertThat(fast).as("%s", d).isEqualTo(DoubleFormat.ryuExact(d));
        assertThat(DoubleFormat.ryu(d)).isEqualTo(DoubleFormat.ryuExact(d));
    }

    @Provide
    Arbitrary<Double> doubles() {
        return Arbitraries.oneOf(
                // any bit pattern: mostly 16-17 digits, subnormals, extremes
                Arbitraries.longs().map(Double::longBitsToDouble).filter(d -> Double.isFinite(d) && d != 0),
                // short decimals at every scale: the fast path's domain and its edges
                Arbitraries.longs().between(-999_999_999_999_999L, 999_999_999_999_999L).filter(l -> l != 0)
                        .flatMap(m -> Arbitraries.integers().between(-330, 310)
                                .map(e -> Double.parseDouble(m + "e" + e)))
                        .filter(d -> Double.isFinite(d) && d != 0),
                Arbitraries.integers().between(-1000, 1000).map(i -> i / 10.0).filter(d -> d != 0),
                Arbitraries.doubles().filter(d -> Double.isFinite(d) && d != 0));
    }

    @Test
    void the_fast_path_leaves_long_and_extreme_doubles_to_the_exact_search() {
        assertThat(DoubleFormat.ryuFast(0.1 + 0.2)).isNull(); // 0.30000000000000004: 17 digits
        assertThat(DoubleFormat.ryuFast(5e-324)).isNull();
        assertThat(DoubleFormat.ryuFast(1.7976931348623157e308)).isNull();
        assertThat(DoubleFormat.ryuFast(2e-3)).isEqualTo("0.002");
        assertThat(DoubleFormat.ryuFast(-1e16)).isEqualTo("-1e16");
    }

    // ---- JsonOut.string: bulk path vs the char-by-char printer ----

    @Property(tries = 2000)
    void printed_strings_are_the_char_by_char_printers_bytes(@ForAll("texts") String s, @ForAll("prefill") int fill) {
        ByteBuf out = new ByteBuf(16);
        for (int i = 0; i < fill; i++) out.write('x'); // land near the capacity boundary
        JsonOut.string(out, s);
        byte[] all = out.toByteArray();
        assertThat(Arrays.copyOfRange(all, fill, all.length)).isEqualTo(referenceString(s));
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ascii().ofMaxLength(200),
                Arbitraries.strings().all().ofMaxLength(60),
                Arbitraries.strings().withChars("a\"\\\b\f\n\r\t\u0000\u001f\u007f\u00e9\u07ff\u0800\uffff\ud83d\ude00")
                        .ofMaxLength(40),
                Arbitraries.strings().alpha().ofMinLength(100).ofMaxLength(3000));
    }

    @Provide
    Arbitrary<Integer> prefill() {
        return Arbitraries.integers().between(0, 40);
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

    @Property(tries = 2000)
    void unescaped_string_bytes_parse_as_strict_utf8_or_fail(@ForAll @Size(max = 40) byte[] raw) {
        byte[] body = raw.clone();
        for (int i = 0; i < body.length; i++) {
            // no quote, backslash or control: what is left is the UTF-8 question
            if (body[i] == '"' || body[i] == '\\' || (body[i] >= 0 && body[i] < 0x20)) body[i] = 'a';
        }
        byte[] doc = quoted(body);
        String strict = strictUtf8(body);
        if (strict == null) {
            assertThatThrownBy(() -> Json.parse(doc, Json.Dialect.SIMD)).isInstanceOf(JsonException.class);
        } else {
            assertThat(parse(doc)).isEqualTo(strict);
        }
    }

    @Property(tries = 1000)
    void printed_strings_parse_back(@ForAll("texts") String s) {
        ByteBuf out = new ByteBuf(16);
        JsonOut.string(out, s);
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                expected.append(c).append(s.charAt(++i));
            } else {
                expected.append(Character.isSurrogate(c) ? '\uFFFD' : c);
            }
        }
        assertThat(parse(out.toByteArray())).isEqualTo(expected.toString());
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

    @Property(tries = 1000)
    void integers_parse_to_their_value(@ForAll long v) throws JsonException {
        assertThat(Json.parse(utf8(Long.toString(v)), Json.Dialect.SIMD)).isEqualTo(v);
        assertThat(Json.parse(utf8("[" + v + "]"), Json.Dialect.SERDE)).isEqualTo(java.util.List.of(v));
    }

    @Test
    void minus_zero_keeps_its_dialect_meaning() throws JsonException {
        assertThat(Json.parse(utf8("-0"), Json.Dialect.SIMD)).isEqualTo(0L);
        assertThat(Json.parse(utf8("-0"), Json.Dialect.SERDE)).isEqualTo(-0.0d);
        assertThat(Json.parse(utf8("-999999999999999999"), Json.Dialect.SIMD)).isEqualTo(-999_999_999_999_999_999L);
    }

    @Property(tries = 500)
    void buffer_longs_are_long_to_string(@ForAll long v) {
        ByteBuf out = new ByteBuf(16);
        out.writeLong(v);
        assertThat(new String(out.toByteArray(), StandardCharsets.US_ASCII)).isEqualTo(Long.toString(v));
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
