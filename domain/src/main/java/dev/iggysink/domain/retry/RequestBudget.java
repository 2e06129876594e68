package dev.iggysink.domain.retry;

import java.time.Duration;
import java.time.Instant;

/**
 * Requests a minute, as a token bucket holding at most ten seconds' budget: what keeps the self-audits (of objects and
 * of tables) within the operator's {@code self_audit_requests_per_minute}. Not thread-safe: one auditing thread.
 */
public final class RequestBudget {
    private final int perMinute;
    private double tokens;
    private Instant refilledAt;
    private long spent;

    public RequestBudget(int perMinute, Instant start) {
        if (perMinute <= 0) throw new IllegalArgumentException("requestsPerMinute must be > 0");
        this.perMinute = perMinute;
        this.refilledAt = start;
        this.tokens = capacity();
    }

    /**
     * Spends {@code n} requests at {@code now} if the budget allows them and answers zero; otherwise spends nothing
     * and answers how long to wait before asking again.
     */
    public Duration trySpend(int n, Instant now) {
        long nanos = Duration.between(refilledAt, now).toNanos();
        if (nanos > 0) {
            tokens = Math.min(capacity(), tokens + nanos * (perMinute / 60e9));
            refilledAt = now;
        }
        double missing = Math.min(n, capacity()) - tokens;
        if (missing > 0) return Duration.ofNanos(Math.max(1_000_000L, (long) Math.ceil(missing * 60e9 / perMinute)));
        tokens -= n;
        spent += n;
        return Duration.ZERO;
    }

    /** Requests spent since the start. */
    public long spent() {
        return spent;
    }

    /** A burst of at most ten seconds' budget. */
    private double capacity() {
        return Math.max(1, perMinute / 6.0);
    }
}
