package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 33, item 5: two (stream, topic) pairs that would write the same object keys are refused by the core itself,
 * not only by the config loader, with the message {@code validate} prints.
 */
class SharedKeysRefusedTest {
    private static SinkService build(StreamSettings... streams) {
        SinkSettings base = TestSettings.countRotation(streams[0], 100);
        SinkSettings settings = new SinkSettings(base.key(), base.name(), true, 0, false, List.of(streams),
                base.output(), base.rotation(), base.retry(), base.delivery(), base.transforms());
        return new SinkService(settings, (s, t, g) -> new ScriptedMessageSource(s, t, 1), s -> new LinesCodec(),
                new InMemoryObjectStore(), InstantSource.system(), d -> { }, SinkMetrics.NONE);
    }

    @Test
    void two_topics_whose_names_sanitise_alike_cannot_be_built_into_one_sink() {
        assertThatThrownBy(() -> build(TestSettings.stream("app", "a b", "a_b")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("stream \"app\" topic \"a b\" and stream \"app\" topic \"a_b\" would write the same object "
                        + "keys (names are sanitised: every character other than ASCII letters, digits, '.', '_' and "
                        + "'-' becomes '_')");
    }

    @Test
    void two_streams_whose_names_sanitise_alike_cannot_be_built_into_one_sink() {
        assertThatThrownBy(() -> build(TestSettings.stream("application_logs", "errors"),
                TestSettings.stream("application logs", "errors")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("stream \"application_logs\" topic \"errors\" and stream \"application logs\" topic "
                        + "\"errors\" would write the same object keys (names are sanitised: every character other "
                        + "than ASCII letters, digits, '.', '_' and '-' becomes '_')");
    }

    @Test
    void distinct_names_build() {
        assertThatCode(() -> build(TestSettings.stream("app", "a b", "c"), TestSettings.stream("billing", "a b")))
                .doesNotThrowAnyException();
    }
}
