package dev.iggysink.bootstrap;

import dev.iggysink.adapters.iggy.IggySettings;
import dev.iggysink.adapters.config.ConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.iceberg.TableChecks;
import dev.iggysink.adapters.iggy.IggyGroupOffsets;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.TopicMissingException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.StreamSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code run} checks before a sink consumes anything: the store takes a write (the probe object), and Iggy
 * takes our login and has every configured stream and topic. A refusal (credentials, a missing bucket, stream or
 * topic, a server of another Iggy version) fails at once. A service that cannot be reached or does not answer is
 * retried with a log line for each attempt (health stays degraded meanwhile, naming what the start waits for), or
 * fails at once with {@code --fail-fast}; Iggy and the store are treated alike.
 *
 * <p>Every check runs on its own daemon thread while the caller watches for a stop request, so a SIGTERM is honoured
 * within a fraction of a second even when a service accepts the connection and never answers; a check left
 * behind dies with the process.
 */
final class StartupChecks {
    private static final Logger LOG = LoggerFactory.getLogger(StartupChecks.class);
    private static final Duration TICK = Duration.ofMillis(100);
    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration MAX_RETRY = Duration.ofSeconds(30);

    /** How a check ended. */
    enum Outcome {
        /** INVALID: the service answered and the configuration cannot work with it (a missing table): exit 2. */
        READY, STOPPED, FAILED, INVALID
    }

    private final boolean failFast;
    private final Duration slowAfter;
    private final BooleanSupplier stopRequested;
    private final StartupProgress progress;

    StartupChecks(boolean failFast, Duration slowAfter, BooleanSupplier stopRequested) {
        this(failFast, slowAfter, stopRequested, StartupProgress.unwatched());
    }

    /** @param progress told what each check waits for, so health can name it */
    StartupChecks(boolean failFast, Duration slowAfter, BooleanSupplier stopRequested, StartupProgress progress) {
        this.failFast = failFast;
        this.slowAfter = slowAfter;
        this.stopRequested = stopRequested;
        this.progress = progress;
    }

    /**
     * The store first (it holds what we will have read), then every (stream, topic) on Iggy. A topic (or stream) that
     * does not exist fails the start only when no topic of the sink exists: otherwise the others run and the sink's
     * consumer of the missing one halts and looks for it, as for a topic deleted while running (a restart while one
     * topic is deleted must not stop the healthy ones).
     */
    Outcome check(ConnectorConfig settings, ObjectStore store) throws InterruptedException {
        Outcome o = checkStore(settings, store);
        if (o != Outcome.READY) return o;
        List<String> missing = new ArrayList<>();
        int topics = 0;
        for (StreamSettings stream : settings.sink().streams()) {
            for (String topic : stream.topics()) {
                topics++;
                o = checkIggy(settings, stream, topic, missing);
                if (o != Outcome.READY) return o;
            }
        }
        if (!missing.isEmpty() && missing.size() == topics) {
            LOG.error("sink {}: none of its topics exists: {}", settings.key(), String.join("; ", missing));
            return Outcome.FAILED;
        }
        for (String m : missing) {
            LOG.error("sink {}: {}; its other topics start, this one is looked for every few seconds", settings.key(),
                    m);
        }
        return Outcome.READY;
    }

    Outcome checkIggy(ConnectorConfig settings, StreamSettings stream, String topic) throws InterruptedException {
        List<String> missing = new ArrayList<>();
        Outcome o = checkIggy(settings, stream, topic, missing);
        if (o == Outcome.READY && !missing.isEmpty()) {
            LOG.error("sink {}: {}", settings.key(), missing.get(0));
            return Outcome.FAILED;
        }
        return o;
    }

