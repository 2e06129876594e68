package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.status.Status;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The configuration in code does what the logback.xml it replaced did (kept as a test resource,
 * logback-before-code.xml, and read here with Logback's own XML configurator): same appender, same lines, same
 * levels.
 */
class LogbackConfiguratorTest {
    private static final String IGGY_CLIENT = "org.apache.iggy";
    private static final List<String> LOGGERS = List.of(Logger.ROOT_LOGGER_NAME, "dev.iggysink",
            "dev.iggysink.bootstrap.RunCommand", "dev.iggysink.application.pipeline.SinkPipeline",
            "org.apache.parquet.hadoop.ParquetWriter", "org.apache.iggy.client.async.tcp.AsyncTcpConnection",
            "io.netty.util.internal.PlatformDependent", "software.amazon.awssdk.request",
            "org.gaul.s3proxy.S3Proxy", "org.eclipse.jetty.server.Server", "okhttp3.OkHttpClient",
            "io.minio.MinioClient", "org.apache.http.wire", "org.apache.iceberg.SnapshotProducer",
            "org.apache.hadoop.io.compress.CodecPool", "com.example.Other");

    @Test
    void code_and_the_former_xml_give_the_same_levels_and_appenders() throws Exception {
        LoggerContext fromXml = fromXml();
        LoggerContext fromCode = fromCode();

        for (String name : LOGGERS) {
            if (name.startsWith(IGGY_CLIENT)) continue; // off since issue 35 item 7, see the next test
            assertThat(fromCode.getLogger(name).getEffectiveLevel()).as(name)
                    .isEqualTo(fromXml.getLogger(name).getEffectiveLevel());
        }
        assertThat(fromCode.getLogger("dev.iggysink.X").getEffectiveLevel()).isEqualTo(Level.INFO);
        assertThat(fromCode.getLogger("io.netty.X").getEffectiveLevel()).isEqualTo(Level.WARN);
        assertThat(fromCode.getLogger("org.apache.iceberg.SnapshotProducer").getEffectiveLevel()).isEqualTo(Level.WARN);
        assertThat(fromCode.getLogger("org.apache.hadoop.io.compress.CodecPool").getEffectiveLevel())
                .isEqualTo(Level.WARN);
        assertThat(names(fromCode)).isEqualTo(names(fromXml)).containsExactly("STDERR");
        ConsoleAppender<ILoggingEvent> code = stderr(fromCode);
        ConsoleAppender<ILoggingEvent> xml = stderr(fromXml);
        assertThat(code.getTarget()).isEqualTo(xml.getTarget()).isEqualTo("System.err");
        assertThat(code.isStarted()).isTrue();
        assertThat(((PatternLayoutEncoder) code.getEncoder()).getPattern())
                .isEqualTo(((PatternLayoutEncoder) xml.getEncoder()).getPattern());
        assertThat(errors(fromCode)).isEmpty();
        assertThat(errors(fromXml)).isEmpty();
        fromXml.stop();
        fromCode.stop();
    }

    @Test
    void the_iggy_clients_own_lines_are_off_since_the_sink_logs_each_outage_once() {
        LoggerContext fromCode = fromCode();
        // What the client logs for every call of a server restart, beside the sink's own line for the outage.
        Logger client = fromCode.getLogger(IGGY_CLIENT + ".client.async.tcp.AsyncTcpConnection");
        assertThat(client.isErrorEnabled()).isFalse();
        assertThat(fromCode.getLogger("dev.iggysink.adapters.iggy.IggyMessageSource").isWarnEnabled()).isTrue();
        fromCode.stop();
    }

    @Test
    void code_and_the_former_xml_print_the_same_bytes_on_stderr() throws Exception {
        LoggerContext fromXml = fromXml();
        LoggerContext fromCode = fromCode();

        // One exception for both: its stack trace names the line that made it.
        Exception thrown = new java.io.IOException("connection reset");
        String xml = printed(fromXml, thrown);
        String code = printed(fromCode, thrown);

        assertThat(errors(fromCode)).isEmpty();
        assertThat(code).isEqualTo(xml);
        // What the lines look like, so the comparison cannot pass on two empty outputs.
        assertThat(code.lines().findFirst().orElseThrow())
                .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO  \\[main\\] "
                        + "d\\.i\\.b\\.RunCommand - effective configuration of sink s3");
        assertThat(code).contains("WARN  [upload-1] d.i.a.p.SinkPipeline - put failed, retrying",
                "java.io.IOException: connection reset", "\tat ");
        fromXml.stop();
        fromCode.stop();
    }

    @Test
    void logback_finds_the_configuration_in_code_as_a_service() {
        List<Class<?>> found = new ArrayList<>();
        ServiceLoader.load(Configurator.class).forEach(c -> found.add(c.getClass()));
        assertThat(found).contains(LogbackConfigurator.class);
    }

    @Test
    void a_configuration_file_given_to_logback_wins() {
        ClassLoader none = resources(Set.of());
        assertThat(LogbackConfigurator.configuredElsewhere(null, none)).isFalse();
        assertThat(LogbackConfigurator.configuredElsewhere("/etc/iggy-s3-sink/logback.xml", none)).isTrue();
        assertThat(LogbackConfigurator.configuredElsewhere(null, resources(Set.of("logback.xml")))).isTrue();
        assertThat(LogbackConfigurator.configuredElsewhere(null, resources(Set.of("logback-test.xml")))).isTrue();
    }

    @Test
    void configured_elsewhere_it_leaves_the_context_to_the_next_configurator() {
        LoggerContext context = new LoggerContext();
        String before = System.getProperty(LogbackConfigurator.CONFIGURATION_FILE);
        System.setProperty(LogbackConfigurator.CONFIGURATION_FILE, "elsewhere.xml");
        try {
            LogbackConfigurator configurator = new LogbackConfigurator();
            configurator.setContext(context);
            assertThat(configurator.configure(context)).isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
        } finally {
            if (before == null) System.clearProperty(LogbackConfigurator.CONFIGURATION_FILE);
            else System.setProperty(LogbackConfigurator.CONFIGURATION_FILE, before);
        }
        assertThat(names(context)).isEmpty();
    }

    private static LoggerContext fromXml() throws Exception {
        LoggerContext context = context();
        JoranConfigurator joran = new JoranConfigurator();
        joran.setContext(context);
        URL xml = LogbackConfiguratorTest.class.getResource("logback-before-code.xml");
        assertThat(xml).isNotNull();
        joran.doConfigure(xml);
        return context;
    }

    private static LoggerContext fromCode() {
        LoggerContext context = context();
        LogbackConfigurator.apply(context);
        return context;
    }

    /** A context as Logback's own start-up makes it (the MDC adapter is what SLF4J's binding would set). */
    private static LoggerContext context() {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
        return context;
    }

    /** The events through the context's stderr appender, with System.err captured. */
    private static String printed(LoggerContext context, Exception thrown) {
        long at = 1_790_000_000_123L;
        LoggingEvent info = event(context, "dev.iggysink.bootstrap.RunCommand", Level.INFO,
                "effective configuration of sink {}", null, "s3", "main", at);
        LoggingEvent warn = event(context, "dev.iggysink.application.pipeline.SinkPipeline", Level.WARN,
                "put failed, retrying", thrown, null, "upload-1", at + 1);
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            stderr(context).doAppend(info);
            stderr(context).doAppend(warn);
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    private static LoggingEvent event(LoggerContext context, String logger, Level level, String message,
            Throwable thrown, Object arg, String thread, long at) {
        LoggingEvent event = new LoggingEvent(Logger.class.getName(), context.getLogger(logger), level, message,
                thrown, arg == null ? null : new Object[] {arg});
        event.setThreadName(thread);
        event.setTimeStamp(at);
        return event;
    }

    private static ConsoleAppender<ILoggingEvent> stderr(LoggerContext context) {
        Appender<ILoggingEvent> appender = context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR");
        assertThat(appender).isInstanceOf(ConsoleAppender.class);
        return (ConsoleAppender<ILoggingEvent>) appender;
    }

    private static List<String> names(LoggerContext context) {
        List<String> names = new ArrayList<>();
        context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders().forEachRemaining(a -> names.add(a.getName()));
        return names;
    }

    private static List<Status> errors(LoggerContext context) {
        return context.getStatusManager().getCopyOfStatusList().stream().filter(s -> s.getLevel() >= Status.WARN)
                .toList();
    }

    /** A class loader that finds only the given resource names. */
    private static ClassLoader resources(Set<String> present) {
        return new ClassLoader(null) {
            @Override
            public URL getResource(String name) {
                try {
                    return present.contains(name) ? new URL("file:/" + name) : null;
                } catch (java.net.MalformedURLException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }
}
