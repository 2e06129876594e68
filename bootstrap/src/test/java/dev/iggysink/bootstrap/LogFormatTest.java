package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class LogFormatTest {
    @Test
    void the_format_is_found_in_the_raw_arguments_in_both_spellings_and_any_case() {
        assertThat(LogFormat.fromArgs(new String[] {"run", "-c", "x.toml", "--log-format", "json"}))
                .contains(LogFormat.JSON);
        assertThat(LogFormat.fromArgs(new String[] {"run", "--log-format=JSON", "-c", "x.toml"}))
                .contains(LogFormat.JSON);
        assertThat(LogFormat.fromArgs(new String[] {"run", "--log-format", "text"})).contains(LogFormat.TEXT);
        assertThat(LogFormat.fromArgs(new String[] {"run", "-c", "x.toml"})).isEmpty();
        assertThat(LogFormat.fromArgs(new String[] {"run", "--log-format"})).isEmpty();
        assertThat(LogFormat.fromArgs(new String[] {"run", "--log-format", "xml"})).isEmpty();
    }

    @Test
    void picocli_rejects_an_unknown_format() {
        assertThat(new LogFormat.Converter().convert("Json")).isEqualTo(LogFormat.JSON);
        assertThatThrownBy(() -> new LogFormat.Converter().convert("xml"))
                .isInstanceOf(CommandLine.TypeConversionException.class).hasMessageContaining("text or json");
    }

    @Test
    void json_turns_every_event_into_one_parseable_line_with_the_formatted_message() {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
        appender.setContext(context);
        PatternLayoutEncoder text = new PatternLayoutEncoder();
        text.setContext(context);
        text.setPattern("%level %msg%n");
        text.start();
        appender.setEncoder(text);
        appender.setOutputStream(sink);
        appender.start();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(appender);

        root.info("before {}", "switch");
        LogFormat.JSON.applyTo(context);
        LogFormat.JSON.applyTo(context);
        context.getLogger("dev.iggysink.X").warn("effective configuration of sink {}:\n  a \"quoted\" line", "s3");

        List<String> lines = sink.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).as(context.getStatusManager().getCopyOfStatusList().toString()).isNotEmpty();
        assertThat(lines.get(0)).isEqualTo("INFO before switch");
        List<String> json = lines.subList(1, lines.size()).stream().filter(l -> l.startsWith("{")).toList();
        assertThat(json).hasSize(1);
        JsonNode event = JsonMapper.builder().build().readTree(json.get(0));
        assertThat(event.get("level").asString()).isEqualTo("WARN");
        assertThat(event.get("loggerName").asString()).isEqualTo("dev.iggysink.X");
        assertThat(event.get("formattedMessage").asString())
                .isEqualTo("effective configuration of sink s3:\n  a \"quoted\" line");
        assertThat(event.get("timestamp").asLong()).isPositive();
        context.stop();
    }

    @Test
    void text_leaves_the_configured_encoder_alone() {
        LoggerContext context = new LoggerContext();
        OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
        PatternLayoutEncoder text = new PatternLayoutEncoder();
        appender.setEncoder(text);
        context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(appender);
        LogFormat.TEXT.applyTo(context);
        assertThat(appender.getEncoder()).isSameAs(text);
        assertThat(Optional.of(LogFormat.JSON).map(Object::toString)).contains("json");
    }
}
