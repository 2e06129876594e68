package dev.iggysink.bootstrap.admin;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The process's one metrics registry: JVM meters plus one {@link MicrometerSinkMetrics} per sink, rendered as
 * Prometheus text. Thread-safe.
 */
public final class PrometheusMetrics implements AutoCloseable {
    /** Prometheus text exposition format 0.0.4, what {@link PrometheusMeterRegistry#scrape()} writes. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, MicrometerSinkMetrics> sinks = new ConcurrentHashMap<>();
    private final Map<String, MicrometerTableMetrics> tables = new ConcurrentHashMap<>();
    private final Map<String, MicrometerAuditMetrics> audits = new ConcurrentHashMap<>();

    public PrometheusMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        new GcMeters().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    /** The metrics of the sink with this connector key (one instance per key). */
    public MicrometerSinkMetrics forSink(String key) {
        return sinks.computeIfAbsent(key, k -> new MicrometerSinkMetrics(registry, k));
    }

    /** The table meters of the table sink with this connector key (one instance per key). */
    public MicrometerTableMetrics forTables(String key) {
        return tables.computeIfAbsent(key, k -> new MicrometerTableMetrics(registry, k));
    }

    /** Refreshes the gauges that come from the sinks' status, then renders every meter. */
    public String scrape(List<SinkView> views) {
        for (SinkView v : views) {
            forSink(v.key()).refresh(v.snapshot());
            v.tables().ifPresent(t -> forTables(v.key()).refresh(t));
            v.audit().ifPresent(a -> audits.computeIfAbsent(v.key(), k -> new MicrometerAuditMetrics(registry, k))
                    .refresh(a));
        }
        return registry.scrape();
    }

    @Override
    public void close() {
        registry.close();
    }
}
