package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.ConnectorConfig;
import dev.iggysink.adapters.format.buffer.BufferDirectory;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.service.ShutdownReport;
import dev.iggysink.application.service.SinkService;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.bootstrap.admin.ManagedSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the configured sinks: probe each store, start each service, log a status line periodically, and on stop
 * report whether everything read became durable.
 */
final class SinkRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SinkRunner.class);

    /** One running sink and what it owns; {@code buffers} is null when open files stay on the heap. */
    record Running(ConnectorConfig config, ObjectStore store, SinkService service, BufferDirectory buffers) {
    }

    /** Copy-on-write: the admin server's threads read it while sinks are still being started. */
    private final List<Running> running = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "status-line");
        t.setDaemon(true);
        return t;
    });

    /** Probes the store and starts the sink; a failed probe throws before anything is consumed. */
    Running start(ConnectorConfig settings, SinkMetrics metrics) throws StoreException {
        BufferDirectory buffers;
        try {
            buffers = buffers(settings);
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
        ObjectStore store = SinkAssembly.store(settings);
        try {
            store.probe();
        } catch (StoreException e) {
            store.close();
            if (buffers != null) buffers.close();
            throw e;
        }
        return launch(settings, store, metrics, buffers);
    }

    /** The sink's buffer directory, ready; null when its open files stay on the heap. */
    private static BufferDirectory buffers(ConnectorConfig settings) throws IOException {
        if (!settings.buffersOnDisk()) return null;
        return BufferDirectory.open(Path.of(settings.bufferDirectory()));
    }

    /**
     * Checks the store and Iggy, then starts the sink; nothing is consumed unless every check passed. Not started
     * when a check failed or a stop came first.
     */
    StartupChecks.Outcome start(ConnectorConfig settings, SinkMetrics metrics, StartupChecks checks)
            throws InterruptedException {
        BufferDirectory buffers;
        try {
            buffers = buffers(settings);
        } catch (IOException e) {
            LOG.error("sink {}: {} (set buffer_directory to a writable directory, or to \"\" to keep open files"
                    + " on the heap)", settings.key(), e.getMessage());
            return StartupChecks.Outcome.FAILED;
        }
        ObjectStore store = SinkAssembly.store(settings);
        StartupChecks.Outcome outcome = checks.check(settings, store);
        if (outcome != StartupChecks.Outcome.READY) {
            // After a stop the check may still be waiting on the store: the process exits without it.
            if (outcome == StartupChecks.Outcome.FAILED) store.close();
            if (buffers != null) buffers.close();
            return outcome;
        }
        launch(settings, store, metrics, buffers);
        return outcome;
    }

    private Running launch(ConnectorConfig settings, ObjectStore store, SinkMetrics metrics,
                           BufferDirectory buffers) {
        SinkService service = SinkAssembly.service(settings, store, metrics, buffers);
        service.start();
        Running r = new Running(settings, store, service, buffers);
        running.add(r);
        LOG.info("sink {} started: {} stream(s) -> {}/{}", settings.key(), settings.sink().streams().size(),
                settings.storage().describe(), settings.sink().output().prefix());
        return r;
    }

    List<Running> running() {
        return running;
    }

    /** The running sinks as the admin endpoints see them; safe to call from any thread. */
    List<ManagedSink> managed() {
        return running.stream().map(r -> new ManagedSink(r.config().key(), r.service())).toList();
    }

    void statusLineEvery(Duration period) {
        long[] last = new long[2];
        long[] lastAt = {System.nanoTime()};
        ticker.scheduleAtFixedRate(() -> {
            long records = 0;
            long bytes = 0;
            long objects = 0;
            long pending = 0;
            long lag = 0;
            int owned = 0;
            StringBuilder committed = new StringBuilder();
            java.util.Map<String, Long> rotations = new java.util.TreeMap<>();
            for (Running r : running) {
                r.service().rotationCounts().forEach((k, v) -> rotations.merge(k, v, Long::sum));
                StatusSnapshot s = r.service().status();
                records += s.totals().recordsConsumed();
                bytes += s.totals().bytesConsumed();
                objects += s.totals().objectsUploaded();
                for (PartitionStatus p : s.partitions()) {
                    pending += p.pendingFiles();
                    lag += p.lag();
                    if (p.owned()) {
                        owned++;
                        committed.append(' ').append(p.stream()).append('/').append(p.topic()).append('/')
                                .append(p.partition()).append('=').append(p.committed());
                    }
                }
            }
            long now = System.nanoTime();
            double secs = Math.max(1e-9, (now - lastAt[0]) / 1e9);
            LOG.info(String.format("status: %.0f records/s, %.2f MB/s, %d files uploaded, %d pending, lag %s,"
                            + " rotations %s, committed:%s", (records - last[0]) / secs,
                    (bytes - last[1]) / secs / 1e6, objects, pending, LagText.of(lag, owned), rotations, committed));
            last[0] = records;
            last[1] = bytes;
            lastAt[0] = now;
        }, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A second stop request: stop waiting for uploads now. */
    void hurryStop() {
        running.forEach(r -> r.service().hurryStop());
    }

    void requestStop() {
        running.forEach(r -> r.service().requestStop());
    }

    /** Waits until every sink stopped (by request or by a fatal error); true when all stopped clean. */
    boolean awaitAll() throws InterruptedException {
        boolean clean = true;
        for (Running r : running) {
            ShutdownReport report = r.service().awaitTermination();
            if (!report.clean()) {
                clean = false;
                report.fatalError().ifPresent(f -> LOG.error("sink {} stopped: {}", r.config().key(), f));
                report.problems().forEach(p -> LOG.warn("sink {}: {}", r.config().key(), p));
            }
        }
        return clean;
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        running.forEach(r -> r.store().close());
        running.forEach(r -> {
            if (r.buffers() != null) r.buffers().close();
        });
    }
}
