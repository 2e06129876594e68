package dev.iggysink.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Waiting for the bench JVM's JIT to go quiet, on a clock that only the waits move. */
class JitQuietTest {
    private final AtomicLong clock = new AtomicLong();

    private double await(long busyUntilMillis, Duration quietFor, Duration atMost) throws InterruptedException {
        // Compilation time grows by one millisecond per 10 ms of clock while the JIT is busy, then stops.
        return JitQuiet.await(() -> Math.min(clock.get(), busyUntilMillis * 1_000_000L) / 10_000_000L,
                clock::get, ms -> clock.addAndGet(ms * 1_000_000L), quietFor, atMost);
    }

    @Test
    void it_returns_once_the_compilation_time_has_not_moved_for_the_quiet_window() throws InterruptedException {
        double waited = await(1_000, Duration.ofMillis(300), Duration.ofSeconds(20));

        // The last change is seen at the first step after 1 s (steps of 50 ms); then 300 ms without one.
        assertThat(waited).isBetween(1.3, 1.36);
    }

    @Test
    void a_jit_that_is_already_quiet_costs_one_window() throws InterruptedException {
        assertThat(await(0, Duration.ofMillis(300), Duration.ofSeconds(20))).isBetween(0.3, 0.31);
    }

    @Test
    void a_jit_that_never_stops_is_waited_for_at_most_the_limit() throws InterruptedException {
        assertThat(await(Long.MAX_VALUE / 2_000_000L, Duration.ofMillis(300), Duration.ofSeconds(2)))
                .isBetween(2.0, 2.06);
    }
}
