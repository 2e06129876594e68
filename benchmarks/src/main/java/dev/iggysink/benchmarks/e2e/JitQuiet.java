package dev.iggysink.benchmarks.e2e;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Waits until this JVM's JIT has stopped compiling: its accumulated compilation time has stayed the same for a
 * while. Used after warming the in-JVM broker up, so that no compilation of its code runs beside the sink.
 */
final class JitQuiet {
    /** Waits some milliseconds (a test moves its own clock instead). */
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    private JitQuiet() {
    }

    /** Seconds waited until the JIT was quiet for {@code quietFor}, or until {@code atMost} had passed. */
    static double await(Duration quietFor, Duration atMost) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) return 0;
        return await(jit::getTotalCompilationTime, System::nanoTime, Thread::sleep, quietFor, atMost);
    }

    static double await(LongSupplier compileMillis, LongSupplier nanos, Sleeper sleeper, Duration quietFor,
                        Duration atMost) throws InterruptedException {
        long start = nanos.getAsLong();
        long step = Math.max(1, quietFor.toMillis() / 6);
        long seen = compileMillis.getAsLong();
        long sameSince = start;
        while (true) {
            long now = nanos.getAsLong();
            if (now - sameSince >= quietFor.toNanos() || now - start >= atMost.toNanos()) {
                return (now - start) / 1e9;
            }
            sleeper.sleep(step);
            long next = compileMillis.getAsLong();
            if (next != seen) {
                seen = next;
                sameSince = nanos.getAsLong();
            }
        }
    }
}
