package dev.iggysink.application.settings;

import java.time.Duration;
import java.util.Objects;

/** {@code max_attempts} (0 and 1 both mean one attempt) and {@code retry_delay} (the base of the backoff). */
public record RetrySettings(int maxAttempts, Duration retryDelay) {
    public RetrySettings {
        Objects.requireNonNull(retryDelay, "retryDelay");
        if (maxAttempts < 0) throw new IllegalArgumentException("maxAttempts must be >= 0");
        if (retryDelay.isNegative()) throw new IllegalArgumentException("retryDelay must be >= 0");
    }

    public static RetrySettings defaults() {
        return new RetrySettings(3, Duration.ofSeconds(1));
    }
}
