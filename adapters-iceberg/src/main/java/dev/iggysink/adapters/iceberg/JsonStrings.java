package dev.iggysink.adapters.iceberg;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Where a JSON string's text ends in a payload's bytes, for the string values the row converter takes as bytes. Eight
 * bytes at a time: a log line's text is most of a payload.
 */
final class JsonStrings {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = ONES * '"';
    private static final long BACKSLASHES = ONES * '\\';

    private JsonStrings() {
    }

    /**
     * The index from {@code i} of the first quote or backslash, or {@code in.length}: where a JSON string's text
     * ends when it has no escape. The lowest flagged byte of a word is always a real one (a borrow only starts at a
     * byte that matched), so the answer is exact.
     */
    static int quoteOrBackslash(byte[] in, int i) {
        int words = in.length - 8;
        while (i <= words) {
            long w = (long) LONGS.get(in, i);
            long q = w ^ QUOTES;
            long s = w ^ BACKSLASHES;
            long found = (((q - ONES) & ~q) | ((s - ONES) & ~s)) & HIGHS;
            if (found != 0) return i + (Long.numberOfTrailingZeros(found) >>> 3);
            i += 8;
        }
        while (i < in.length && in[i] != '"' && in[i] != '\\') i++;
        return i;
    }

    private static final long SPACES = ONES * 0x20;

    /**
     * The index from {@code from} of the quote that ends a JSON string whose text is printable ASCII (0x20-0x7f)
     * without an escape; -1 when a backslash, a control character or a byte of a multi-byte character comes first,
     * or nothing ends it. One pass, eight bytes at a time; the lowest flagged byte of a word is always a real one.
     */
    static int plainAsciiEnd(byte[] in, int from) {
        int i = from;
        int words = in.length - 8;
        while (i <= words) {
            long w = (long) LONGS.get(in, i);
            long q = w ^ QUOTES;
            long s = w ^ BACKSLASHES;
            long found = (((q - ONES) & ~q) | ((s - ONES) & ~s) | ((w - SPACES) & ~w) | w) & HIGHS;
            if (found != 0) {
                int at = i + (Long.numberOfTrailingZeros(found) >>> 3);
                return in[at] == '"' ? at : -1;
            }
            i += 8;
        }
        for (; i < in.length; i++) {
            byte b = in[i];
            if (b == '"') return i;
            if (b == '\\' || b < 0x20) return -1; // bytes are signed: >= 0x80 is negative
        }
        return -1;
    }
}
