package dev.iggysink.domain.naming;

import java.util.Objects;

/**
 * Makes a value safe as one key segment, as the Rust sink does for stream and topic names: ASCII letters, digits,
 * {@code .}, {@code _} and {@code -} stay; every other code point (a slash, a space, any non-ASCII character,
 * a surrogate pair counting once) becomes one {@code _}. Distinct inputs can therefore collide.
 */
public final class KeySanitizer {
    private KeySanitizer() {
    }

    public static String sanitize(String s) {
        Objects.requireNonNull(s, "s");
        StringBuilder out = null;
        int i = 0;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            int width = Character.charCount(cp);
            boolean keep = isAllowed(cp);
            if (!keep && out == null) {
                out = new StringBuilder(s.length()).append(s, 0, i);
            }
            if (out != null) {
                out.append(keep ? (char) cp : '_');
            }
            i += width;
        }
        return out == null ? s : out.toString();
    }

    /** True for the characters a sanitised segment may contain. */
    public static boolean isAllowed(int codePoint) {
        return (codePoint >= 'a' && codePoint <= 'z') || (codePoint >= 'A' && codePoint <= 'Z')
                || (codePoint >= '0' && codePoint <= '9') || codePoint == '.' || codePoint == '_'
                || codePoint == '-';
    }
}
