package dev.iggysink.adapters.format.json;

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
    private static final long TWOS = ONES * 0x02;
    private static final long CONTROLS_AND_QUOTE = ONES * 0x21;
    private static final long BACKSLASHES = ONES * '\\';

    private PlainAscii() {
    }

    /**
     * The index of the first byte from {@code i} that is not plain, or {@code in.length}: the caller looks at that
     * byte next. Why exactly there: keys and short strings end within a word; stopping only near the byte (a word
     * early) made the caller step byte by byte, calling this again for every byte, each time loading two words.
     */
    static int skip(byte[] in, int i) {
        int pairs = in.length - 16;
        while (i <= pairs) {
            long low = flags((long) LONGS.get(in, i)) & HIGHS;
            long high = flags((long) LONGS.get(in, i + 8)) & HIGHS;
            if ((low | high) != 0) return low != 0 ? i + firstFlagged(low) : i + 8 + firstFlagged(high);
            i += 16;
        }
        if (i + 8 <= in.length) {
            long word = flags((long) LONGS.get(in, i)) & HIGHS;
            if (word != 0) return i + firstFlagged(word);
            i += 8;
        }
        while (i < in.length && isPlain(in[i])) i++;
        return i;
    }

    /** The index in its word of the lowest flagged byte, which is a real one (see {@link #flags}). */
    private static int firstFlagged(long flaggedHighs) {
        return Long.numberOfTrailingZeros(flaggedHighs) >>> 3;
    }

    private static boolean isPlain(byte b) {
        return b >= 0x20 && b != '"' && b != '\\'; // signed: non-ASCII bytes are negative
    }

    /**
     * The high bit of each byte that is non-ASCII, below 0x20, a quote or a backslash is set (and maybe of bytes
     * above such a byte: a subtraction's borrow only starts at one, so the lowest flagged byte is always a real one).
     * A byte below 0x80 XOR 0x02 is below 0x21 exactly when the byte is a control or the quote (XOR 0x02 swaps
     * 0x20 and 0x22 and keeps the controls among themselves), so one subtraction of 0x21 wraps for both; a byte XOR
     * the backslash minus one wraps exactly when it was the backslash. Non-ASCII bytes carry the bit themselves.
     * (Seven operations a word instead of nine with a subtraction for each.)
     */
    static long flags(long w) {
        return w | ((w ^ TWOS) - CONTROLS_AND_QUOTE) | ((w ^ BACKSLASHES) - ONES);
    }
}
