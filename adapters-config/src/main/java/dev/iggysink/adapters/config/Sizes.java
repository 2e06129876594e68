package dev.iggysink.adapters.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Byte sizes as the Rust sink writes them: {@code 8MiB} (binary), {@code 10MB} (decimal), {@code 512B}, a plain
 * integer; unit case-insensitive, optional space before it, decimals allowed ({@code 1.5GiB}) and rounded down.
 */
public final class Sizes {
    private static final Pattern SIZE = Pattern.compile("^\\s*(\\d+(?:\\.\\d+)?)\\s*([A-Za-z]*)\\s*$");
    private static final Map<String, Long> UNITS = Map.ofEntries(
            Map.entry("", 1L), Map.entry("b", 1L),
            Map.entry("kb", 1_000L), Map.entry("kib", 1L << 10),
            Map.entry("mb", 1_000_000L), Map.entry("mib", 1L << 20),
            Map.entry("gb", 1_000_000_000L), Map.entry("gib", 1L << 30),
            Map.entry("tb", 1_000_000_000_000L), Map.entry("tib", 1L << 40),
            Map.entry("pb", 1_000_000_000_000_000L), Map.entry("pib", 1L << 50));
    private static final BigDecimal MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private Sizes() {
    }

    /**
     * @return the number of bytes
     * @throws IllegalArgumentException when the text is not a size (the message does not repeat the text)
     */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size");
        }
        Long unit = UNITS.get(m.group(2).toLowerCase(Locale.ROOT));
        if (unit == null) {
            throw new IllegalArgumentException("unknown size unit");
        }
        BigDecimal bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit))
                .setScale(0, RoundingMode.DOWN);
        if (bytes.compareTo(MAX) > 0) {
            throw new IllegalArgumentException("size too large");
        }
        return bytes.longValueExact();
    }

    /** Renders a byte count the way a person would write it in the file: the largest exact binary unit. */
    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        int i = 0;
        long value = bytes;
        while (i < units.length - 1 && value != 0 && value % 1024 == 0) {
            value /= 1024;
            i++;
        }
        return value + units[i];
    }
}
