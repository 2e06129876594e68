package dev.iggysink.domain.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Exponential backoff: {@code base · 2^(retry−1)}, minus up to {@code jitter} of itself (so parallel retries
 * spread out), never above {@code cap}. A server's Retry-After is honoured as a lower bound but is capped as well,
 * so one misbehaving store cannot stall a partition for longer than the cap.
 */
public record Backoff(Duration base, Duration cap, double jitter) {
    public static final double DEFAULT_JITTER = 0.2;

    public Backoff {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(cap, "cap");
        if (base.isNegative()) throw new IllegalArgumentException("base must be >= 0, was " + base);
        if (cap.isNegative()) throw new IllegalArgumentException("cap must be >= 0, was " + cap);
        if (!(jitter >= 0 && jitter <= 1)) throw new IllegalArgumentException("jitter must be in [0,1], was " + jitter);
    }

    /**
     * @param retry      1 for the first retry (the second attempt)
     * @param retryAfter the server's Retry-After, if it sent one
     * @param random     uniform in [0,1), supplied by the caller so the maths stays deterministic
     */
    public Duration delay(int retry, Optional<Duration> retryAfter, double random) {
        if (retry < 1) throw new IllegalArgumentException("retry must be >= 1, was " + retry);
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (!(random >= 0 && random < 1)) throw new IllegalArgumentException("random must be in [0,1), was " + random);
        long capNanos = saturatedNanos(cap);
        long value = Math.min(exponentialNanos(saturatedNanos(base), retry - 1), capNanos);
        value -= (long) (value * jitter * random);
        if (retryAfter.isPresent() && !retryAfter.get().isNegative()) {
            value = Math.max(value, Math.min(saturatedNanos(retryAfter.get()), capNanos));
        }
        return Duration.ofNanos(value);
    }

    private static long exponentialNanos(long baseNanos, int doublings) {
        if (baseNanos == 0) return 0;
        if (doublings >= 63 || baseNanos > (Long.MAX_VALUE >> doublings)) return Long.MAX_VALUE;
        return baseNanos << doublings;
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }
}
