package dev.iggysink.adapters.format;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Skips the run of bytes inside a JSON string that need no look of their own: printable ASCII other than the quote
 * and the backslash. The parser and the pass-through spend most of a text payload's time here, so it reads eight
 * bytes at a time (SWAR) and tests sixteen per loop turn.
 */
final class PlainAscii {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = ONES * '"';
    private static final long BACKSLASHES = ONES * '\\';
    private static final long SPACES = ONES * 0x20;

    private PlainAscii() {
    }

    /**
     * An index {@code j >= i} such that every byte in {@code [i, j)} is plain, and either fewer than eight bytes
     * remain from {@code j} or one of the eight from {@code j} is not plain. The caller looks at the bytes from
     * {@code j} one by one.
     */
    static int skip(byte[] in, int i) {
        int pairs = in.length - 16;
        while (i <= pairs && ((flags((long) LONGS.get(in, i)) | flags((long) LONGS.get(in, i + 8))) & HIGHS) == 0) {
            i += 16;
        }
        while (i + 8 <= in.length && (flags((long) LONGS.get(in, i)) & HIGHS) == 0) i += 8;
        return i;
    }

    /**
     * The high bit of each byte that is non-ASCII, below 0x20, a quote or a backslash is set (and maybe of bytes
     * above such a byte: a subtraction's borrow only starts at one, so the lowest flagged byte is always a real one).
     * A byte below 0x80 minus 0x20 wraps exactly when it is a control; a byte XOR a quote (or backslash) minus one
     * wraps exactly when it was that character. Non-ASCII bytes carry the bit themselves.
     */
    static long flags(long w) {
        return w | (w - SPACES) | ((w ^ QUOTES) - ONES) | ((w ^ BACKSLASHES) - ONES);
    }
}