    Outcome checkStore(ConnectorConfig settings, ObjectStore store) throws InterruptedException {
        String endpoint = SinkAssembly.storeEndpoint(settings.storage());
        for (int attempt = 1; ; attempt++) {
            try {
                if (attempt == 1) progress.now(settings.key(), "checking the object store at " + endpoint);
                Answer<Void> a = await(settings.key(), "the object store at " + endpoint, endpoint, () -> {
                    store.probe();
                    return null;
                });
                if (a.stopped()) return stopped(settings);
                return Outcome.READY;
            } catch (StoreException e) {
                if (!e.retryable()) {
                    LOG.error("sink {}: the object store at {} refused the startup check ({}): {}",
                            settings.key(), endpoint, settings.storage().describe(), e.getMessage());
                    return Outcome.FAILED;
                }
                Outcome o = retryOrFail(settings, "the object store at " + endpoint, e.getMessage(), attempt);
                if (o != null) return o;
            } catch (Exception e) {
                LOG.error("sink {}: the startup check of the object store at {} failed: {}", settings.key(),
                        endpoint, e.toString());
                return Outcome.FAILED;
            }
        }
    }

    /** As {@link #checkIggy(ConnectorConfig, StreamSettings, String)}; a missing topic is added to {@code missing}. */
    private Outcome checkIggy(ConnectorConfig settings, StreamSettings stream, String topic, List<String> missing)
            throws InterruptedException {
        String endpoint = settings.iggy().host() + ":" + settings.iggy().port();
        IggySettings iggy = SinkAssembly.iggy(settings.iggy());
        for (int attempt = 1; ; attempt++) {
            try {
                if (attempt == 1) progress.now(settings.key(), "checking Iggy at " + endpoint);
                Answer<Integer> a = await(settings.key(), "Iggy at " + endpoint, endpoint, () -> {
                    try (IggyGroupOffsets offsets = new IggyGroupOffsets(iggy, stream.stream(), topic,
                            stream.consumerGroup(), SinkAssembly.IGGY_CALL_TIMEOUT)) {
                        return offsets.partitions().size();
                    }
                });
                if (a.stopped()) return stopped(settings);
                return Outcome.READY;
            } catch (TopicMissingException e) {
                missing.add(e.getMessage());
                return Outcome.READY;
            } catch (SourceException e) {
                if (!e.retryable()) {
                    LOG.error("sink {}: {}", settings.key(), e.getMessage());
                    return Outcome.FAILED;
                }
                Outcome o = retryOrFail(settings, "Iggy at " + endpoint, e.getMessage(), attempt);
                if (o != null) return o;
            } catch (Exception e) {
                LOG.error("sink {}: the startup check of Iggy at {} failed: {}", settings.key(), endpoint,
                        e.toString());
                return Outcome.FAILED;
            }
        }
    }

    /**
     * An Iceberg table sink's start: what {@code validate} asks of its catalog ({@link TableChecks}). A catalog that
     * cannot be reached or does not answer is retried as Iggy and the store are (or fails with {@code --fail-fast});
     * so is a warehouse whose store does not answer the probe write; a catalog that refuses our credentials or cannot
     * be opened fails at once; a table the sink cannot write, or a warehouse that refuses the probe write, is
     * {@link Outcome#INVALID}. Every problem is logged, one line each.
     */
    Outcome checkTables(TableConnectorConfig t) throws InterruptedException {
        return checkTables(t.key(), t.catalog().type(), TableChecks.where(TableSinkRunner.catalog(t.catalog())), () -> TableChecks.check(
                TableSinkRunner.catalog(t.catalog()), t.table().routing().tables(), TableSinkRunner.template(t)));
    }

    Outcome checkTables(String key, String type, String uri, Callable<TableChecks.Report> check)
            throws InterruptedException {
        String service = "the " + type + " catalog at " + uri;
        for (int attempt = 1; ; attempt++) {
            if (attempt == 1) progress.now(key, "checking " + service);
            TableChecks.Report report;
            try {
                Answer<TableChecks.Report> a = await(key, service, uri, check);
                if (a.stopped()) return stopped(key);
                report = a.value();
            } catch (Exception e) {
                LOG.error("sink {}: the startup check of {} failed: {}", key, service, e.toString());
                return Outcome.FAILED;
            }
            report.warnings().forEach(w -> LOG.warn("sink {}: plugin_config.{}", key, w));
            if (report.ok()) return Outcome.READY;
            if (report.unanswered()) {
                // The catalog answered and the warehouse's store did not: it is the store that is waited for.
                String waitedFor = report.reached() ? "the warehouse's store (of " + service + ")" : service;
                String why = report.problems().isEmpty() ? "no answer"
                        : (report.reached() ? "plugin_config." : "") + report.problems().get(0);
                String told = "uri: " + service + " cannot be used: ";
                if (why.startsWith(told)) why = why.substring(told.length());
                Outcome o = retryOrFail(key, waitedFor, why, attempt);
                if (o != null) return o;
                continue;
            }
            report.problems().forEach(p -> LOG.error("sink {}: plugin_config.{}", key, p));
            return report.reached() ? Outcome.INVALID : Outcome.FAILED;
        }
    }

