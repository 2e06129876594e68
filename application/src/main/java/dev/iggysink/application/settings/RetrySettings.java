package dev.iggysink.application.settings;

import java.time.Duration;
import java.util.Objects;

/**
 * {@code max_attempts} (0 and 1 both mean one attempt), {@code retry_delay} (the base of the backoff) and
 * {@code retry_max_delay} (its cap: no wait between two attempts is longer).
 */
public record RetrySettings(int maxAttempts, Duration retryDelay, Duration retryMaxDelay) {
    /**
     * Well under a minute: an upload waiting out its backoff is also tried again as soon as a probe sees the store
     * answer, but a store that answers the probe while refusing puts is only retried at this pace.
     */
    public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(10);

    public RetrySettings {
        Objects.requireNonNull(retryDelay, "retryDelay");
        Objects.requireNonNull(retryMaxDelay, "retryMaxDelay");
        if (maxAttempts < 0) throw new IllegalArgumentException("maxAttempts must be >= 0");
        if (retryDelay.isNegative()) throw new IllegalArgumentException("retryDelay must be >= 0");
        if (retryMaxDelay.isNegative() || retryMaxDelay.isZero()) {
            throw new IllegalArgumentException("retryMaxDelay must be > 0");
        }
    }

    public static RetrySettings defaults() {
        return new RetrySettings(3, Duration.ofSeconds(1), DEFAULT_MAX_DELAY);
    }
}
