package dev.iggysink.domain.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RetryPolicyTest {

    @ParameterizedTest(name = "max {0} -> {1} attempts")
    @CsvSource({"0, 1", "1, 1", "2, 2", "3, 3", "10, 10"})
    void zero_and_one_both_mean_one_attempt(int max, int attempts) {
        RetryPolicy policy = new RetryPolicy(max, new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), Backoff.DEFAULT_JITTER));
        assertThat(policy.attempts()).isEqualTo(attempts);
        assertThat(policy.mayRetryAfter(attempts - 1)).isTrue();
        assertThat(policy.mayRetryAfter(attempts)).isFalse();
    }

    @ParameterizedTest(name = "HTTP {0} retryable: {1}")
    @CsvSource({"0, true", "408, true", "429, true", "500, true", "502, true", "503, true", "599, true",
            "200, false", "400, false", "403, false", "404, false", "409, false", "412, false", "600, false"})
    void retryable_statuses(int status, boolean retryable) {
        assertThat(RetryPolicy.retryableStatus(status)).isEqualTo(retryable);
    }

    @Test
    void delegates_delay_to_the_backoff() {
        RetryPolicy policy = new RetryPolicy(3, new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), 0));
        assertThat(policy.delay(2, Optional.empty(), 0)).isEqualTo(Duration.ofMillis(200));
        assertThatThrownBy(() -> new RetryPolicy(-1, policy.backoff())).isInstanceOf(IllegalArgumentException.class);
    }
}
