package dev.iggysink.domain.delivery;

/**
 * A ceiling on the records a poll asks for, dropped to one record when the source runs out of memory taking an answer
 * in and raised again by full answers. Polls are sized by the records read last; when records grow at once (100 B,
 * then 4 MiB), the next poll asks for as many as small ones fit, the client cannot take the answer in, and the same
 * poll asked again fails again: the partition would stand still for good. After such a failure a poll asks for one
 * record, and each answer as full as asked doubles the ceiling until it no longer binds, while the records read size
 * the polls as before; a ceiling only quartered could land on an answer the direct memory takes in and the heap does
 * not (62 records of 4 MiB on the launcher's 256 MiB). Not thread-safe: one per consumer loop.
 */
public final class PollCeiling {
    private static final int NONE = Integer.MAX_VALUE;
    private int ceiling = NONE;

    /** {@code size}, or less while the ceiling is lowered. */
    public int apply(int size) {
        return Math.min(size, ceiling);
    }

    /** A poll failed; {@code outOfMemory}: the source could not take its answer in, so one record a poll. */
    public void failed(boolean outOfMemory) {
        if (outOfMemory) ceiling = 1;
    }

    /** A poll of {@code asked} records answered {@code got}: a full answer raises a lowered ceiling. */
    public void answered(int asked, int got) {
        if (ceiling == NONE || got < asked) return;
        ceiling = ceiling >= NONE / 2 ? NONE : ceiling * 2;
    }

    /** The ceiling now, {@link Integer#MAX_VALUE} when it does not bind. */
    public int ceiling() {
        return ceiling;
    }
}
