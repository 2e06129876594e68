package dev.iggysink.adapters.format.json;

import dev.iggysink.adapters.format.buffer.ByteBuf;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * Prints a {@link Json} tree compactly, as serde_json's {@code to_vec} does: no spaces; strings escape {@code "},
 * {@code \}, {@code \b \f \n \r \t} and other controls as lowercase {@code \\u00xx} escapes; non-ASCII is written as UTF-8;
 * floats per {@link DoubleFormat#ryu}. {@link Keys#SORTED} is serde_json's {@code Map} (a BTreeMap: keys by code
 * point); {@link Keys#INSERTION} is simd_json's own printer (raw output of a JSON payload).
 */
public final class JsonOut {
    private JsonOut() {
    }

    public enum Keys { SORTED, INSERTION }

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @SuppressWarnings("unchecked")
    public static void value(ByteBuf out, Object v, Keys keys) {
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
        } else if (v instanceof Long l) {
            out.writeLong(l);
        } else if (v instanceof BigInteger) {
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
            for (Map.Entry<String, Object> e : sortedEntries(map)) {
                if (!first) out.write(',');
                first = false;
                string(out, e.getKey());
                out.write(':');
                value(out, e.getValue(), keys);
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

    /** The entries by key in code point order: an insertion sort, as payload objects are small. */
    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of a generic type can only be made from the raw type
    private static Map.Entry<String, Object>[] sortedEntries(Map<String, Object> map) {
        Map.Entry<String, Object>[] entries = map.entrySet().toArray(new Map.Entry[0]);
        if (entries.length > 32) {
            java.util.Arrays.sort(entries, (x, y) -> compareCodePoints(x.getKey(), y.getKey()));
            return entries;
        }
        for (int i = 1; i < entries.length; i++) {
            Map.Entry<String, Object> e = entries[i];
            String key = e.getKey();
            int j = i - 1;
            while (j >= 0 && compareCodePoints(entries[j].getKey(), key) > 0) {
                entries[j + 1] = entries[j];
                j--;
            }
            entries[j + 1] = e;
        }
        return entries;
    }

    /** Rust's {@code String} order: by UTF-8 bytes, which is code point order (UTF-16 order differs above U+D7FF). */
    public static int compareCodePoints(String a, String b) {
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

    /**
     * Chars that {@link #string} copies as they are: printable ASCII other than {@code "} and backslash. Everything
     * else (controls, quote, backslash, non-ASCII) goes through {@link #escaped}.
     */
    private static final boolean[] PLAIN = new boolean[0x80];

    static {
        for (int c = 0x20; c < 0x80; c++) PLAIN[c] = c != '"' && c != '\\';
    }

    /** Worst case bytes per UTF-16 char: a control char as {@code \\u00xx}. */
    private static final int MAX_BYTES_PER_CHAR = 6;

    public static void string(ByteBuf out, String s) {
        int n = s.length();
        // Room for the common case (plain ASCII) at once: no capacity check per char.
        byte[] a = out.reserve(n + 2);
        int p = out.position();
        a[p++] = '"';
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80 && PLAIN[c]) {
                a[p++] = (byte) c;
            } else {
                out.setPosition(p);
                escaped(out, s, i);
                return;
            }
        }
        a[p++] = '"';
        out.setPosition(p);
    }

    /** The rest of {@link #string} from {@code from}, the first char that is not plain ASCII, to the closing quote. */
    private static void escaped(ByteBuf out, String s, int from) {
        int n = s.length();
        // Worst case for the rest, reserved once; then plain writes into the array.
        long worst = (long) MAX_BYTES_PER_CHAR * (n - from) + 1;
        byte[] a = out.reserve((int) Math.min(Integer.MAX_VALUE, worst));
        int p = out.position();
        for (int i = from; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                if (PLAIN[c]) {
                    a[p++] = (byte) c;
                    continue;
                }
                a[p++] = '\\';
                switch (c) {
                    case '"' -> a[p++] = '"';
                    case '\\' -> a[p++] = '\\';
                    case '\b' -> a[p++] = 'b';
                    case '\f' -> a[p++] = 'f';
                    case '\n' -> a[p++] = 'n';
                    case '\r' -> a[p++] = 'r';
                    case '\t' -> a[p++] = 't';
                    default -> {
                        a[p++] = 'u';
                        a[p++] = '0';
                        a[p++] = '0';
                        a[p++] = HEX[c >> 4];
                        a[p++] = HEX[c & 0xF];
                    }
                }
            } else if (c < 0x800) {
                a[p++] = (byte) (0xC0 | (c >> 6));
                a[p++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                a[p++] = (byte) (0xF0 | (cp >> 18));
                a[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                a[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                a[p++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                // A lone surrogate cannot be UTF-8; Rust strings never hold one, so write U+FFFD.
                char w = Character.isSurrogate(c) ? '\uFFFD' : c;
                a[p++] = (byte) (0xE0 | (w >> 12));
                a[p++] = (byte) (0x80 | ((w >> 6) & 0x3F));
                a[p++] = (byte) (0x80 | (w & 0x3F));
            }
        }
        a[p++] = '"';
        out.setPosition(p);
    }

    /** The JSON text of a scalar, for path variables: strings unquoted, numbers and booleans as printed. */
    public static String scalarText(Object v) {
        if (v instanceof String s) return s;
        if (v instanceof Long || v instanceof BigInteger) return v.toString();
        if (v instanceof Double d) return Double.isFinite(d) ? DoubleFormat.ryu(d) : null;
        if (v instanceof Boolean b) return b.toString();
        return null;
    }
}
