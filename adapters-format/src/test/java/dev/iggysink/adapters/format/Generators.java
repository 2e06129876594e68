package dev.iggysink.adapters.format;

import java.util.Random;

/** Random inputs for the format's seeded properties (run through {@code dev.iggysink.domain.Seeded}). */
final class Generators {
    private Generators() {
    }

    /** Any text: ASCII, controls, two- and three-byte characters, astral pairs and lone surrogates. */
    static String text(Random r, int maxLength) {
        return text(r, maxLength, true);
    }

    /** Text that is valid Unicode: like {@link #text(Random, int)} without lone surrogates. */
    static String validText(Random r, int maxLength) {
        return text(r, maxLength, false);
    }

    private static String text(Random r, int maxLength, boolean loneSurrogates) {
        int length = r.nextInt(maxLength + 1);
        StringBuilder s = new StringBuilder(length);
        boolean asciiOnly = r.nextInt(4) == 0;
        while (s.length() < length) {
            switch (asciiOnly ? 0 : r.nextInt(6)) {
                case 0, 1 -> s.append((char) (0x20 + r.nextInt(0x5F)));
                case 2 -> s.append((char) r.nextInt(0x20));
                case 3 -> s.append((char) (0x80 + r.nextInt(0x780)));
                case 4 -> {
                    char c = (char) (0x800 + r.nextInt(0xF800));
                    s.append(!loneSurrogates && Character.isSurrogate(c) ? '\uFFFD' : c);
                }
                default -> s.appendCodePoint(0x10000 + r.nextInt(0x100000));
            }
        }
        return s.toString();
    }

    static byte[] bytes(Random r, int maxLength) {
        byte[] b = new byte[r.nextInt(maxLength + 1)];
        r.nextBytes(b);
        return b;
    }
}
