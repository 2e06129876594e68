package dev.iggysink.bootstrap;

import java.time.Duration;
import picocli.CommandLine;

/** "30s", "500ms", "2m" for command-line options. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        String v = value.trim().toLowerCase(java.util.Locale.ROOT);
        if (v.endsWith("ms")) return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        if (v.endsWith("s")) return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
        if (v.endsWith("m")) return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
        return Duration.ofSeconds(Long.parseLong(v));
    }
}
