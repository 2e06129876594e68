package dev.iggysink.adapters.config;

import dev.iggysink.domain.Seeded;
import static dev.iggysink.domain.Seeded.longBetween;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
            "100ms      | PT0.1S",
            "1s         | PT1S",
            "5m         | PT5M",
            "1h 30m     | PT1H30M",
            "1h30m      | PT1H30M",
            "2days      | PT48H",
            "2d         | PT48H",
            "1week      | PT168H",
            "0          | PT0S",
            "0s         | PT0S",
            "5ms        | PT0.005S",
            "250us      | PT0.00025S",
            "10ns       | PT0.00000001S",
            "1min 2sec  | PT1M2S",
            "3 hours    | PT3H",
            "1M         | PT730H33M36S",
            "1y         | PT8766H",
    })
    void parses_humantime(String text, Duration expected) {
        assertThat(Durations.parse(text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "5", "fast", "1 sec x", "5 minutes ago", "-1s", "1.5s", "1S", "none", "1h,30m"})
    void rejects_what_humantime_rejects(String text) {
        assertThatThrownBy(() -> Durations.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "disabled", "unlimited", "NONE", "0"})
    void iggy_words_mean_zero_for_poll_interval(String text) {
        assertThat(Durations.parseIggy(text)).isZero();
    }

    @Test
    void iggy_parse_still_reads_ordinary_durations() {
        assertThat(Durations.parseIggy("5ms")).isEqualTo(Duration.ofMillis(5));
        assertThatThrownBy(() -> Durations.parseIggy("never")).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest(name = "{0} prints as {1}")
    @CsvSource({"PT1H30M, 1h 30m", "PT0.1S, 100ms", "PT0S, 0s", "PT49H, 2d 1h", "PT1.5S, 1s 500ms"})
    void formats_readably(Duration d, String text) {
        assertThat(Durations.format(d)).isEqualTo(text);
    }

    @Test
    void format_and_parse_round_trip() {
        Seeded.check(1000, r -> {
            // every unit from nanoseconds to weeks gets its share, not only the large values a uniform pick favours
            long nanos = longBetween(r, 0, r.nextBoolean() ? 10_000_000_000_000L : 1L << r.nextInt(44));
            Duration d = Duration.ofNanos(nanos);
            assertThat(Durations.parse(Durations.format(d))).as("%s formatted as %s", d, Durations.format(d))
                    .isEqualTo(d);
        });
    }
}
