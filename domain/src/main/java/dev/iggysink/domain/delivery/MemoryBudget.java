package dev.iggysink.domain.delivery;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes held in open and not-yet-durable files across all partitions. Reserving never fails: when the budget is
 * exhausted the caller pauses polling (backpressure) rather than dropping anything. Thread-safe.
 */
public final class MemoryBudget {
    private final long max;
    private final AtomicLong used = new AtomicLong();

    public MemoryBudget(long maxBytes) {
        if (maxBytes <= 0) throw new IllegalArgumentException("memory budget must be > 0, was " + maxBytes);
        this.max = maxBytes;
    }

    public void reserve(long bytes) {
        requireNonNegative(bytes);
        used.getAndUpdate(u -> Math.addExact(u, bytes));
    }

    /** Gives bytes back; releasing more than is reserved is a bookkeeping bug and fails without changing anything. */
    public void release(long bytes) {
        requireNonNegative(bytes);
        used.getAndUpdate(u -> {
            if (bytes > u) {
                throw new IllegalStateException("releasing " + bytes + " bytes but only " + u + " are reserved");
            }
            return u - bytes;
        });
    }

    public long used() {
        return used.get();
    }

    public long max() {
        return max;
    }

    public long available() {
        return Math.max(0, max - used.get());
    }

    public boolean exhausted() {
        return used.get() >= max;
    }

    private static void requireNonNegative(long bytes) {
        if (bytes < 0) throw new IllegalArgumentException("bytes must be >= 0, was " + bytes);
    }

    @Override
    public String toString() {
        return "MemoryBudget[" + used.get() + "/" + max + "]";
    }
}
