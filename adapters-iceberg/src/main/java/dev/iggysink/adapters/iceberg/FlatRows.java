package dev.iggysink.adapters.iceberg;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The row converter's quick way for the common payload: one flat JSON object in ASCII whose fields the table takes
 * are strings without escapes, integers, numbers, booleans or null, and whose other fields hold such values too.
 * Such a payload is read here byte by byte, with no parser. Anything else, and anything this does not recognise as
 * plain valid JSON, returns null, and the converter reads the payload with Jackson as before, which gives the value
 * or names the error. So this never decides that a payload is bad, and what it returns is what Jackson's reading
 * gives (checked payload by payload in {@code FlatRowsTest}).
 *
 * <p>Why: Jackson's field names and parser set-up were a fifth of the table sink's row work on the bench's payloads
 * (docs/performance.md).
 */
final class FlatRows {
    private static final int UNSUPPORTED = 0;
    private static final int STRING = 1;
    private static final int LONG = 2;
    private static final int INT = 3;
    private static final int DOUBLE = 4;
    private static final int BOOLEAN = 5;
    /** A column the record's metadata fills: the payload's field of that name is skipped. */
    private static final int METADATA = 6;

    /**
     * Longer numbers and strings are left to Jackson, whose read constraints (1,000 characters for a number,
     * 20 million for a string by default) may refuse them: this must accept nothing Jackson refuses.
     */
    private static final int MAX_NUMBER = 100;
    private static final int MAX_STRING = 1 << 20;

    private final byte[][] names;
    private final int[] kinds;
    private final GenericRecord empty;
    /** Per position: the position of the field that followed it in the last payload, or -1 (see StructReader). */
    private final int[] after;
    private int first;
    /** Where the last value read ended, and the value itself (a read can only return one). */
    private int end;

    /** @param metadata per top-level column, whether the record's metadata fills it */
    FlatRows(Types.StructType row, boolean[] metadata) {
        List<Types.NestedField> fields = row.fields();
        this.names = new byte[fields.size()][];
        this.kinds = new int[fields.size()];
        this.after = new int[fields.size()];
        Arrays.fill(after, -1);
        for (int i = 0; i < fields.size(); i++) {
            names[i] = fields.get(i).name().getBytes(StandardCharsets.UTF_8);
            kinds[i] = metadata[i] ? METADATA : kind(fields.get(i).type());
        }
        this.empty = GenericRecord.create(row);
    }

    private static int kind(Type type) {
        return switch (type.typeId()) {
            case STRING -> STRING;
            case LONG -> LONG;
            case INTEGER -> INT;
            case DOUBLE -> DOUBLE;
            case BOOLEAN -> BOOLEAN;
            default -> UNSUPPORTED;
        };
    }

    /** The payload's fields in a row (metadata columns left null), or null when Jackson must read it. */
    GenericRecord read(byte[] in) {
        int i = skipSpace(in, 0);
        if (i >= in.length || in[i] != '{') return null;
        GenericRecord out = empty.copy();
        i = skipSpace(in, i + 1);
        if (i < in.length && in[i] == '}') return skipSpace(in, i + 1) == in.length ? out : null;
        int guess = first;
        int previous = -1;
        while (true) {
            if (i >= in.length || in[i] != '"') return null;
            int nameEnd = plainString(in, i + 1);
            if (nameEnd < 0) return null;
            int at = position(in, i + 1, nameEnd, guess);
            i = skipSpace(in, nameEnd + 1);
            if (i >= in.length || in[i] != ':') return null;
            i = skipSpace(in, i + 1);
            if (i >= in.length) return null;
            if (at >= 0) {
                if (previous < 0) first = at;
                else after[previous] = at;
                previous = at;
                guess = after[at];
            }
            int kind = at < 0 ? METADATA : kinds[at];
            if (kind == UNSUPPORTED) return null;
            Object value = kind == METADATA ? skipScalar(in, i) : value(in, i, kind);
            if (value == null) return null;
            if (kind != METADATA) out.set(at, value == NULL ? null : value);
            i = skipSpace(in, end);
            if (i >= in.length) return null;
            if (in[i] == '}') return skipSpace(in, i + 1) == in.length ? out : null;
            if (in[i] != ',') return null;
            i = skipSpace(in, i + 1);
        }
    }

    /** JSON null, told apart from "cannot read" (null). */
    private static final Object NULL = new Object();
    private static final Object SKIPPED = new Object();

    private Object value(byte[] in, int i, int kind) {
        byte b = in[i];
        if (b == 'n') return literal(in, i, "null") ? NULL : null;
        switch (kind) {
            case STRING -> {
                if (b != '"') return null;
                int close = plainString(in, i + 1);
                if (close < 0) return null;
                end = close + 1;
                return new Utf8(Arrays.copyOfRange(in, i + 1, close));
            }
            case BOOLEAN -> {
                if (b == 't' && literal(in, i, "true")) return Boolean.TRUE;
                if (b == 'f' && literal(in, i, "false")) return Boolean.FALSE;
                return null;
            }
            case LONG, INT -> {
                int stop = number(in, i);
                if (stop < 0 || !integral(in, i, stop)) return null;
                int digits = stop - i - (in[i] == '-' ? 1 : 0);
                if (digits > 18) return null; // may not fit a long: Jackson decides
                long v = 0;
                for (int k = in[i] == '-' ? i + 1 : i; k < stop; k++) v = v * 10 + (in[k] - '0');
                if (in[i] == '-') v = -v;
                end = stop;
                if (kind == LONG) return v;
                return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? (Object) (int) v : null;
            }
            case DOUBLE -> {
                int stop = number(in, i);
                if (stop < 0) return null;
                double d = shortDecimal(in, i, stop);
                if (Double.isNaN(d)) d = Double.parseDouble(new String(in, i, stop - i, StandardCharsets.US_ASCII));
                if (!Double.isFinite(d)) return null;
                end = stop;
                return d == 0.0 ? 0.0 : d;
            }
            default -> {
                return null;
            }
        }
    }

