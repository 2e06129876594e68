package dev.iggysink.adapters.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations in the humantime syntax the Rust runtime uses: one or more {@code <integer><unit>} parts, optionally
 * separated by spaces ({@code 100ms}, {@code 1h 30m}, {@code 2days}); {@code 0} alone means zero. Units are case
 * sensitive as in humantime ({@code M} is a month, {@code m} a minute).
 */
public final class Durations {
    private static final Pattern PART = Pattern.compile("\\s*(\\d+)\\s*([A-Za-zµ]+)\\s*");
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final Map<String, Long> UNIT_NANOS = Map.ofEntries(
            Map.entry("nanos", 1L), Map.entry("nsec", 1L), Map.entry("ns", 1L),
            Map.entry("micros", 1_000L), Map.entry("usec", 1_000L), Map.entry("us", 1_000L),
            Map.entry("µs", 1_000L),
            Map.entry("millis", 1_000_000L), Map.entry("msec", 1_000_000L), Map.entry("ms", 1_000_000L),
            Map.entry("seconds", NANOS_PER_SECOND), Map.entry("second", NANOS_PER_SECOND),
            Map.entry("secs", NANOS_PER_SECOND), Map.entry("sec", NANOS_PER_SECOND), Map.entry("s", NANOS_PER_SECOND),
            Map.entry("minutes", 60 * NANOS_PER_SECOND), Map.entry("minute", 60 * NANOS_PER_SECOND),
            Map.entry("mins", 60 * NANOS_PER_SECOND), Map.entry("min", 60 * NANOS_PER_SECOND),
            Map.entry("m", 60 * NANOS_PER_SECOND),
            Map.entry("hours", 3_600 * NANOS_PER_SECOND), Map.entry("hour", 3_600 * NANOS_PER_SECOND),
            Map.entry("hrs", 3_600 * NANOS_PER_SECOND), Map.entry("hr", 3_600 * NANOS_PER_SECOND),
            Map.entry("h", 3_600 * NANOS_PER_SECOND),
            Map.entry("days", 86_400 * NANOS_PER_SECOND), Map.entry("day", 86_400 * NANOS_PER_SECOND),
            Map.entry("d", 86_400 * NANOS_PER_SECOND),
            Map.entry("weeks", 604_800 * NANOS_PER_SECOND), Map.entry("week", 604_800 * NANOS_PER_SECOND),
            Map.entry("w", 604_800 * NANOS_PER_SECOND),
            // humantime's month and year: 30.44 and 365.25 days
            Map.entry("months", 2_630_016 * NANOS_PER_SECOND), Map.entry("month", 2_630_016 * NANOS_PER_SECOND),
            Map.entry("M", 2_630_016 * NANOS_PER_SECOND),
            Map.entry("years", 31_557_600 * NANOS_PER_SECOND), Map.entry("year", 31_557_600 * NANOS_PER_SECOND),
            Map.entry("y", 31_557_600 * NANOS_PER_SECOND));

    private Durations() {
    }

    /**
     * @throws IllegalArgumentException when the text is not a humantime duration (the message does not repeat it)
     */
    public static Duration parse(String text) {
        String trimmed = text.strip();
        if (trimmed.equals("0")) {
            return Duration.ZERO;
        }
        if (trimmed.isEmpty()) {
            throw new IllegalArgumentException("empty duration");
        }
        Matcher m = PART.matcher(trimmed);
        Duration total = Duration.ZERO;
        int end = 0;
        while (end < trimmed.length()) {
            if (!m.find(end) || m.start() != end) {
                throw new IllegalArgumentException("not a duration");
            }
            Long nanos = UNIT_NANOS.get(m.group(2));
            if (nanos == null) {
                throw new IllegalArgumentException("unknown duration unit");
            }
            try {
                total = total.plus(Duration.ofNanos(nanos).multipliedBy(Long.parseLong(m.group(1))));
            } catch (ArithmeticException | NumberFormatException e) {
                throw new IllegalArgumentException("duration too large", e);
            }
            end = m.end();
        }
        return total;
    }

    /**
     * Iggy's own duration type, used for {@code poll_interval}: as {@link #parse} plus {@code none},
     * {@code disabled} and {@code unlimited}, which mean zero.
     */
    public static Duration parseIggy(String text) {
        String word = text.strip().toLowerCase(Locale.ROOT);
        if (word.equals("none") || word.equals("disabled") || word.equals("unlimited")) {
            return Duration.ZERO;
        }
        return parse(text);
    }

    /** Renders a duration in the same syntax, for printing the effective configuration. */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        StringBuilder sb = new StringBuilder();
        long seconds = d.getSeconds();
        long[] sizes = {86_400, 3_600, 60, 1};
        String[] names = {"d", "h", "m", "s"};
        for (int i = 0; i < sizes.length; i++) {
            if (seconds >= sizes[i]) {
                sb.append(sb.isEmpty() ? "" : " ").append(seconds / sizes[i]).append(names[i]);
                seconds %= sizes[i];
            }
        }
        int nanos = d.getNano();
        if (nanos != 0) {
            String part = nanos % 1_000_000 == 0 ? nanos / 1_000_000 + "ms"
                    : nanos % 1_000 == 0 ? nanos / 1_000 + "us" : nanos + "ns";
            sb.append(sb.isEmpty() ? "" : " ").append(part);
        }
        return sb.toString();
    }
}
