package dev.iggysink.application.service;

import dev.iggysink.domain.retry.Backoff;
import java.time.Instant;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Per-partition backoff of polls: a partition whose polls fail waits its own growing delay while the others are
 * polled as usual. Used by one consumer loop thread.
 */
final class PollGate {
    private static final class State {
        int failures;
        Instant notBefore = Instant.MIN;
    }

    private final Backoff backoff;
    private final Map<Object, State> states = new IdentityHashMap<>();

    PollGate(Backoff backoff) {
        this.backoff = backoff;
    }

    boolean due(Object partition, Instant now) {
        State s = states.get(partition);
        return s == null || !now.isBefore(s.notBefore);
    }

    void failed(Object partition, Instant now) {
        State s = states.computeIfAbsent(partition, k -> new State());
        s.failures++;
        s.notBefore = now.plus(backoff.delay(Math.min(s.failures, 30), Optional.empty(),
                ThreadLocalRandom.current().nextDouble()));
    }

    void succeeded(Object partition) {
        states.remove(partition);
    }
}
