package dev.iggysink.application.port.out;

import java.time.Duration;

/**
 * Waiting is a port so that retries, polling pauses and rotation schedules are tested without waiting. Implementations
 * return early with {@link InterruptedException} when the thread is interrupted (that is how a stop cuts a backoff short).
 */
@FunctionalInterface
public interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
}
