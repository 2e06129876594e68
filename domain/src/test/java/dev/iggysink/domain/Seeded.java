package dev.iggysink.domain;

import java.util.Random;
import java.util.function.Consumer;

/**
 * Property checks over seeded random inputs. Each try gets its own seed; a failure names it, and
 * {@code -Dproperty.seed=<seed>} runs exactly that try again (one try per property). The generators lean towards
 * edge values (bounds, zero) as often as a real fuzzer would, since most defects live there.
 */
public final class Seeded {
    private static final String SEED_PROPERTY = "property.seed";

    private Seeded() {
    }

    public static void check(int tries, Consumer<Random> property) {
        String fixed = System.getProperty(SEED_PROPERTY);
        long base = fixed == null || fixed.isBlank() ? new Random().nextLong() : Long.parseLong(fixed.trim());
        int count = fixed == null || fixed.isBlank() ? tries : 1;
        for (int i = 0; i < count; i++) {
            long seed = base + i * 0x9E3779B97F4A7C15L;
            try {
                property.accept(new Random(seed));
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("try " + (i + 1) + " of " + count + " failed; replay with -D" + SEED_PROPERTY
                        + "=" + seed + ": " + e.getMessage(), e);
            }
        }
    }

    /** A long in [min, max]: three times in ten a bound or the value nearest zero, else uniform. */
    public static long longBetween(Random r, long min, long max) {
        int pick = r.nextInt(10);
        if (pick == 0) return min;
        if (pick == 1) return max;
        if (pick == 2) return Math.max(min, Math.min(max, 0));
        long width = max - min;
        if (width >= 0 && width < Long.MAX_VALUE) return min + r.nextLong(width + 1);
        long v;
        do {
            v = r.nextLong();
        } while (v < min || v > max);
        return v;
    }

    public static int intBetween(Random r, int min, int max) {
        return (int) longBetween(r, min, max);
    }

    /** Any text: ASCII, controls, two- and three-byte characters, astral pairs and lone surrogates. */
    public static String text(Random r, int maxLength) {
        int length = r.nextInt(maxLength + 1);
        StringBuilder s = new StringBuilder(length);
        int flavour = r.nextInt(4);
        while (s.length() < length) {
            int kind = flavour == 0 ? 0 : r.nextInt(6);
            switch (kind) {
                case 0, 1 -> s.append((char) (0x20 + r.nextInt(0x5F)));
                case 2 -> s.append((char) r.nextInt(0x20));
                case 3 -> s.append((char) (0x80 + r.nextInt(0x780)));
                case 4 -> s.append((char) (0x800 + r.nextInt(0xF7FF)));
                default -> s.appendCodePoint(0x10000 + r.nextInt(0x100000));
            }
        }
        return s.toString();
    }
}
