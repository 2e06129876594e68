package dev.iggysink.benchmarks.e2e;

import java.util.Locale;

/** {@code 100}, {@code 1KiB}, {@code 8MiB}, {@code 1_000_000}, {@code 1M} (a count) to a number. */
final class Sizes {
    private Sizes() {
    }

    static long parse(String text) {
        String t = text.trim().replace("_", "").replace(",", "");
        String lower = t.toLowerCase(Locale.ROOT);
        long mult = 1;
        String digits = t;
        if (lower.endsWith("kib")) {
            mult = 1024;
            digits = t.substring(0, t.length() - 3);
        } else if (lower.endsWith("mib")) {
            mult = 1024 * 1024;
            digits = t.substring(0, t.length() - 3);
        } else if (lower.endsWith("gib")) {
            mult = 1024L * 1024 * 1024;
            digits = t.substring(0, t.length() - 3);
        } else if (lower.endsWith("k")) {
            mult = 1000;
            digits = t.substring(0, t.length() - 1);
        } else if (lower.endsWith("m")) {
            mult = 1_000_000;
            digits = t.substring(0, t.length() - 1);
        }
        return Long.parseLong(digits.trim()) * mult;
    }

    static String human(long bytes) {
        if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0) return bytes / (1024 * 1024) + "MiB";
        if (bytes >= 1024 && bytes % 1024 == 0) return bytes / 1024 + "KiB";
        return bytes + "B";
    }
}
