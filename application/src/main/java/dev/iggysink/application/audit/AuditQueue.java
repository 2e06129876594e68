package dev.iggysink.application.audit;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * What the consumer loops hand to an audit's thread, at most {@code limit} waiting: past it an item is not kept but
 * counted ({@link #skipped}), so a store slower than the commits costs the audit its detail, never the sink memory.
 * Thread-safe.
 */
public final class AuditQueue<T> {
    private final int limit;
    private final ConcurrentLinkedQueue<T> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong skipped = new AtomicLong();

    public AuditQueue(int limit) {
        this.limit = limit;
    }

    /** Adds {@code item}, or counts it skipped when {@code limit} items wait already. */
    public void add(T item) {
        if (queued.incrementAndGet() > limit) {
            queued.decrementAndGet();
            skipped.incrementAndGet();
            return;
        }
        queue.add(item);
    }

    /** The item that waited longest, taken out; null when none waits. */
    public T poll() {
        T item = queue.poll();
        if (item != null) queued.decrementAndGet();
        return item;
    }

    /** Takes out every waiting item {@code drop} accepts. */
    public void removeIf(Predicate<T> drop) {
        queue.removeIf(item -> {
            boolean gone = drop.test(item);
            if (gone) queued.decrementAndGet();
            return gone;
        });
    }

    /** Items not kept because the queue was full. */
    public long skipped() {
        return skipped.get();
    }
}
