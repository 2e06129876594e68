package dev.iggysink.application.table;

import java.time.Duration;

/**
 * How long a table sink's loop waits after a step. A step that read records is followed by the next at once; empty
 * steps wait {@code poll_interval}, then twice as long each time, up to {@link #CAP} (or the poll interval, when
 * longer). An idle sink then polls Iggy ten times a second instead of two hundred (at the default 5 ms), and a record
 * that arrives after a quiet spell is read at most {@link #CAP} later; once records flow, the pace is the poll
 * interval again. Against the commit interval (30 s by default), which decides when rows become visible, that wait is
 * small. Not thread-safe: one per loop.
 */
public final class IdlePacing {
    /** The longest wait between two polls of an idle loop, unless the poll interval is longer. */
    public static final Duration CAP = Duration.ofMillis(100);

    private final Duration poll;
    private final Duration cap;
    private Duration next;

    /** @param pollInterval the stream's {@code poll_interval}; 0 waits a millisecond, so that an idle loop yields */
    public IdlePacing(Duration pollInterval) {
        this.poll = pollInterval.isZero() || pollInterval.isNegative() ? Duration.ofMillis(1) : pollInterval;
        this.cap = poll.compareTo(CAP) > 0 ? poll : CAP;
        this.next = poll;
    }

    /** The wait after a step that read {@code read} records. */
    public Duration after(int read) {
        if (read > 0) {
            next = poll;
            return Duration.ZERO;
        }
        Duration wait = next;
        Duration doubled = next.multipliedBy(2);
        next = doubled.compareTo(cap) > 0 ? cap : doubled;
        return wait;
    }
}
