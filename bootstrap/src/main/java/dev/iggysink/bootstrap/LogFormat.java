package dev.iggysink.bootstrap;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import java.util.Iterator;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * How log lines look: {@code text} (logback.xml's pattern, for people) or {@code json} (one JSON object per line,
 * for a log shipper). JSON keeps logback.xml's appenders and levels and only swaps their encoder, so both formats
 * log exactly the same events.
 */
enum LogFormat {
    TEXT, JSON;

    static final String OPTION = "--log-format";

    /**
     * The format asked for on the command line, found before picocli runs: {@code Main.main} must switch the
     * format before the first line is logged, and picocli parses only after logging is up.
     */
    static Optional<LogFormat> fromArgs(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String value = null;
            if (args[i].equals(OPTION) && i + 1 < args.length) value = args[i + 1];
            else if (args[i].startsWith(OPTION + "=")) value = args[i].substring(OPTION.length() + 1);
            if (value != null) return parse(value);
        }
        return Optional.empty();
    }

    static Optional<LogFormat> parse(String value) {
        for (LogFormat f : values()) {
            if (f.name().equalsIgnoreCase(value.strip())) return Optional.of(f);
        }
        return Optional.empty();
    }

    /** Switches the console appenders to this format; calling it twice is harmless. */
    void apply() {
        if (this == TEXT) return;
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (factory instanceof LoggerContext context) applyTo(context);
    }

    void applyTo(LoggerContext context) {
        if (this == TEXT) return;
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
            if (it.next() instanceof OutputStreamAppender<ILoggingEvent> out
                    && !(out.getEncoder() instanceof JsonEncoder)) {
                JsonEncoder encoder = new JsonEncoder();
                encoder.setContext(context);
                encoder.setWithSequenceNumber(false);
                encoder.setWithNanoseconds(false);
                encoder.setWithContext(false);
                encoder.setWithArguments(false);
                encoder.setWithMessage(false);
                encoder.setWithFormattedMessage(true);
                encoder.start();
                // Not stopped and restarted: stopping closes the appender's stream. Main.main swaps before any
                // other thread exists, so no event can be mid-write.
                out.setEncoder(encoder);
            }
        }
    }

    /** Lets picocli accept {@code json} / {@code text} in any case. */
    static final class Converter implements CommandLine.ITypeConverter<LogFormat> {
        @Override
        public LogFormat convert(String value) {
            return parse(value).orElseThrow(() -> new CommandLine.TypeConversionException(
                    "'" + value + "' is not a log format: use text or json"));
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
