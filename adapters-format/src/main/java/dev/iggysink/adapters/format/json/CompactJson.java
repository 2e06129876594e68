package dev.iggysink.adapters.format.json;

import dev.iggysink.adapters.format.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The pass-through of JSON payloads: decides in one pass, without building a tree, whether the bytes already are what
 * {@code JsonOut.value(out, Json.parse(bytes), SORTED)} prints, and if so writes them without the tree.
 *
 * <p>{@link #check} answers {@link #IN_ORDER} (byte for byte the printer's output: copy them), a plan (the
 * printer's output except that some objects list their members out of key order: {@link #write} copies the bytes
 * and those members in key order, from spans found in the same pass) or null. Whenever anything could print
 * differently it answers null and the caller takes the tree path, which also reports every error. So null covers:
 * whitespace; anything after the value; a key with an escape (its order would have to be decoded) or a repeated key
 * (the tree keeps one); an escape the printer would not write ({@code \/}, {@code \\u00e9}, uppercase hex, a short
 * form written long); invalid UTF-8 or a raw control character; {@code -0}, integers beyond i64/u64, and any
 * fraction or exponent that {@link DoubleFormat#ryu} would not print the same (checked by printing it); more than
 * {@value #MAX_DEPTH} levels (the serde dialect's limit, so both dialects build the same tree from any bytes
 * answered non-null).
 *
 * <p>A plan is {@code [object start, object end, member count, then per member in key order: key start, key end,
 * value start, value end]} for each out-of-order object, in the order their scans ended (inner objects first); key
 * spans are the text between the quotes, the others include their brackets.
 *
 * <p>Stateless and thread-safe; the instance fields are one call's cursor.
 */
public final class CompactJson {
    /** The answer for bytes that are exactly the printer's output. */
    public static final int[] IN_ORDER = new int[0];

    public static final int MAX_DEPTH = 127;

    private final byte[] in;
    private int pos;
    private int depth;
    /** Member spans of the objects being scanned, four ints each; the thread's scratch array, grown on demand. */
    private int[] members;
    private int top;
    /** The plan so far; null while every object is in order. */
    private int[] plan;
    private int planLength;

    /** The span stack is reused per thread: the check then allocates nothing while the payload is in order. */
    private static final ThreadLocal<int[][]> SCRATCH = ThreadLocal.withInitial(() -> new int[][] {new int[64]});

    private CompactJson(byte[] in, int[] members) {
        this.in = in;
        this.members = members;
    }

    /** IN_ORDER, a plan for {@link #write}, or null (take the tree path). */
    public static int[] check(byte[] bytes) {
        int[][] scratch = SCRATCH.get();
        CompactJson c = new CompactJson(bytes, scratch[0]);
        boolean ok = c.value() && c.pos == bytes.length;
        scratch[0] = c.members; // keep a grown array for the next payload
        if (!ok) return null;
        return c.plan == null ? IN_ORDER : Arrays.copyOf(c.plan, c.planLength);
    }

    /** Writes bytes {@link #check} answered {@code plan} for, as the printer would. */
    public static void write(ByteBuf out, byte[] bytes, int[] plan) {
        if (plan.length == 0) {
            out.write(bytes);
            return;
        }
        new Writer(bytes, plan).range(out, 0, bytes.length);
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
        int open = pos;
        pos++;
        if (pos < in.length && in[pos] == '}') {
            pos++;
            depth--;
            return true;
        }
        int base = top;
        boolean inOrder = true;
        while (true) {
            if (pos >= in.length || in[pos] != '"') return false;
            int keyStart = pos + 1;
            if (!key()) return false;
            int keyEnd = pos - 1;
            if (inOrder && top > base && compareBytes(in, members[top - 4], members[top - 3], keyStart, keyEnd) >= 0) {
                inOrder = false;
            }
            if (pos >= in.length || in[pos] != ':') return false;
            pos++;
            int valueStart = pos;
            if (!value()) return false;
            push(keyStart, keyEnd, valueStart, pos);
            if (pos >= in.length) return false;
            byte c = in[pos++];
            if (c == ',') continue;
            if (c != '}') return false;
            break;
        }
        depth--;
        int count = (top - base) / 4;
        top = base;
        if (inOrder) return true;
        // Out of order: sort the members; fine as long as no key repeats (the tree would keep one of them).
        if (!sortSpans(in, members, base, count)) return false;
        addPlan(open, pos, base, count);
        return true;
    }

    private void push(int keyStart, int keyEnd, int valueStart, int valueEnd) {
        if (top + 4 > members.length) members = Arrays.copyOf(members, members.length * 2);
        members[top] = keyStart;
        members[top + 1] = keyEnd;
        members[top + 2] = valueStart;
        members[top + 3] = valueEnd;
        top += 4;
    }

    private void addPlan(int start, int end, int from, int count) {
        int need = planLength + 3 + 4 * count;
        if (plan == null) plan = new int[Math.max(32, need)];
        else if (need > plan.length) plan = Arrays.copyOf(plan, Math.max(need, plan.length * 2));
        plan[planLength] = start;
        plan[planLength + 1] = end;
        plan[planLength + 2] = count;
        System.arraycopy(members, from, plan, planLength + 3, 4 * count);
        planLength = need;
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
            i = PlainAscii.skip(in, i);
            if (i >= in.length) return false;
            int b = in[i];
            if (b == '"') {
                pos = i + 1;
                return true;
            }
            // skip stops only at a byte that is not plain: here a backslash, a control or non-ASCII.
            if (b >= 0) return false;
            int n = utf8Length(in, i);
            if (n == 0) return false;
            i += n;
        }
    }

    /** A string value whose every byte and escape is what {@code JsonOut.string} writes for its text. */
    private boolean string() {
        int i = pos + 1;
        while (true) {
            i = PlainAscii.skip(in, i);
            if (i >= in.length) return false;
            int b = in[i];
            if (b == '"') {
                pos = i + 1;
                return true;
            }
            // skip stops only at a byte that is not plain: here a backslash, a control or non-ASCII.
            if (b == '\\') {
                int n = printedEscape(in, i);
                if (n == 0) return false;
                i += n;
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
        int intEnd = pos;
        if (pos < in.length && in[pos] == '.') {
            pos++;
            if (pos >= in.length || !isDigit(in[pos])) return false;
            while (pos < in.length && isDigit(in[pos])) pos++;
        }
        int fracEnd = pos;
        if (pos < in.length && (in[pos] == 'e' || in[pos] == 'E')) {
            pos++;
            if (pos < in.length && (in[pos] == '+' || in[pos] == '-')) pos++;
            if (pos >= in.length || !isDigit(in[pos])) return false;
            while (pos < in.length && isDigit(in[pos])) pos++;
        }
        if (fracEnd == pos && fracEnd > intEnd && plainDecimalAsPrinted(digitsStart, intEnd, fracEnd)) return true;
        // The tree path prints the double this text reads as; compare with that text itself.
        String text = new String(in, start, pos - start, StandardCharsets.ISO_8859_1);
        double d = Double.parseDouble(text);
        return Double.isFinite(d) && DoubleFormat.ryu(d).equals(text);
    }

    /**
     * Whether a plain decimal {@code I.F} (no exponent) is printed as it is, decided without parsing it. With at most
     * 15 significant digits no other decimal of at most 15 digits reads as the same double (DBL_DIG), so the
     * shortest digits of that double are these digits, and ryu's layout keeps the text when: {@code F} has no
     * trailing zero (or is the single {@code 0} of a whole number), and the point is where ryu puts it in plain
     * notation: at most 16 digits before it, or {@code 0.} and at most 4 zeros after it. Anything else (and zero) is
     * left to the exact comparison.
     */
    private boolean plainDecimalAsPrinted(int intStart, int intEnd, int fracEnd) {
        int fracStart = intEnd + 1;
        int fracLength = fracEnd - fracStart;
        boolean wholeNumber = fracLength == 1 && in[fracStart] == '0';
        if (!wholeNumber && in[fracEnd - 1] == '0') return false; // 1.50: printed 1.5
        int intLength = intEnd - intStart;
        if (in[intStart] != '0') {
            if (intLength > 16) return false;
            int significant = intLength;
            if (wholeNumber) {
                while (significant > 1 && in[intStart + significant - 1] == '0') significant--;
            } else {
                significant += fracLength;
            }
            return significant <= 15;
        }
        // 0.F: F's leading zeros become the exponent; ryu stays plain down to 0.0000d (1e-5).
        if (wholeNumber) return false; // 0.0 and -0.0: exact path
        int zeros = 0;
        while (in[fracStart + zeros] == '0') zeros++;
        return zeros <= 4 && fracLength - zeros <= 15;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    // ---- writing a payload with a plan ----

    /** Copies ranges of the bytes, writing each planned object's members in key order. */
    private static final class Writer {
        private final byte[] in;
        private final int[] plan;
        /** Offsets of the plan's objects in the plan, by object start. */
        private final int[] byStart;

        Writer(byte[] in, int[] plan) {
            this.in = in;
            this.plan = plan;
            int n = 0;
            for (int p = 0; p < plan.length; p += 3 + 4 * plan[p + 2]) n++;
            byStart = new int[n];
            int i = 0;
            for (int p = 0; p < plan.length; p += 3 + 4 * plan[p + 2]) {
                int j = i++;
                while (j > 0 && plan[byStart[j - 1]] > plan[p]) {
                    byStart[j] = byStart[j - 1];
                    j--;
                }
                byStart[j] = p;
            }
        }

        /** Writes {@code [from, to)}, a whole value or a run of them; planned objects in it are reordered. */
        void range(ByteBuf out, int from, int to) {
            while (true) {
                int k = firstAtOrAfter(from);
                if (k < 0 || plan[k] >= to) {
                    out.write(in, from, to - from);
                    return;
                }
                out.write(in, from, plan[k] - from);
                object(out, k);
                from = plan[k + 1];
            }
        }

        private void object(ByteBuf out, int k) {
            out.write('{');
            int count = plan[k + 2];
            for (int i = 0; i < count; i++) {
                int m = k + 3 + 4 * i;
                if (i > 0) out.write(',');
                // "key":value is one run of the input (compact: nothing between the quote, the colon and the
                // value), copied in one piece unless the value holds a planned object.
                int k2 = firstAtOrAfter(plan[m + 2]);
                if (k2 < 0 || plan[k2] >= plan[m + 3]) {
                    out.write(in, plan[m] - 1, plan[m + 3] - plan[m] + 1);
                } else {
                    out.write(in, plan[m] - 1, plan[m + 2] - plan[m] + 1);
                    range(out, plan[m + 2], plan[m + 3]);
                }
            }
            out.write('}');
        }

        /** The plan offset of the first planned object starting at or after {@code from}, or -1. */
        private int firstAtOrAfter(int from) {
            int lo = 0;
            int hi = byStart.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (plan[byStart[mid]] < from) lo = mid + 1;
                else hi = mid;
            }
            return lo < byStart.length ? byStart[lo] : -1;
        }
    }

    /**
     * Sorts {@code count} member spans (four ints from {@code from}) by key, an insertion sort (objects are small);
     * false if two keys are equal. Each key is compared with the keys before it until one is not greater, so equal
     * keys always meet: no second pass over the sorted keys.
     */
    private static boolean sortSpans(byte[] in, int[] spans, int from, int count) {
        for (int i = 1; i < count; i++) {
            int at = from + 4 * i;
            int k0 = spans[at];
            int k1 = spans[at + 1];
            int v0 = spans[at + 2];
            int v1 = spans[at + 3];
            int j = at - 4;
            int c;
            while (j >= from && (c = compareBytes(in, spans[j], spans[j + 1], k0, k1)) >= 0) {
                if (c == 0) return false;
                // Four ints moved by hand: System.arraycopy's call costs more than the copy at this size.
                spans[j + 4] = spans[j];
                spans[j + 5] = spans[j + 1];
                spans[j + 6] = spans[j + 2];
                spans[j + 7] = spans[j + 3];
                j -= 4;
            }
            spans[j + 4] = k0;
            spans[j + 5] = k1;
            spans[j + 6] = v0;
            spans[j + 7] = v1;
        }
        return true;
    }

    /**
     * Unsigned byte order of two ranges: for UTF-8 text, the code point order the printer sorts keys by. A plain
     * loop: keys are short and mostly differ in their first bytes, where {@code Arrays.compareUnsigned}'s range
     * checks and set-up cost more than the loop.
     */
    private static int compareBytes(byte[] in, int aStart, int aEnd, int bStart, int bEnd) {
        int n = Math.min(aEnd - aStart, bEnd - bStart);
        for (int k = 0; k < n; k++) {
            int d = (in[aStart + k] & 0xff) - (in[bStart + k] & 0xff);
            if (d != 0) return d;
        }
        return (aEnd - aStart) - (bEnd - bStart);
    }

    private static int compareBytes(byte[] in, int start, int end, byte[] other) {
        return Arrays.compareUnsigned(in, start, end, other, 0, other.length);
    }

    // ---- byte tests, the same rules as Json's ----

    /** The length of the well-formed UTF-8 sequence at {@code i}, or 0: the parser's rule (no surrogates). */
    private static int utf8Length(byte[] in, int i) {
        return Json.utf8Length(in, i);
    }
}
