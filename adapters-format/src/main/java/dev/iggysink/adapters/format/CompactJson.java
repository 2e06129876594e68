package dev.iggysink.adapters.format;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The pass-through of JSON payloads: decides in one pass, without building a tree, whether the bytes already are what
 * {@code JsonOut.value(out, Json.parse(bytes), SORTED)} prints, and if so writes them without the tree.
 *
 * <p>{@link #check} answers {@link #PRINTED} (byte for byte the printer's output: copy them), {@link #UNSORTED}
 * (the printer's output except that some object lists its keys out of order: {@link #writeSorted} copies the
 * members in key order) or {@link #NO}. Whenever anything could print differently it answers {@link #NO} and the
 * caller takes the tree path, which also reports every error. So NO covers: whitespace; anything after the value;
 * a key with an escape (its order would have to be decoded) or a repeated key (the tree keeps one); an escape the
 * printer would not write ({@code \/}, {@code \\u00e9}, uppercase hex, a short form written long); invalid UTF-8 or
 * a raw control character; {@code -0}, integers beyond i64/u64, and any fraction or exponent that {@link
 * DoubleFormat#ryu} would not print the same (checked by printing it); more than {@value #MAX_DEPTH} levels (the
 * serde dialect's limit, so both dialects build the same tree from any bytes answered PRINTED or UNSORTED).
 *
 * <p>Stateless and thread-safe; the instance fields are one call's cursor.
 */
final class CompactJson {
    static final int NO = -1;
    static final int PRINTED = 0;
    static final int UNSORTED = 1;

    static final int MAX_DEPTH = 127;

    private final byte[] in;
    private int pos;
    private int depth;
    private boolean unsorted;

    private CompactJson(byte[] in) {
        this.in = in;
    }

    static int check(byte[] bytes) {
        CompactJson c = new CompactJson(bytes);
        if (!c.value() || c.pos != bytes.length) return NO;
        return c.unsorted ? UNSORTED : PRINTED;
    }

    /** Writes a payload {@link #check} answered UNSORTED for, with every object's members in key order. */
    static void writeSorted(ByteBuf out, byte[] bytes) {
        CompactJson c = new CompactJson(bytes);
        c.emit(out);
    }

    // ---- the check ----

    private boolean value() {
        if (pos >= in.length) return false;
        byte c = in[pos];
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return literal(TRUE);
            case 'f':
                return literal(FALSE);
            case 'n':
                return literal(NULL);
            default:
                return (c == '-' || (c >= '0' && c <= '9')) && number();
        }
    }

    private boolean object() {
        if (++depth > MAX_DEPTH) return false;
        pos++;
        if (pos < in.length && in[pos] == '}') {
            pos++;
            depth--;
            return true;
        }
        int prevStart = -1;
        int prevEnd = -1;
        boolean inOrder = true;
        int count = 0;
        int objectStart = pos;
        while (true) {
            if (pos >= in.length || in[pos] != '"') return false;
            int keyStart = pos + 1;
            if (!key()) return false;
            int keyEnd = pos - 1;
            if (inOrder && prevStart >= 0 && compareBytes(in, prevStart, prevEnd, keyStart, keyEnd) >= 0) {
                inOrder = false;
                unsorted = true;
            }
            prevStart = keyStart;
            prevEnd = keyEnd;
            count++;
            if (pos >= in.length || in[pos] != ':') return false;
            pos++;
            if (!value()) return false;
            if (pos >= in.length) return false;
            byte c = in[pos++];
            if (c == ',') continue;
            if (c != '}') return false;
            break;
        }
        depth--;
        // Out of order: fine as long as no key repeats (the tree would keep one of them). Sort the keys to see.
        return inOrder || distinctKeys(objectStart, count);
    }

    /** Whether the object's keys (starting at {@code from}, already checked) are all different. */
    private boolean distinctKeys(int from, int count) {
        int[] keys = keySpans(from, count);
        sortSpans(in, keys, count, 2);
        for (int i = 1; i < count; i++) {
            if (compareBytes(in, keys[2 * i - 2], keys[2 * i - 1], keys[2 * i], keys[2 * i + 1]) == 0) return false;
        }
        return true;
    }

    /** Key spans (start, end of the text between the quotes) of an object's members, scanning from its first key. */
    private int[] keySpans(int from, int count) {
        int[] keys = new int[2 * count];
        int p = from;
        for (int i = 0; i < count; i++) {
            int end = skipString(in, p + 1);
            keys[2 * i] = p + 1;
            keys[2 * i + 1] = end - 1;
            p = skipValue(in, end + 1) + 1; // past ':' and the value, then past ',' or '}'
        }
        return keys;
    }

    private boolean array() {
        if (++depth > MAX_DEPTH) return false;
        pos++;
        if (pos < in.length && in[pos] == ']') {
            pos++;
            depth--;
            return true;
        }
        while (true) {
            if (!value()) return false;
            if (pos >= in.length) return false;
            byte c = in[pos++];
            if (c == ',') continue;
            if (c != ']') return false;
            break;
        }
        depth--;
        return true;
    }

    /** A key: like a string, but without escapes, so its bytes are its UTF-8 text and compare in code point order. */
    private boolean key() {
        int i = pos + 1;
        while (true) {
            while (i + 8 <= in.length && plainAscii((long) LONGS.get(in, i))) i += 8;
            if (i >= in.length) return false;
            int b = in[i];
            if (b == '"') {
                pos = i + 1;
                return true;
            }
            if (b == '\\' || (b >= 0 && b < 0x20)) return false;
            if (b >= 0) {
                i++;
            } else {
                int n = utf8Length(in, i);
                if (n == 0) return false;
                i += n;
            }
        }
    }

    /** A string value whose every byte and escape is what {@code JsonOut.string} writes for its text. */
    private boolean string() {
        int i = pos + 1;
        while (true) {
            while (i + 8 <= in.length && plainAscii((long) LONGS.get(in, i))) i += 8;
            if (i >= in.length) return false;
            int b = in[i];
            if (b == '"') {
                pos = i + 1;
                return true;
            }
            if (b == '\\') {
                int n = printedEscape(in, i);
                if (n == 0) return false;
                i += n;
            } else if (b >= 0x20) {
                i++;
            } else if (b >= 0) {
                return false; // a raw control character: invalid JSON
            } else {
                int n = utf8Length(in, i);
                if (n == 0) return false;
                i += n;
            }
        }
    }

    /**
     * The length of the escape at {@code i} when the printer writes exactly it: the short forms of {@code " \ \b \f
     * \n \r \t}, and {@code \\u00xx} in lowercase for the other controls below 0x20; 0 for any other escape.
     */
    private static int printedEscape(byte[] in, int i) {
        if (i + 1 >= in.length) return 0;
        switch (in[i + 1]) {
            case '"': case '\\': case 'b': case 'f': case 'n': case 'r': case 't':
                return 2;
            case 'u':
                if (i + 5 >= in.length || in[i + 2] != '0' || in[i + 3] != '0') return 0;
                int hi = in[i + 4];
                int lo = in[i + 5];
                if (hi != '0' && hi != '1') return 0;
                int low = lo >= '0' && lo <= '9' ? lo - '0' : lo >= 'a' && lo <= 'f' ? lo - 'a' + 10 : -1;
                if (low < 0) return 0;
                int c = (hi - '0') * 16 + low;
                return c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t' ? 0 : 6;
            default:
                return 0;
        }
    }

    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);

    private boolean literal(byte[] word) {
        if (pos + word.length > in.length) return false;
        for (int k = 0; k < word.length; k++) if (in[pos + k] != word[k]) return false;
        pos += word.length;
        return true;
    }

    private static final byte[] I64_MIN_DIGITS = "9223372036854775808".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] U64_MAX_DIGITS = "18446744073709551615".getBytes(StandardCharsets.US_ASCII);

    private boolean number() {
        int start = pos;
        boolean negative = in[pos] == '-';
        if (negative) pos++;
        int digitsStart = pos;
        if (pos >= in.length) return false;
        if (in[pos] == '0') {
            pos++;
        } else if (isDigit(in[pos])) {
            while (pos < in.length && isDigit(in[pos])) pos++;
        } else {
            return false;
        }
        int digits = pos - digitsStart;
        boolean isFloat = pos < in.length && (in[pos] == '.' || in[pos] == 'e' || in[pos] == 'E');
        if (!isFloat) {
            // A leading zero ends the integer at "0", so "01" fails on what follows (a digit is no separator).
            if (pos < in.length && isDigit(in[pos])) return false;
            if (negative && digits == 1 && in[digitsStart] == '0') return false; // -0 prints as 0 or -0.0
            if (digits <= 18) return true;
            // Printed as written while it is an i64 or a u64; beyond, the tree path errs or makes a float.
            byte[] limit = negative ? I64_MIN_DIGITS : U64_MAX_DIGITS;
            if (digits < limit.length) return true;
            return digits == limit.length && compareBytes(in, digitsStart, pos, limit) <= 0;
        }
        if (pos < in.length && in[pos] == '.') {
            pos++;
            if (pos >= in.length || !isDigit(in[pos])) return false;
            while (pos < in.length && isDigit(in[pos])) pos++;
        }
        if (pos < in.length && (in[pos] == 'e' || in[pos] == 'E')) {
            pos++;
            if (pos < in.length && (in[pos] == '+' || in[pos] == '-')) pos++;
            if (pos >= in.length || !isDigit(in[pos])) return false;
            while (pos < in.length && isDigit(in[pos])) pos++;
        }
        // The tree path prints the double this text reads as; compare with that text itself.
        String text = new String(in, start, pos - start, StandardCharsets.ISO_8859_1);
        double d = Double.parseDouble(text);
        return Double.isFinite(d) && DoubleFormat.ryu(d).equals(text);
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    // ---- writing an UNSORTED payload ----

    /** Writes the value at {@code pos} with its objects' members in key order and moves {@code pos} past it. */
    private void emit(ByteBuf out) {
        byte c = in[pos];
        if (c == '{') {
            emitObject(out);
        } else if (c == '[') {
            out.write('[');
            pos++;
            if (in[pos] == ']') {
                pos++;
            } else {
                while (true) {
                    emit(out);
                    byte sep = in[pos++];
                    if (sep == ']') break;
                    out.write(',');
                }
            }
            out.write(']');
        } else {
            int end = skipValue(in, pos);
            out.write(in, pos, end - pos);
            pos = end;
        }
    }

    private void emitObject(ByteBuf out) {
        pos++;
        out.write('{');
        if (in[pos] == '}') {
            pos++;
            out.write('}');
            return;
        }
        // Members as (key start, key end, value start, value end), then sorted by key.
        int count = 0;
        int[] members = new int[16];
        int p = pos;
        while (true) {
            int keyEnd = skipString(in, p + 1);
            int valueStart = keyEnd + 1;
            int valueEnd = skipValue(in, valueStart);
            if (4 * count + 4 > members.length) members = java.util.Arrays.copyOf(members, members.length * 2);
            members[4 * count] = p + 1;
            members[4 * count + 1] = keyEnd - 1;
            members[4 * count + 2] = valueStart;
            members[4 * count + 3] = valueEnd;
            count++;
            byte sep = in[valueEnd];
            p = valueEnd + 1;
            if (sep == '}') break;
        }
        sortSpans(in, members, count, 4);
        for (int i = 0; i < count; i++) {
            if (i > 0) out.write(',');
            int k = 4 * i;
            out.write(in, members[k] - 1, members[k + 1] - members[k] + 2); // the key with its quotes
            out.write(':');
            pos = members[k + 2];
            emit(out);
        }
        out.write('}');
        pos = p;
    }

    // ---- helpers over checked bytes ----

    /** The position after the closing quote of a string whose contents start at {@code i} (the bytes are checked). */
    private static int skipString(byte[] in, int i) {
        while (true) {
            while (i + 8 <= in.length && noQuoteOrBackslash((long) LONGS.get(in, i))) i += 8;
            byte b = in[i];
            if (b == '"') return i + 1;
            i += b == '\\' ? 2 : 1; // \" and \\ are the escapes that matter; \\u00xx has no quote inside
        }
    }

    /** The position after the value starting at {@code i} (the bytes are checked, so only its end is looked for). */
    private static int skipValue(byte[] in, int i) {
        byte c = in[i];
        if (c == '"') return skipString(in, i + 1);
        if (c == '{' || c == '[') {
            int level = 0;
            while (true) {
                byte b = in[i];
                if (b == '"') {
                    i = skipString(in, i + 1);
                    continue;
                }
                if (b == '{' || b == '[') level++;
                else if ((b == '}' || b == ']') && --level == 0) return i + 1;
                i++;
            }
        }
        // A number or a literal: up to the next separator or the end.
        while (i < in.length && in[i] != ',' && in[i] != '}' && in[i] != ']') i++;
        return i;
    }

    /** Sorts {@code count} spans of {@code width} ints (the first two a byte range) by that range: insertion sort. */
    private static void sortSpans(byte[] in, int[] spans, int count, int width) {
        int[] tmp = new int[width];
        for (int i = 1; i < count; i++) {
            System.arraycopy(spans, i * width, tmp, 0, width);
            int j = i - 1;
            while (j >= 0 && compareBytes(in, spans[j * width], spans[j * width + 1], tmp[0], tmp[1]) > 0) {
                System.arraycopy(spans, j * width, spans, (j + 1) * width, width);
                j--;
            }
            System.arraycopy(tmp, 0, spans, (j + 1) * width, width);
        }
    }

    /** Unsigned byte order of two ranges: for UTF-8 text, the code point order the printer sorts keys by. */
    private static int compareBytes(byte[] in, int aStart, int aEnd, int bStart, int bEnd) {
        int n = Math.min(aEnd - aStart, bEnd - bStart);
        int m = java.util.Arrays.compareUnsigned(in, aStart, aStart + n, in, bStart, bStart + n);
        if (m != 0) return m;
        return (aEnd - aStart) - (bEnd - bStart);
    }

    private static int compareBytes(byte[] in, int start, int end, byte[] other) {
        return java.util.Arrays.compareUnsigned(in, start, end, other, 0, other.length);
    }

    // ---- byte tests, the same rules as Json's ----

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    /** As {@code Json}: none of the eight bytes is a quote, a backslash, a control or non-ASCII. */
    private static boolean plainAscii(long w) {
        long quote = w ^ (ONES * '"');
        long backslash = w ^ (ONES * '\\');
        long flagged = (w | ((w - ONES * 0x20) & ~w)
                | ((quote - ONES) & ~quote)
                | ((backslash - ONES) & ~backslash)) & HIGHS;
        return flagged == 0;
    }

    /** None of the eight bytes is a quote or a backslash (other bytes were checked before). */
    private static boolean noQuoteOrBackslash(long w) {
        long quote = w ^ (ONES * '"');
        long backslash = w ^ (ONES * '\\');
        long flagged = (((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash)) & HIGHS;
        return flagged == 0;
    }

    /** The length of the well-formed UTF-8 sequence at {@code i}, or 0: the parser's rule (no surrogates). */
    private static int utf8Length(byte[] in, int i) {
        return Json.utf8Length(in, i);
    }
}
