package dev.iggysink.adapters.format.json;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON parser into a plain tree: {@code Map<String,Object>} (insertion order, a repeated key keeps its first
 * position and its last value, as simd_json's map and serde_json's both do), {@code List<Object>}, {@code String},
 * {@code Boolean}, {@link #NULL}, and numbers as {@code Long} (i64), {@code BigInteger} (u64 above i64) or
 * {@code Double}. Thread-safe (stateless).
 */
public final class Json {

    /** JSON {@code null} in a tree: a Java null would not tell a null field from a missing one. */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    /** The Rust parser whose acceptance and number forms are copied. */
    public enum Dialect {
        /**
         * simd_json, for {@code schema = json}: integers beyond i64/u64 are errors (no big-int-as-float feature),
         * {@code -0} is the integer 0. No recursion limit upstream; 1024 levels here so printing cannot overflow the
         * Java stack.
         */
        SIMD(1024, false),
        /**
         * serde_json, for raw payloads: integers beyond i64/u64 become floats, {@code -0} is {@code -0.0}, and
         * nesting stops at 127 levels (serde_json's recursion limit of 128).
         */
        SERDE(127, true);

        final int maxDepth;
        final boolean bigIntegersAsFloat;

        Dialect(int maxDepth, boolean bigIntegersAsFloat) {
            this.maxDepth = maxDepth;
            this.bigIntegersAsFloat = bigIntegersAsFloat;
        }
    }

    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    /** How many bytes an error message shows of the input. */
    private static final int SNIPPET = 20;

    private final byte[] in;
    private final Dialect dialect;
    private int pos;
    private int depth;
    /** The slow path's chars (escapes); made on first use, most documents never need it. */
    private StringBuilder chars;

    private Json(byte[] in, Dialect dialect) {
        this.in = in;
        this.dialect = dialect;
    }

    public static Object parse(byte[] bytes, Dialect dialect) throws JsonException {
        Json p = new Json(bytes, dialect);
        p.skipWhitespace();
        Object value = p.value();
        p.skipWhitespace();
        if (p.pos != bytes.length) throw p.error("trailing characters");
        return value;
    }

    private Object value() throws JsonException {
        if (pos >= in.length) throw error("EOF while parsing a value");
        byte c = in[pos];
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                pos++;
                return string();
            case 't':
                literal("true");
                return Boolean.TRUE;
            case 'f':
                literal("false");
                return Boolean.FALSE;
            case 'n':
                literal("null");
                return NULL;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return number();
                throw notAValue();
        }
    }

    private Map<String, Object> object() throws JsonException {
        enter();
        pos++;
        Map<String, Object> map = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            depth--;
            return map;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') throw error("key must be a string");
            pos++;
            String key = string();
            skipWhitespace();
            if (peek() != ':') throw error("expected ':'");
            pos++;
            skipWhitespace();
            map.put(key, value());
            skipWhitespace();
            int c = peek();
            pos++;
            if (c == ',') continue;
            if (c == '}') break;
            throw error("expected ',' or '}'");
        }
        depth--;
        return map;
    }

    private List<Object> array() throws JsonException {
        enter();
        pos++;
        List<Object> list = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            depth--;
            return list;
        }
        while (true) {
            skipWhitespace();
            list.add(value());
            skipWhitespace();
            int c = peek();
            pos++;
            if (c == ',') continue;
            if (c == ']') break;
            throw error("expected ',' or ']'");
        }
        depth--;
        return list;
    }

    private void enter() throws JsonException {
        if (++depth > dialect.maxDepth) throw error("recursion limit exceeded");
    }

    /**
     * The string whose opening quote was just passed. Fast path: scan to the closing quote; with no escape, no
     * control character and only well-formed UTF-8 the String is made straight from the bytes. Otherwise the clean
     * prefix is kept and {@link #slowString} goes on from the first other byte, so escapes, errors and error positions
     * are those of the char-by-char parser.
     */
    private String string() throws JsonException {
        final byte[] in = this.in;
        int start = pos;
        int i = start;
        boolean ascii = true;
        while (true) {
            // Word by word over plain ASCII, to the first byte that is not: a quote, a backslash, a control or
            // non-ASCII.
            i = PlainAscii.skip(in, i);
            if (i >= in.length) break;
            int b = in[i];
            if (b == '"') {
                pos = i + 1;
                return new String(in, start, i - start, ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
            }
            if (b >= 0) break; // a backslash or a control
            int n = utf8Length(in, i);
            if (n == 0) break;
            ascii = false;
            i += n;
        }
        // Keep the clean prefix (it decodes as it would char by char) and go on slowly from the first hard byte.
        StringBuilder chars = slowChars();
        if (i > start) chars.append(new String(in, start, i - start,
                ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8));
        pos = i;
        return slowString(chars);
    }

    private StringBuilder slowChars() {
        if (chars == null) chars = new StringBuilder(64);
        chars.setLength(0);
        return chars;
    }

    /**
     * The length of the well-formed UTF-8 sequence at {@code i} (2 to 4), or 0 when it is not one, by the rules of
     * {@link #utf8}.
     */
    static int utf8Length(byte[] in, int i) {
        int b0 = in[i] & 0xFF;
        int need;
        int cp;
        int min;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            need = 1;
            cp = b0 & 0x1F;
            min = 0x80;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            need = 2;
            cp = b0 & 0x0F;
            min = 0x800;
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            need = 3;
            cp = b0 & 0x07;
            min = 0x10000;
        } else {
            return 0;
        }
        if (i + need >= in.length) return 0;
        for (int k = 1; k <= need; k++) {
            int b = in[i + k] & 0xFF;
            if ((b & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (b & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        return need + 1;
    }

    /** Char by char from {@code pos}, after what {@code chars} already holds, to the closing quote. */
    private String slowString(StringBuilder chars) throws JsonException {
        while (true) {
            if (pos >= in.length) throw error("EOF while parsing a string");
            int b = in[pos] & 0xFF;
            if (b == '"') {
                pos++;
                return chars.toString();
            }
            if (b == '\\') {
                pos++;
                escape();
            } else if (b < 0x20) {
                throw error("control character in string");
            } else if (b < 0x80) {
                chars.append((char) b);
                pos++;
            } else {
                utf8();
            }
        }
    }

    /** One strict UTF-8 sequence by the rules of {@link #utf8Length}. */
    private void utf8() throws JsonException {
        int len = utf8Length(in, pos);
        if (len == 0) throw error("invalid UTF-8");
        int cp = in[pos] & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
        for (int k = 1; k < len; k++) cp = (cp << 6) | (in[pos + k] & 0x3F);
        chars.appendCodePoint(cp);
        pos += len;
    }

    private void escape() throws JsonException {
        if (pos >= in.length) throw error("EOF while parsing a string");
        byte e = in[pos++];
        switch (e) {
            case '"': chars.append('"'); break;
            case '\\': chars.append('\\'); break;
            case '/': chars.append('/'); break;
            case 'b': chars.append('\b'); break;
            case 'f': chars.append('\f'); break;
            case 'n': chars.append('\n'); break;
            case 'r': chars.append('\r'); break;
            case 't': chars.append('\t'); break;
            case 'u': {
                int cu = hex4();
                if (cu >= 0xD800 && cu <= 0xDBFF) {
                    // Both Rust parsers refuse a lone surrogate: a String cannot hold one.
                    if (pos + 1 < in.length && in[pos] == '\\' && in[pos + 1] == 'u') {
                        pos += 2;
                        int low = hex4();
                        if (low < 0xDC00 || low > 0xDFFF) throw error("lone leading surrogate in hex escape");
                        chars.append((char) cu).append((char) low);
                    } else {
                        throw error("lone leading surrogate in hex escape");
                    }
                } else if (cu >= 0xDC00 && cu <= 0xDFFF) {
                    throw error("lone trailing surrogate in hex escape");
                } else {
                    chars.append((char) cu);
                }
                break;
            }
            default:
                throw error("invalid escape");
        }
    }

    private int hex4() throws JsonException {
        if (pos + 4 > in.length) throw error("EOF while parsing a string");
        int v = 0;
        for (int i = 0; i < 4; i++) {
            int d = Character.digit(in[pos + i], 16);
            if (d < 0) throw error("invalid escape");
            v = (v << 4) | d;
        }
        pos += 4;
        return v;
    }

    private Object number() throws JsonException {
        int start = pos;
        boolean negative = false;
        if (in[pos] == '-') {
            negative = true;
            pos++;
        }
        if (pos >= in.length) throw error("invalid number");
        if (in[pos] == '0') {
            pos++;
            if (pos < in.length && isDigit(in[pos])) throw error("invalid number");
        } else if (isDigit(in[pos])) {
            while (pos < in.length && isDigit(in[pos])) pos++;
        } else {
            throw error("invalid number");
        }
        int intEnd = pos;
        boolean isFloat = false;
        if (pos < in.length && in[pos] == '.') {
            isFloat = true;
            pos++;
            if (pos >= in.length || !isDigit(in[pos])) throw error("invalid number");
            while (pos < in.length && isDigit(in[pos])) pos++;
        }
        if (pos < in.length && (in[pos] == 'e' || in[pos] == 'E')) {
            isFloat = true;
            pos++;
            if (pos < in.length && (in[pos] == '+' || in[pos] == '-')) pos++;
            if (pos >= in.length || !isDigit(in[pos])) throw error("invalid number");
            while (pos < in.length && isDigit(in[pos])) pos++;
        }
        int digits = intEnd - start - (negative ? 1 : 0);
        if (!isFloat && digits <= 18) {
            // At most 18 digits always fit a long: no String, no overflow check.
            long v = 0;
            for (int i = intEnd - digits; i < intEnd; i++) v = v * 10 + (in[i] - '0');
            if (negative && v == 0 && dialect == Dialect.SERDE) return -0.0d;
            return negative ? -v : v;
        }
        String text = new String(in, start, pos - start, StandardCharsets.US_ASCII);
        if (isFloat) return finite(Double.parseDouble(text), start);
        BigInteger big = new BigInteger(text);
        if (big.bitLength() <= 63) return big.longValueExact();
        if (!negative && big.compareTo(U64_MAX) <= 0) return big;
        if (!dialect.bigIntegersAsFloat) throw new JsonException("number out of i64/u64 range", start);
        return finite(Double.parseDouble(text), start);
    }

    private Double finite(double d, int start) throws JsonException {
        if (Double.isInfinite(d)) throw new JsonException("number out of range", start);
        return d;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    private void literal(String word) throws JsonException {
        int n = word.length();
        if (pos + n > in.length) throw error("EOF while parsing a value");
        for (int i = 0; i < n; i++) {
            if (in[pos + i] != word.charAt(i)) throw notAValue();
        }
        pos += n;
    }

    private int peek() throws JsonException {
        if (pos >= in.length) throw error("EOF while parsing");
        return in[pos];
    }

    private void skipWhitespace() {
        while (pos < in.length) {
            byte b = in[pos];
            if (b == ' ' || b == '\n' || b == '\r' || b == '\t') pos++;
            else return;
        }
    }

    private JsonException error(String message) {
        return new JsonException(message, pos);
    }

    /** Shows what stands where a value should start ("this is text"), not what one branch hoped for ("true"). */
    private JsonException notAValue() {
        int end = Math.min(in.length, pos + SNIPPET);
        StringBuilder shown = new StringBuilder("found \"");
        String text = new String(in, pos, end - pos, StandardCharsets.UTF_8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f) shown.append(String.format("\\u%04x", (int) c));
            else shown.append(c);
        }
        if (end < in.length) shown.append("...");
        return error(shown.append("\" where a value should start").toString());
    }

    /** A deep copy of a tree, so a shared value (a transform's static value) is never changed through a record. */
    @SuppressWarnings("unchecked")
    public static Object copy(Object v) {
        if (v instanceof Map) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<String, Object>) v).forEach((k, x) -> out.put(k, copy(x)));
            return out;
        }
        if (v instanceof List) {
            List<Object> out = new ArrayList<>();
            for (Object x : (List<Object>) v) out.add(copy(x));
            return out;
        }
        return v;
    }

    /**
     * simd_json's value equality (filter_fields {@code equals}): objects ignore key order; i64 and u64 compare by
     * value; a float never equals an integer.
     */
    @SuppressWarnings("unchecked")
    public static boolean same(Object a, Object b) {
        if (a instanceof Double || b instanceof Double) {
            return a instanceof Double x && b instanceof Double y && x.doubleValue() == y.doubleValue();
        }
        if (isInteger(a) || isInteger(b)) {
            return isInteger(a) && isInteger(b) && toBig(a).equals(toBig(b));
        }
        if (a instanceof Map && b instanceof Map) {
            Map<String, Object> x = (Map<String, Object>) a;
            Map<String, Object> y = (Map<String, Object>) b;
            if (x.size() != y.size()) return false;
            for (Map.Entry<String, Object> e : x.entrySet()) {
                if (!y.containsKey(e.getKey()) || !same(e.getValue(), y.get(e.getKey()))) return false;
            }
            return true;
        }
        if (a instanceof List && b instanceof List) {
            List<Object> x = (List<Object>) a;
            List<Object> y = (List<Object>) b;
            if (x.size() != y.size()) return false;
            for (int i = 0; i < x.size(); i++) if (!same(x.get(i), y.get(i))) return false;
            return true;
        }
        return a.equals(b);
    }

    static boolean isInteger(Object v) {
        return v instanceof Long || v instanceof BigInteger;
    }

    public static boolean isNumber(Object v) {
        return isInteger(v) || v instanceof Double;
    }

    private static BigInteger toBig(Object v) {
        return v instanceof Long l ? BigInteger.valueOf(l) : (BigInteger) v;
    }
}