    /** Null to try again (after waiting), or how the start ends. */
    private Outcome retryOrFail(ConnectorConfig settings, String service, String why, int attempt)
            throws InterruptedException {
        return retryOrFail(settings.key(), service, why, attempt);
    }

    private Outcome retryOrFail(String key, String service, String why, int attempt) throws InterruptedException {
        if (failFast) {
            LOG.error("sink {}: {} cannot be used: {} (--fail-fast: not retrying)", key, service, why);
            return Outcome.FAILED;
        }
        Duration delay = retryDelay(attempt);
        progress.now(key, "waiting for " + service + " (" + cause(service, why) + "; " + attempt
                + (attempt == 1 ? " attempt" : " attempts") + ", next in " + delay.toSeconds() + " s)");
        LOG.warn("sink {}: {} cannot be used yet: {}; retrying in {} s (attempt {}; health is degraded until it"
                + " answers; --fail-fast exits 3 instead)", key, service, why, delay.toSeconds(), attempt);
        long until = System.nanoTime() + delay.toNanos();
        while (System.nanoTime() - until < 0) {
            if (stopRequested.getAsBoolean()) return stopped(key);
            Thread.sleep(TICK.toMillis());
        }
        return null;
    }

    /**
     * The cause without the service it names again: "cannot reach Iggy at h:p: Connection refused" is told as
     * "Connection refused" after "waiting for Iggy at h:p".
     */
    static String cause(String service, String why) {
        int at = why.indexOf(service + ": ");
        return at >= 0 && at <= 20 ? why.substring(at + service.length() + 2) : why;
    }

    static Duration retryDelay(int attempt) {
        int doublings = Math.min(Math.max(attempt - 1, 0), 10);
        Duration d = FIRST_RETRY.multipliedBy(1L << doublings);
        return d.compareTo(MAX_RETRY) > 0 ? MAX_RETRY : d;
    }

    private static Outcome stopped(ConnectorConfig settings) {
        return stopped(settings.key());
    }

    private static Outcome stopped(String key) {
        LOG.info("sink {}: stop requested while starting; nothing was consumed", key);
        return Outcome.STOPPED;
    }

    /** A finished check's value, or that a stop came first. */
    private record Answer<T>(T value, boolean stopped) {
    }

    /**
     * Runs {@code check} on a daemon thread and waits for it, watching for a stop and logging every
     * {@code slowAfter} that the service has not answered yet. The check's own exception is rethrown.
     */
    private <T> Answer<T> await(String sink, String service, String endpoint, Callable<T> check) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                result.complete(check.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "startup-check");
        t.setDaemon(true);
        t.start();
        long start = System.nanoTime();
        long nextNotice = slowAfter.toNanos();
        while (true) {
            if (stopRequested.getAsBoolean()) return new Answer<>(null, true);
            try {
                return new Answer<>(result.get(TICK.toMillis(), TimeUnit.MILLISECONDS), false);
            } catch (TimeoutException e) {
                long waited = System.nanoTime() - start;
                if (waited >= nextNotice) {
                    LOG.warn("no answer from {} after {} s, still waiting", endpoint,
                            TimeUnit.NANOSECONDS.toSeconds(waited));
                    progress.now(sink, "waiting for " + service + " (no answer after "
                            + TimeUnit.NANOSECONDS.toSeconds(waited) + " s)");
                    nextNotice += slowAfter.toNanos();
                }
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Exception cause) throw cause;
                throw e;
            }
        }
    }
}
