package dev.iggysink.application.service;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** Requests from outside the consumer loops (stop, pause, flush) and the first fatal error any loop met. */
final class Controls {
    volatile boolean stopping;
    volatile boolean paused;
    /** A second stop signal: stop waiting for uploads, report what is not durable. */
    volatile boolean hurry;
    final AtomicLong flushRequests = new AtomicLong();
    final AtomicReference<String> fatal = new AtomicReference<>();

    void fail(String message) {
        fatal.compareAndSet(null, message);
        stopping = true;
    }
}
