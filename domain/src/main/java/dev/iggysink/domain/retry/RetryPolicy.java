package dev.iggysink.domain.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How often to try one operation and how long to wait in between. {@code maxAttempts} counts the first try, and
 * 0 means the same as 1 (the Rust sink's {@code max_retries} semantics as the config reference maps them).
 */
public record RetryPolicy(int maxAttempts, Backoff backoff) {
    public RetryPolicy {
        Objects.requireNonNull(backoff, "backoff");
        if (maxAttempts < 0) throw new IllegalArgumentException("max attempts must be >= 0, was " + maxAttempts);
    }

    public int attempts() {
        return Math.max(1, maxAttempts);
    }

    /** True when another attempt is allowed after {@code attemptsMade} attempts failed. */
    public boolean mayRetryAfter(int attemptsMade) {
        return attemptsMade < attempts();
    }

    /** The wait before retry number {@code retry} (1 = the second attempt). */
    public Duration delay(int retry, Optional<Duration> retryAfter, double random) {
        return backoff.delay(retry, retryAfter, random);
    }

    /** HTTP 408, 429 and 5xx are worth retrying; 0 stands for a transport error (no response), also retryable. */
    public static boolean retryableStatus(int httpStatus) {
        return httpStatus == 0 || httpStatus == 408 || httpStatus == 429 || (httpStatus >= 500 && httpStatus <= 599);
    }
}
