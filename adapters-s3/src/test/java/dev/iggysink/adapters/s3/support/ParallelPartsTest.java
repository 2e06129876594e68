package dev.iggysink.adapters.s3.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.iggysink.application.port.out.StoreException;

class ParallelPartsTest {
    private final ExecutorService pool = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void results_come_back_in_part_order() throws Exception {
        List<Integer> results = ParallelParts.run(pool, PartPlan.of(50, 10), part -> {
            pause(5L * (6 - part.number()));
            return part.number();
        });

        assertThat(results).containsExactly(1, 2, 3, 4, 5);
    }

    @Test
    void after_a_failure_no_new_part_starts_and_the_call_returns_after_started_parts_end() {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger running = new AtomicInteger();
        StoreException failure = new StoreException("part 1 failed", true, 500, null, null);

        StoreException e = catchThrowableOfType(StoreException.class, () -> ParallelParts.run(pool,
                PartPlan.of(100, 10), part -> {
                    started.incrementAndGet();
                    running.incrementAndGet();
                    try {
                        if (part.number() == 1) {
                            throw failure;
                        }
                        pause(100);
                        return part.number();
                    } finally {
                        running.decrementAndGet();
                    }
                }));

        assertThat(e).isSameAs(failure);
        assertThat(running.get()).as("parts still running when run() returned").isZero();
        assertThat(started.get()).as("parts started of 10").isLessThanOrEqualTo(3);
    }
}
