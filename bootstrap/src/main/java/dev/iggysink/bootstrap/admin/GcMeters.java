package dev.iggysink.bootstrap.admin;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

/**
 * {@code jvm_gc_collection_seconds{gc}}: each collector's collections and the time they took, read from the JVM's
 * collector beans when scraped (the series the Prometheus Java client's JVM collector exports under that name).
 *
 * <p>Why not Micrometer's {@code JvmGcMetrics}: it listens to the collector's notifications, so the JVM builds a
 * report of every collection and a thread runs Micrometer's listener for it, mostly in the interpreter since it runs
 * only once per collection; with the sink's small young generation that is a collection every few hundred
 * milliseconds (figures: docs/performance.md, "Figures behind constants without a decision record"). Read when
 * scraped, the same totals cost nothing between scrapes.
 */
final class GcMeters implements MeterBinder {
    @Override
    public void bindTo(MeterRegistry registry) {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            FunctionTimer.builder("jvm.gc.collection", gc, b -> Math.max(0, b.getCollectionCount()),
                            b -> Math.max(0, b.getCollectionTime()), TimeUnit.MILLISECONDS)
                    .tag("gc", gc.getName())
                    .description("Collections by this collector and the time they took, since the JVM started")
                    .register(registry);
        }
    }
}
