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

    /** Whether {@code in[from, to)} is printable ASCII (0x20-0x7f): no control character, no multi-byte character. */
    static boolean printableAscii(byte[] in, int from, int to) {
        int i = from;
        while (i <= to - 8) {
            long w = (long) LONGS.get(in, i);
            // a byte with its high bit set, or one below 0x20 (its borrow sets the high bit where the byte had none)
            if (((w | ((w - SPACES) & ~w)) & HIGHS) != 0) return false;
            i += 8;
        }
        for (; i < to; i++) if (in[i] < 0x20) return false; // bytes are signed: >= 0x80 is negative
        return true;
    }
}
