package dev.iggysink.application.service;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** Requests from outside the consumer loops (stop, pause, flush) and the first fatal error any loop met. */
final class Controls {
    volatile boolean stopping;
    volatile boolean paused;
    /** Since when and at whose request polling is paused; null while not paused. */
    volatile Pause pause;
    /** A second stop signal: stop waiting for uploads, report what is not durable. */
    volatile boolean hurry;
    final AtomicLong flushRequests = new AtomicLong();
    final AtomicReference<String> fatal = new AtomicReference<>();
    /** How many topics the sink consumes, set before its loops start. */
    volatile int topics;
    /** Topics found missing (deleted while running); once every topic is, nothing is left to consume. */
    final java.util.Set<String> missingTopics = java.util.concurrent.ConcurrentHashMap.newKeySet();

    record Pause(java.time.Instant since, String requestedBy) {
    }

    void topicMissing(String topic, boolean isMissing) {
        if (!isMissing) {
            missingTopics.remove(topic);
            return;
        }
        missingTopics.add(topic);
        if (topics > 0 && missingTopics.size() >= topics) {
            fail("nothing left to consume: every topic of the sink is missing ("
                    + String.join(", ", new java.util.TreeSet<>(missingTopics)) + ")");
        }
    }

    void fail(String message) {
        fatal.compareAndSet(null, message);
        stopping = true;
    }
}
