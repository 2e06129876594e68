package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.CatalogConfig;
import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import dev.iggysink.adapters.format.RecordCodecs;
import dev.iggysink.adapters.iceberg.CatalogSettings;
import dev.iggysink.adapters.iceberg.IcebergTables;
import dev.iggysink.adapters.iceberg.TableChecks;
import dev.iggysink.adapters.iceberg.TableTemplate;
import dev.iggysink.adapters.iggy.IggyMessageSource;
import dev.iggysink.application.port.in.SinkControl;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.service.HeapFit;
import dev.iggysink.application.table.IdlePacing;
import dev.iggysink.application.table.TableConsumer;
import dev.iggysink.application.table.TableSettings;
import dev.iggysink.application.table.TableSelfAudit;
import dev.iggysink.application.table.TableSinkControl;
import dev.iggysink.application.table.TableTally;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one Iceberg table sink: a consumer loop per configured topic, each a {@link TableConsumer}, until a stop is
 * requested; then each loop commits what it read ({@link TableConsumer#drain}) and leaves its group.
 */
final class TableSinkRunner {
    static {
        // every command that opens a catalog names it through catalog() below
        WarehouseStores.register();
    }

    private static final Logger LOG = LoggerFactory.getLogger(TableSinkRunner.class);
    private static final Duration BACKOFF_MAX = Duration.ofSeconds(10);

    private final TableConnectorConfig config;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger exitCode = new AtomicInteger(ExitCodes.OK);
    private final TableTally tally;
    private final TableSinkControl control;
    private final SinkMetrics metrics;
    private volatile boolean started;

    TableSinkRunner(TableConnectorConfig config) {
        this(config, SinkMetrics.NONE, took -> { });
    }

    /**
     * @param metrics     told what the loops read, seal and commit to the group (the object sink's meters)
     * @param commitTimes told the time of each table commit that went through
     */
    TableSinkRunner(TableConnectorConfig config, SinkMetrics metrics, Consumer<Duration> commitTimes) {
        this.config = config;
        this.tally = new TableTally(commitTimes, config.table().retry(), "catalog " + config.catalog().uri(),
                "warehouse store "
                + config.catalog().storeUrl().map(u -> u + " (" + config.catalog().warehouse() + ")")
                .orElse(config.catalog().warehouse()));
        Duration poll = Duration.ZERO;
        for (StreamSettings s : config.streams()) if (s.pollInterval().compareTo(poll) > 0) poll = s.pollInterval();
        this.control = new TableSinkControl(tally, InstantSource.system(), budget(config), poll,
                () -> stop.set(true));
        this.metrics = control.counting(metrics);
    }

    /**
     * The sink's {@code max_buffered_bytes}, lowered with a warning when the heap cannot hold it (as the object sink
     * does), instead of an OutOfMemoryError a supervisor restarts into the same death.
     */
    static long budget(TableConnectorConfig config) {
        return HeapFit.budget(config.key(), config.table().maxBufferedBytes(), Runtime.getRuntime().maxMemory());
    }

    /** Each topic's loop holds rows of its own: the sink's budget is shared out among them. */
    static TableSettings perTopic(TableConnectorConfig config, long budget) {
        int topics = config.streams().stream().mapToInt(s -> s.topics().size()).sum();
        TableSettings t = config.table();
        return new TableSettings(t.routing(), t.rotation(), t.commitInterval(), t.maxFilesPerCommit(),
                t.batchLength(), t.errors(), Math.max(1, budget / Math.max(1, topics)), t.dlqPrefix(), t.retry());
    }

    TableConnectorConfig config() {
        return config;
    }

    /** What the admin endpoints ask of this sink: status, pause, resume, flush, stop. */
    SinkControl control() {
        return control;
    }

    static CatalogSettings catalog(CatalogConfig c) {
        return new CatalogSettings(c.type(), c.name(), c.uri(), c.warehouse(), c.token(), c.credential(), c.oauth2ServerUri(),
                c.user(), c.password(), c.storeUrl(), c.storeAccessKeyId(), c.storeSecretAccessKey(), c.storeRegion(),
                c.pathStyle(), c.dlqLocation(), new CatalogSettings.Aws(c.aws().sigv4(), c.aws().signingName(),
                c.aws().region()));
    }

    /** The template {@code create_tables} asks for, or empty. */
    static java.util.Optional<TableTemplate> template(TableConnectorConfig c) {
        return template(c.creation());
    }

    static java.util.Optional<TableTemplate> template(java.util.Optional<TableConnectorConfig.Creation> creation) {
        return creation.map(k -> new TableTemplate(k.columns(), k.partitionSpec(), k.evolve()));
    }

    /**
     * Every error of a table sink file that did not load, each a line: the file's, then its {@code create_tables}
     * template's (a bad {@code partition_spec} entry), so that one run of {@code validate} shows them all.
     */
    static List<String> fileErrors(TableConnectorReader.Result result) {
        List<String> out = new java.util.ArrayList<>(result.errors().stream().map(Object::toString).toList());
        template(result.creation()).map(TableTemplate::problems).orElse(List.of())
                .forEach(p -> out.add("plugin_config." + p));
        return out;
    }

    void requestStop() {
        control.requestStop();
    }

    boolean stopRequested() {
        return stop.get();
    }

    /** Whether its start checks passed and it consumes: until then the admin server tells what it waits for. */
    boolean started() {
        return started;
    }

    /**
     * What {@code run} does with a table sink: the checks {@code validate} makes of its catalog first
     * ({@link StartupChecks#checkTables}), nothing consumed until they pass; then {@link #run()}, with a status line
     * every {@code statusInterval}. A stop asked while checking ends it with 0 (nothing was read).
     */
    int start(StartupChecks checks, StartupProgress progress, Duration statusInterval) throws InterruptedException {
        StartupChecks.Outcome outcome = checks.checkTables(config);
        progress.done(config.key());
        switch (outcome) {
            case STOPPED:
                return ExitCodes.OK;
            case INVALID:
                return ExitCodes.CONFIG;
            case FAILED:
                return ExitCodes.STARTUP;
            default:
                break;
        }
        started = true;
        TableStatusLine line = new TableStatusLine(config.key(), System.nanoTime());
        java.util.concurrent.ScheduledExecutorService ticker = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "status-line-" + config.key());
                    t.setDaemon(true);
                    return t;
                });
        ticker.scheduleAtFixedRate(() -> {
            try {
                LOG.info(line.next(control.status(), tally.totals(), System.nanoTime()));
                // while the catalog or store fails, one line per interval says so (the outage's own lines are two)
                for (String outage : tally.outageSummaries(java.time.Instant.now())) {
                    LOG.warn("sink {}: {}", config.key(), outage);
                }
            } catch (RuntimeException e) {
                // a failed line must not end the schedule: the next one may tell what this could not
                LOG.warn("sink {}: the status line could not be made: {}", config.key(), e.toString());
            }
        }, statusInterval.toMillis(), statusInterval.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        try {
            return run();
        } finally {
            ticker.shutdownNow();
        }
    }

    TableTally tally() {
        return tally;
    }

    /** Runs until {@link #requestStop}; returns the exit code. */
    int run() throws InterruptedException {
        Map<String, IcebergTables> stores = new HashMap<>();
        try {
            for (StreamSettings s : config.streams()) {
                IcebergTables store = stores.computeIfAbsent(s.consumerGroup(),
                        g -> IcebergTables.open(catalog(config.catalog()), g, template(config),
                                config.table().dlqPrefix()));
                for (String table : config.table().routing().tables()) store.open(table);
            }
        } catch (StoreException e) {
            LOG.error("sink {}: {}", config.key(), e.getMessage());
            stores.values().forEach(IcebergTables::close);
            return ExitCodes.STARTUP;
        } catch (RuntimeException e) {
            LOG.error("sink {}: the catalog at {} cannot be used: {}", config.key(),
                    TableChecks.where(catalog(config.catalog())), e.getMessage());
            stores.values().forEach(IcebergTables::close);
            return ExitCodes.STARTUP;
        }
        // Parquet is written and sent off the consumer loops, on as many threads as there are cores.
        AtomicInteger stagers = new AtomicInteger();
        java.util.concurrent.ExecutorService stager = java.util.concurrent.Executors.newFixedThreadPool(
                Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
                    Thread t = new Thread(r, "table-stage-" + stagers.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        // Commits wait on the catalog, not on the cores: a thread each while under way (one per table and topic).
        AtomicInteger committers = new AtomicInteger();
        java.util.concurrent.ExecutorService committer = java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "table-commit-" + committers.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        TableSelfAudit selfAudit = null;
        if (config.selfAuditRequestsPerMinute() > 0) {
            Map<String, IcebergTables> byStream = new HashMap<>();
            for (StreamSettings s : config.streams()) byStream.put(s.stream(), stores.get(s.consumerGroup()));
            selfAudit = new TableSelfAudit(byStream::get, config.selfAuditRequestsPerMinute(), InstantSource.system(),
                    d -> Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000), stop::get);
            control.selfAudit(selfAudit);
            // named as the object sink's: iggysink_audit_cpu_seconds_total reads the thread of this name
            Thread audit = new Thread(selfAudit, dev.iggysink.application.status.AuditStatus.threadName(config.key()));
            audit.setDaemon(true);
            audit.start();
            LOG.info("sink {}: self-audit on: up to {} catalog and store requests a minute (the offset map of each"
                    + " table committed to, the recent rows of each partition)", config.key(),
                    config.selfAuditRequestsPerMinute());
        }
        List<Thread> loops = new ArrayList<>();
        for (StreamSettings s : config.streams()) {
            for (String topic : s.topics()) {
                IcebergTables store = stores.get(s.consumerGroup());
                TableSelfAudit audit = selfAudit;
                Thread t = new Thread(() -> loop(s, topic, store, stager, committer, audit),
                        "table-" + s.stream() + "-" + topic);
                t.start();
                loops.add(t);
            }
        }
        for (Thread t : loops) t.join();
        stager.shutdown();
        committer.shutdown();
        stores.values().forEach(IcebergTables::close);
        return exitCode.get();
    }

    /**
     * A stream's decoder: its schema, then the file's {@code [transforms]}. With fixed tables a json payload is left
     * for the row converter to parse; routed by a field, the codec parses it first to read that field.
     */
    static RecordCodec codec(TableConnectorConfig config, StreamSettings s) {
        return RecordCodecs.forTable(s, config.transforms(), config.table().routing().routeField().isEmpty());
    }

    private void loop(StreamSettings s, String topic, IcebergTables store, java.util.concurrent.Executor stager,
                      java.util.concurrent.Executor committer, TableSelfAudit selfAudit) {
        RecordCodec codec = codec(config, s);
        MessageSource source = new IggyMessageSource(SinkAssembly.iggy(config.iggy()), s.stream(), topic,
                s.consumerGroup(), SinkAssembly.IGGY_CALL_TIMEOUT);
        TableConsumer consumer = new TableConsumer(source, codec, store, perTopic(config, budget(config)),
                InstantSource.system(),
                metrics, tally, stager, committer);
        if (selfAudit != null) consumer.selfAudit(selfAudit);
        String name = s.stream() + "/" + topic;
        control.register(name, consumer);
        Duration backoff = Duration.ofMillis(100);
        IdlePacing pacing = new IdlePacing(s.pollInterval());
        try {
            while (!stop.get()) {
                try {
                    source.connect();
                    int read = consumer.step();
                    control.trouble(name, null);
                    backoff = Duration.ofMillis(100);
                    Duration idle = pacing.after(read);
                    if (!idle.isZero()) Thread.sleep(idle.toMillis());
                } catch (SourceException e) {
                    if (!e.retryable()) {
                        LOG.error("{}/{}: {}", s.stream(), topic, e.getMessage());
                        control.failed(name, "cannot consume " + name + ": " + e.getMessage());
                        exitCode.set(ExitCodes.STARTUP);
                        return;
                    }
                    control.trouble(name, "Iggy failed for " + name + ", trying again: " + e.getMessage());
                    LOG.warn("{}/{}: Iggy failed, trying again in {} ms: {}", s.stream(), topic, backoff.toMillis(),
                            e.getMessage());
                    Thread.sleep(backoff.toMillis());
                    backoff = backoff.multipliedBy(2).compareTo(BACKOFF_MAX) > 0 ? BACKOFF_MAX
                            : backoff.multipliedBy(2);
                } catch (RuntimeException e) {
                    // The consumer halts a partition on such an error; one that still gets here must not end the
                    // loop unseen: /health names it, and nothing more is read that could not be committed.
                    LOG.error("{}/{}: the table loop stopped on an unexpected error", s.stream(), topic, e);
                    control.failed(name, "the table loop of " + name + " stopped on an unexpected error: " + e);
                    exitCode.set(ExitCodes.STARTUP);
                    consumer.abandon();
                    return;
                }
            }
            if (!consumer.drain()) exitCode.compareAndSet(ExitCodes.OK, ExitCodes.INCOMPLETE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exitCode.compareAndSet(ExitCodes.OK, ExitCodes.INCOMPLETE);
        } catch (SourceException e) {
            LOG.warn("{}/{}: the final commit failed; what it held is read again on the next start: {}", s.stream(),
                    topic, e.getMessage());
            exitCode.compareAndSet(ExitCodes.OK, ExitCodes.INCOMPLETE);
        } finally {
            source.close();
        }
    }
}
