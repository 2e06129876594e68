package dev.iggysink.domain.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BackoffTest {

    @ParameterizedTest(name = "base {0} cap {1} jitter {2}: retry {3}, retry-after {4}, random {5} -> {6}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # base  | cap   | jitter | retry | retry-after | random | delay
            PT1S    | PT60S | 0      | 1     | -           | 0      | PT1S
            PT1S    | PT60S | 0      | 2     | -           | 0.9    | PT2S
            PT1S    | PT60S | 0      | 6     | -           | 0      | PT32S
            PT1S    | PT60S | 0      | 7     | -           | 0      | PT60S
            PT1S    | PT60S | 0      | 1000  | -           | 0      | PT60S
            PT1S    | PT60S | 0.5    | 3     | -           | 0.5    | PT3S
            PT1S    | PT60S | 1      | 3     | -           | 0      | PT4S
            PT1S    | PT60S | 0.2    | 10    | -           | 0.5    | PT54S
            PT1S    | PT60S | 0      | 1     | PT10S       | 0      | PT10S
            PT1S    | PT60S | 0      | 6     | PT10S       | 0      | PT32S
            PT1S    | PT60S | 0      | 1     | PT300S      | 0      | PT60S
            PT0S    | PT60S | 0.5    | 9     | -           | 0.3    | PT0S
            PT0S    | PT60S | 0.5    | 9     | PT2S        | 0.3    | PT2S
            PT0.1S  | PT5S  | 0      | 3     | -           | 0      | PT0.4S
            PT100S  | PT60S | 0      | 1     | -           | 0      | PT60S
            """)
    void delay_table(Duration base, Duration cap, double jitter, int retry, Duration retryAfter, double random,
                     Duration expected) {
        assertThat(new Backoff(base, cap, jitter).delay(retry, Optional.ofNullable(retryAfter), random))
                .isEqualTo(expected);
    }

    @Test
    void the_delay_settles_at_the_cap_and_the_jitter_only_shortens_it() {
        Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), Backoff.DEFAULT_JITTER);
        assertThat(backoff.delay(50, Optional.empty(), 0)).isEqualTo(Duration.ofSeconds(10));
        assertThat(backoff.delay(1, Optional.empty(), 0.999)).isBetween(Duration.ofMillis(800), Duration.ofSeconds(1));
    }

    @Test
    void rejects_nonsense() {
        Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), Backoff.DEFAULT_JITTER);
        assertThatThrownBy(() -> b.delay(0, Optional.empty(), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.delay(1, Optional.empty(), 1.0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.delay(1, Optional.empty(), -0.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 1.5))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(-1), Duration.ofSeconds(1), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
