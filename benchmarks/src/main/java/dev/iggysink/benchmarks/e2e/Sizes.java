package dev.iggysink.benchmarks.e2e;

import java.util.Locale;

/**
 * Bench option values: a byte size as the sink's config writes it ({@code 100}, {@code 1KiB}, {@code 8 MiB},
 * {@code 10MB}), parsed by the config's own rule, or a count with a decimal suffix ({@code 1M}, {@code 640k}); digit
 * separators ({@code 1_000_000}, {@code 1,000}) are allowed in both.
 */
final class Sizes {
    private Sizes() {
    }

    static long parse(String text) {
        String t = text.trim().replace("_", "").replace(",", "");
        String lower = t.toLowerCase(Locale.ROOT);
        if (lower.endsWith("k")) return count(t, 1_000);
        if (lower.endsWith("m")) return count(t, 1_000_000);
        try {
            return dev.iggysink.adapters.config.Sizes.parse(t);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(text + " is " + e.getMessage(), e);
        }
    }

    private static long count(String t, long unit) {
        return Math.multiplyExact(Long.parseLong(t.substring(0, t.length() - 1).trim()), unit);
    }

    static String human(long bytes) {
        return dev.iggysink.adapters.config.Sizes.format(bytes);
    }
}
