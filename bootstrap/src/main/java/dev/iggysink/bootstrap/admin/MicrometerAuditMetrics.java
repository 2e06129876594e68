package dev.iggysink.bootstrap.admin;

import dev.iggysink.application.status.AuditStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;

/**
 * The sink's own audit as meters ({@code iggysink_audit_*}, tagged with the {@code sink}), copied from its
 * {@link AuditStatus} by {@link #refresh} before each scrape. Thread-safe.
 */
final class MicrometerAuditMetrics {
    static final String PREFIX = MicrometerSinkMetrics.PREFIX + "audit.";

    private final AtomicReference<AuditStatus> last;
    private long auditThreadId = -1;
    private double lastCpuSeconds;

    MicrometerAuditMetrics(MeterRegistry registry, String sinkKey) {
        this.last = new AtomicReference<>(AuditStatus.none(0));
        Tags tags = Tags.of("sink", sinkKey);
        counter(registry, tags, "rounds", "rounds of the self-audit over every owned partition",
                AuditStatus::rounds);
        counter(registry, tags, "requests", "store requests the self-audit made (LIST pages and HEADs)",
                AuditStatus::requests);
        String thread = AuditStatus.threadName(sinkKey);
        FunctionCounter.builder(PREFIX + "cpu.seconds", this, m -> m.cpuSeconds(thread)).description("CPU time"
                + " of the sink's self-audit thread (its checks and its store requests): its share of the"
                + " process's CPU is what the self-audit costs")
                .baseUnit("seconds").tags(tags).register(registry);
        counter(registry, tags, "objects.verified", "committed objects read back (one HEAD each) and compared with"
                + " what was written", AuditStatus::objectsVerified);
        counter(registry, tags, "verifications.skipped", "committed objects not read back one by one because more"
                + " waited than the budget allows (rounds still list them)", AuditStatus::verificationsSkipped);
        gauge(registry, tags, "budget.requests.per.minute", "self_audit_requests_per_minute",
                AuditStatus::requestsPerMinute);
        gauge(registry, tags, "last.round.timestamp.seconds", "when the last self-audit round ended (0 none yet)",
                a -> a.lastRound().map(t -> t.toEpochMilli() / 1000.0).orElse(0.0));
        String findings = "open findings of the self-audit by kind: gap, overlap and mismatch (a key that disagrees"
                + " with its object's metadata) and unverified (a committed object not found as written) fail"
                + " health; claim (left behind past a commit) does not";
        gauge(registry, tags.and("kind", "gap"), "findings", findings, a -> a.counts().gaps());
        gauge(registry, tags.and("kind", "overlap"), "findings", findings, a -> a.counts().overlaps());
        gauge(registry, tags.and("kind", "mismatch"), "findings", findings, a -> a.counts().mismatches());
        gauge(registry, tags.and("kind", "unverified"), "findings", findings, a -> a.counts().unverified());
        gauge(registry, tags.and("kind", "claim"), "findings", findings, a -> a.counts().claimsLeftBehind());
    }

    private void counter(MeterRegistry registry, Tags tags, String name, String description,
                         ToDoubleFunction<AuditStatus> value) {
        FunctionCounter.builder(PREFIX + name, last, r -> value.applyAsDouble(r.get())).description(description)
                .tags(tags).register(registry);
    }

    private void gauge(MeterRegistry registry, Tags tags, String name, String description,
                       ToDoubleFunction<AuditStatus> value) {
        Gauge.builder(PREFIX + name, last, r -> value.applyAsDouble(r.get())).description(description).tags(tags)
                .strongReference(true).register(registry);
    }

    /** CPU seconds of the live thread named {@code thread}; the last value once it ended (a counter never falls). */
    private synchronized double cpuSeconds(String thread) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!mx.isThreadCpuTimeSupported()) return 0;
        long nanos = auditThreadId < 0 ? -1 : mx.getThreadCpuTime(auditThreadId);
        if (nanos < 0) {
            auditThreadId = -1;
            for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds(), 0)) {
                if (t != null && t.getThreadName().equals(thread)) auditThreadId = t.getThreadId();
            }
            nanos = auditThreadId < 0 ? -1 : mx.getThreadCpuTime(auditThreadId);
        }
        if (nanos >= 0) lastCpuSeconds = Math.max(lastCpuSeconds, nanos / 1e9);
        return lastCpuSeconds;
    }

    void refresh(AuditStatus status) {
        last.set(status);
    }
}
