package dev.iggysink.adapters.format;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Prints a {@link Json} tree compactly, as serde_json's {@code to_vec} does: no spaces; strings escape {@code "},
 * {@code \}, {@code \b \f \n \r \t} and other controls as lowercase {@code \\u00xx} escapes; non-ASCII is written as UTF-8;
 * floats per {@link DoubleFormat#ryu}. {@link Keys#SORTED} is serde_json's {@code Map} (a BTreeMap: keys by code
 * point); {@link Keys#INSERTION} is simd_json's own printer (raw output of a JSON payload).
 */
final class JsonOut {
    private JsonOut() {
    }

    enum Keys { SORTED, INSERTION }

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @SuppressWarnings("unchecked")
    static void value(ByteBuf out, Object v, Keys keys) {
        if (v instanceof String s) {
            string(out, s);
        } else if (v instanceof Map<?, ?> m) {
            object(out, (Map<String, Object>) m, keys);
        } else if (v instanceof List<?> list) {
            out.write('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) out.write(',');
                value(out, list.get(i), keys);
            }
            out.write(']');
        } else if (v instanceof Long || v instanceof BigInteger) {
            out.writeAscii(v.toString());
        } else if (v instanceof Double d) {
            // serde_json::Number cannot hold NaN/inf (from_f64 gives None → null upstream).
            out.writeAscii(Double.isFinite(d) ? DoubleFormat.ryu(d) : "null");
        } else if (v instanceof Boolean b) {
            out.writeAscii(b ? "true" : "false");
        } else if (v == Json.NULL) {
            out.writeAscii("null");
        } else {
            throw new IllegalArgumentException("not a JSON tree value: " + (v == null ? "null" : v.getClass()));
        }
    }

    private static void object(ByteBuf out, Map<String, Object> map, Keys keys) {
        out.write('{');
        boolean first = true;
        if (keys == Keys.SORTED && map.size() > 1) {
            List<String> names = new ArrayList<>(map.keySet());
            names.sort(JsonOut::compareCodePoints);
            for (String k : names) {
                if (!first) out.write(',');
                first = false;
                string(out, k);
                out.write(':');
                value(out, map.get(k), keys);
            }
        } else {
            for (Map.Entry<String, Object> e : map.entrySet()) {
                if (!first) out.write(',');
                first = false;
                string(out, e.getKey());
                out.write(':');
                value(out, e.getValue(), keys);
            }
        }
        out.write('}');
    }

    /** Rust's {@code String} order: by UTF-8 bytes, which is code point order (UTF-16 order differs above U+D7FF). */
    static int compareCodePoints(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                boolean xs = Character.isSurrogate(x);
                boolean ys = Character.isSurrogate(y);
                if (xs != ys) return xs ? 1 : -1; // a surrogate pair is above every BMP char
                return x - y;
            }
        }
        return a.length() - b.length();
    }

    static void string(ByteBuf out, String s) {
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
                            out.writeAscii("\\u00");
                            out.write(HEX[c >> 4]);
                            out.write(HEX[c & 0xF]);
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
                // A lone surrogate cannot be UTF-8; Rust strings never hold one, so write U+FFFD.
                char w = Character.isSurrogate(c) ? '\uFFFD' : c;
                out.write(0xE0 | (w >> 12));
                out.write(0x80 | ((w >> 6) & 0x3F));
                out.write(0x80 | (w & 0x3F));
            }
        }
        out.write('"');
    }

    /** The JSON text of a scalar, for path variables: strings unquoted, numbers and booleans as printed. */
    static String scalarText(Object v) {
        if (v instanceof String s) return s;
        if (v instanceof Long || v instanceof BigInteger) return v.toString();
        if (v instanceof Double d) return Double.isFinite(d) ? DoubleFormat.ryu(d) : null;
        if (v instanceof Boolean b) return b.toString();
        return null;
    }
}
