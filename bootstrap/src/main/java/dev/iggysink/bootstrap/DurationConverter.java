package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.Durations;
import java.time.Duration;
import picocli.CommandLine;

/**
 * Duration options ({@code 30s}, {@code 1h}, {@code 1h 30m}) in the same syntax as the config file, and more than
 * zero: every duration option of the command line is an interval.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        Duration d;
        try {
            d = Durations.parse(value);
        } catch (IllegalArgumentException e) {
            String why = e.getMessage().equals("not a duration") ? "" : e.getMessage() + "; ";
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration (" + why
                    + "write it like 30s, 500ms, 1h or 1h 30m)");
        }
        if (d.isZero()) throw new CommandLine.TypeConversionException("must be more than zero, was '" + value + "'");
        return d;
    }
}