    /** Powers of ten a double holds exactly. */
    private static final double[] EXACT_TENS = new double[23];

    static {
        EXACT_TENS[0] = 1;
        for (int k = 1; k < EXACT_TENS.length; k++) EXACT_TENS[k] = EXACT_TENS[k - 1] * 10;
    }

    /**
     * The JSON number {@code in[from, stop)} as the nearest double, when it has no exponent and at most 15 digits;
     * else NaN. Its digits then make an integer below 2^53 and its scale a power of ten up to 10^22, both exact
     * doubles, and one division of exact doubles is rounded to the nearest: the value {@code Double.parseDouble}
     * gives, without the string it needs (a profile put that at 6 % of the row work at 100 B; FlatRowsTest compares).
     */
    static double shortDecimal(byte[] in, int from, int stop) {
        boolean negative = in[from] == '-';
        long digits = 0;
        int count = 0;
        int scale = -1;
        for (int k = negative ? from + 1 : from; k < stop; k++) {
            byte b = in[k];
            if (b == '.') {
                scale = 0;
            } else if (b >= '0' && b <= '9') {
                if (++count > 15) return Double.NaN;
                digits = digits * 10 + (b - '0');
                if (scale >= 0) scale++;
            } else {
                return Double.NaN; // an exponent
            }
        }
        double d = scale > 0 ? digits / EXACT_TENS[scale] : digits;
        return negative ? -d : d;
    }

    /** Skips a string, number or literal (a field the row does not take from the payload); null for anything else. */
    private Object skipScalar(byte[] in, int i) {
        byte b = in[i];
        if (b == '"') {
            int close = plainString(in, i + 1);
            if (close < 0) return null;
            end = close + 1;
            return SKIPPED;
        }
        if (b == 'n' && literal(in, i, "null") || b == 't' && literal(in, i, "true")
                || b == 'f' && literal(in, i, "false")) {
            return SKIPPED;
        }
        int stop = number(in, i);
        if (stop < 0) return null;
        end = stop;
        return SKIPPED;
    }

    private boolean literal(byte[] in, int i, String word) {
        int n = word.length();
        if (i + n > in.length) return false;
        for (int k = 0; k < n; k++) if (in[i + k] != word.charAt(k)) return false;
        if (i + n < in.length && !delimiter(in[i + n])) return false;
        end = i + n;
        return true;
    }

    /**
     * Where a JSON number starting at {@code i} ends (by the JSON grammar: an optional minus, 0 or digits without a
     * leading zero, an optional fraction, an optional exponent), or -1 when it is not one followed by a delimiter.
     */
    private static int number(byte[] in, int i) {
        int k = i;
        int longest = Math.min(in.length, i + MAX_NUMBER);
        if (k < in.length && in[k] == '-') k++;
        if (k >= in.length) return -1;
        if (in[k] == '0') {
            k++;
        } else if (in[k] >= '1' && in[k] <= '9') {
            while (k < in.length && digit(in[k])) k++;
        } else {
            return -1;
        }
        if (k < in.length && in[k] == '.') {
            int from = ++k;
            while (k < in.length && digit(in[k])) k++;
            if (k == from) return -1;
        }
        if (k < in.length && (in[k] == 'e' || in[k] == 'E')) {
            k++;
            if (k < in.length && (in[k] == '+' || in[k] == '-')) k++;
            int from = k;
            while (k < in.length && digit(in[k])) k++;
            if (k == from) return -1;
        }
        if (k >= longest && k < in.length) return -1;
        return k < in.length && !delimiter(in[k]) ? -1 : k;
    }

    private static boolean integral(byte[] in, int from, int stop) {
        for (int k = from; k < stop; k++) if (in[k] == '.' || in[k] == 'e' || in[k] == 'E') return false;
        return true;
    }

    private static boolean digit(byte b) {
        return b >= '0' && b <= '9';
    }

    /** What may follow a number or literal: whitespace, a comma or the end of an object or array. */
    private static boolean delimiter(byte b) {
        return b == ',' || b == '}' || b == ']' || space(b);
    }

    private static boolean space(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    private static int skipSpace(byte[] in, int i) {
        while (i < in.length && space(in[i])) i++;
        return i;
    }

    /**
     * The index of the quote that closes a string whose text starts at {@code from}, when the text is printable
     * ASCII without an escape; else -1 (an escape, a control character, a byte of a multi-byte character, no end).
     */
    private static int plainString(byte[] in, int from) {
        int close = JsonStrings.plainAsciiEnd(in, from);
        return close - from > MAX_STRING ? -1 : close;
    }

    /** The column named by {@code in[from, to)}, trying {@code guess} first; -1 when the row has none. */
    private int position(byte[] in, int from, int to, int guess) {
        if (guess >= 0 && Arrays.equals(names[guess], 0, names[guess].length, in, from, to)) return guess;
        for (int k = 0; k < names.length; k++) {
            if (Arrays.equals(names[k], 0, names[k].length, in, from, to)) return k;
        }
        return -1;
    }
}
