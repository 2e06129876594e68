package dev.iggysink.bootstrap;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Map;

/**
 * The sink's Logback configuration in code, found by Logback through {@code META-INF/services}: human-readable lines
 * on stderr, our loggers at INFO and third-party chatter at WARN. Code instead of a logback.xml because reading the
 * XML loads Logback's configuration model and the JDK's XML parser, hundreds of classes and their metaspace in
 * every sink process, for a dozen settings (figures: docs/performance.md, "Figures behind constants without a
 * decision record").
 *
 * <p>Logback's usual ways to configure it still win: {@code -Dlogback.configurationFile=...}, or a
 * {@code logback-test.xml} / {@code logback.xml} on the classpath (the test configurations of other modules are).
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_NORMAL_PRIORITY)
public final class LogbackConfigurator extends ContextAwareBase implements Configurator {
    static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{20} - %msg%n";
    static final String APPENDER = "STDERR";
    static final String CONFIGURATION_FILE = "logback.configurationFile";

    /**
     * Logger levels below the root's INFO. Parquet at DEBUG slows writes many times over; the others are chatty
     * (Iceberg logs every commit and metrics report, Hadoop every compressor it hands out; the table sink logs each
     * commit once itself). The Iggy client is off: every failure it logs ("Failed to send frame" on each call of a
     * restart) also fails the call it belongs to, and the sink reports that once per outage (a line when Iggy stops
     * answering, one when it is back).
     */
    static final Map<String, Level> LEVELS = Map.ofEntries(
            Map.entry("dev.iggysink", Level.INFO),
            Map.entry("org.apache.parquet", Level.WARN),
            Map.entry("org.apache.iceberg", Level.WARN),
            Map.entry("org.apache.hadoop", Level.WARN),
            Map.entry("org.apache.iggy", Level.OFF),
            Map.entry("io.netty", Level.WARN),
            Map.entry("software.amazon", Level.WARN),
            Map.entry("org.gaul", Level.WARN),
            Map.entry("org.eclipse.jetty", Level.WARN),
            Map.entry("okhttp3", Level.WARN),
            Map.entry("io.minio", Level.WARN));

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (configuredElsewhere(System.getProperty(CONFIGURATION_FILE), LogbackConfigurator.class.getClassLoader())) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        apply(context);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    static void apply(LoggerContext context) {
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName(APPENDER);
        stderr.setTarget("System.err");
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        stderr.setEncoder(encoder);
        stderr.start();
        LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(stderr);
    }

    /** Whether Logback's own configurator would find an XML file: the system property, then the classpath. */
    static boolean configuredElsewhere(String configurationFile, ClassLoader loader) {
        if (configurationFile != null) return true;
        return loader.getResource("logback-test.xml") != null || loader.getResource("logback.xml") != null;
    }
}
