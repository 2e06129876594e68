package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.ConnectorConfig;
import dev.iggysink.adapters.config.AdminConfig;
import dev.iggysink.adapters.config.ConfigError;
import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import dev.iggysink.adapters.config.SettingsPrinter;
import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import dev.iggysink.bootstrap.admin.AdminHttpServer;
import dev.iggysink.bootstrap.admin.ManagedSink;
import dev.iggysink.bootstrap.admin.PrometheusMetrics;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Validates, probes the store, and runs until SIGTERM/SIGINT; exits 0 only when everything read became durable. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run the sink(s) of a connector file or runtime config until stopped (SIGTERM/SIGINT).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {ExitCodes.RUN_HELP_0, ExitCodes.RUN_HELP_1, ExitCodes.RUN_HELP_2, ExitCodes.RUN_HELP_3})
final class RunCommand extends ConfigFileCommand {
    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);
    /** After this long without an answer from a service at start, say so (and again each time it passes). */
    static final Duration SLOW_ANSWER = Duration.ofSeconds(10);

    @Option(names = "--status-interval", defaultValue = "30s", converter = DurationConverter.class,
            description = "how often to log the status line, e.g. 30s, 5m, 1h (default ${DEFAULT-VALUE})")
    Duration statusInterval;

    @Option(names = "--fail-fast", description = "exit 3 at once when Iggy, the object store or a table sink's"
            + " catalog cannot be reached at start, instead of retrying (with a log line per attempt and degraded"
            + " health) until they answer")
    boolean failFast;

    @Option(names = LogFormat.OPTION, converter = LogFormat.Converter.class,
            description = "text (default) or json: one JSON object per log line; overrides [logging] format")
    LogFormat logFormat;

    @Override
    public Integer call() throws Exception {
        // Main.main already switched before the first line; this covers in-process runs (tests).
        if (logFormat != null) logFormat.apply();
        PrintWriter err = spec.commandLine().getErr();
        if (TableConnectorReader.isTableSink(config)) return runTableSink(err);
        ConfigResult result = ConnectorConfigLoader.load(config, System.getenv());
        if (logFormat == null) {
            // The config's [logging] format applies from here on; only lines before reading the file were text.
            result.logFormat().flatMap(LogFormat::parse).ifPresent(LogFormat::apply);
        }
        result.warnings().forEach(w -> LOG.warn("config: {}", w));
        result.notices().forEach(n -> LOG.info("config: {}", n));
        if (!result.ok()) {
            err.println(config + ": " + result.errors().size() + " error(s):");
            for (ConfigError e : result.errors()) err.println("  " + e);
            err.flush();
            return ExitCodes.CONFIG;
        }
        if (result.sinks().isEmpty() && result.tableSinks().isEmpty()) {
            err.println(config + ": no enabled sink to run");
            err.flush();
            return ExitCodes.CONFIG;
        }
        List<String> templates = new ArrayList<>();
        for (TableConnectorConfig t : result.tableSinks()) {
            TableSinkRunner.template(t).map(x -> x.problems()).orElse(List.of())
                    .forEach(p -> templates.add("sink " + t.key() + ": plugin_config." + p));
        }
        if (!templates.isEmpty()) {
            err.println(config + ": " + templates.size() + " error(s):");
            for (String e : templates) err.println("  " + e);
            err.flush();
            return ExitCodes.CONFIG;
        }
        // Only a config that will run: a wrong one exits without loading Netty.
        NettyDefaults.fallbackNotice().ifPresent(LOG::info);
        try (PrometheusMetrics metrics = new PrometheusMetrics(); SinkRunner runner = new SinkRunner()) {
            List<TableSinkRunner> tables = result.tableSinks().stream().map(t -> new TableSinkRunner(t,
                    metrics.forSink(t.key()), metrics.forTables(t.key())::commitTook)).toList();
            List<String> keys = new ArrayList<>(result.sinks().stream().map(ConnectorConfig::key).toList());
            tables.forEach(t -> keys.add(t.config().key()));
            StartupProgress progress = new StartupProgress(keys);
            Optional<AdminHttpServer> admin = startAdmin(result.sinks(), tables, runner, progress, metrics);
            if (admin.isEmpty()) return ExitCodes.STARTUP;
            AdminHttpServer adminServer = admin.get();
            try (adminServer) {
                if (tables.isEmpty()) return runSinks(result.sinks(), runner, progress, metrics);
                return runWithTables(result.sinks(), tables, runner, progress, metrics);
            }
        }
    }

    /**
     * The S3 sinks as {@link #runSinks} runs them, each table sink on a thread of its own; a stop stops all. A table
     * sink that cannot start stops the others too, as an S3 sink that cannot start does. The exit code is the worst.
     */
    private Integer runWithTables(List<ConnectorConfig> sinks, List<TableSinkRunner> tables, SinkRunner runner,
                                  StartupProgress progress, PrometheusMetrics metrics) throws InterruptedException {
        Signals.onStop(() -> {
            LOG.info("stop requested: committing what was read to the tables");
            tables.forEach(TableSinkRunner::requestStop);
        });
        int[] codes = new int[tables.size()];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < tables.size(); i++) {
            TableSinkRunner table = tables.get(i);
            int slot = i;
            LOG.info("effective configuration of table sink {}: {}", table.config().key(),
                    SettingsPrinter.redactedLine(table.config()));
            Thread t = new Thread(() -> {
                try {
                    codes[slot] = table.start(tableChecks(table, progress), progress, statusInterval);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    codes[slot] = ExitCodes.INCOMPLETE;
                }
                if (codes[slot] >= ExitCodes.CONFIG && !Signals.stopRequested()) {
                    LOG.error("table sink {} could not start: stopping every sink", table.config().key());
                    Signals.requestStop();
                }
            }, "table-sink-" + table.config().key());
            t.start();
            threads.add(t);
        }
        // Without S3 sinks there is nothing for runSinks to wait for, nor a status line of its own to log.
        int code = sinks.isEmpty() ? ExitCodes.OK : runSinks(sinks, runner, progress, metrics);
        if (code == ExitCodes.STARTUP) tables.forEach(TableSinkRunner::requestStop);
        for (Thread t : threads) t.join();
        for (int c : codes) code = Math.max(code, c);
        return code;
    }

    /** An Iceberg table sink's connector file: its own loop ({@link TableSinkRunner}) until a stop is asked. */
    private Integer runTableSink(PrintWriter err) throws InterruptedException {
        TableConnectorReader.Result result = TableConnectorReader.load(config, System.getenv());
        result.warnings().forEach(w -> LOG.warn("config: {}", w));
        if (result.connector().isEmpty()) {
            List<String> errors = TableSinkRunner.fileErrors(result);
            err.println(config + ": " + errors.size() + " error(s):");
            for (String e : errors) err.println("  " + e);
            err.flush();
            return ExitCodes.CONFIG;
        }
        TableConnectorConfig sink = result.connector().get();
        List<String> template = TableSinkRunner.template(sink).map(t -> t.problems()).orElse(List.of());
        if (!template.isEmpty()) {
            err.println(config + ": " + template.size() + " error(s):");
            for (String e : template) err.println("  plugin_config." + e);
            err.flush();
            return ExitCodes.CONFIG;
        }
        if (!sink.enabled()) {
            err.println(config + ": the sink is disabled (enabled = false): nothing to run");
            err.flush();
            return ExitCodes.CONFIG;
        }
        LOG.info("effective configuration of table sink {}: {}", sink.key(), SettingsPrinter.redactedLine(sink));
        // The same admin server as the object sink's, on the same [admin] keys: status, metrics, pause, flush.
        NettyDefaults.fallbackNotice().ifPresent(LOG::info);
        try (PrometheusMetrics metrics = new PrometheusMetrics()) {
            TableSinkRunner runner = new TableSinkRunner(sink, metrics.forSink(sink.key()),
                    metrics.forTables(sink.key())::commitTook);
            StartupProgress progress = new StartupProgress(List.of(sink.key()));
            AdminHttpServer admin;
            try {
                // While its start checks run, health tells what they wait for (degraded), as for an object sink.
                admin = AdminHttpServer.start(SinkAssembly.admin(sink.admin()), () -> runner.started()
                        ? List.of(new ManagedSink(sink.key(), runner.control())) : List.of(), progress::reasons,
                        metrics);
            } catch (IOException | IllegalArgumentException e) {
                LOG.error("admin server: cannot listen on {}: {} (set [admin] address to a free host:port, or off)",
                        sink.admin().address().orElse("?"), e.getMessage());
                return ExitCodes.STARTUP;
            }
            try (admin) {
                Signals.onStop(() -> {
                    LOG.info("stop requested: committing what was read to the tables");
                    runner.requestStop();
                });
                if (Signals.stopRequested()) runner.requestStop();
                return runner.start(tableChecks(runner, progress), progress, statusInterval);
            }
        }
    }

    /** The start checks of one table sink: they end on a stop of the process or of that sink. */
    private StartupChecks tableChecks(TableSinkRunner runner, StartupProgress progress) {
        return new StartupChecks(failFast, SLOW_ANSWER, () -> Signals.stopRequested() || runner.stopRequested(),
                progress);
    }

    /**
     * One admin server for the process, on the first sink's address: it serves every sink. Empty when it cannot
     * listen; failing before anything is consumed beats running blind.
     */
    static Optional<AdminHttpServer> startAdmin(List<ConnectorConfig> sinks, SinkRunner runner,
                                                PrometheusMetrics metrics) {
        return startAdmin(sinks, runner, StartupProgress.unwatched(), metrics);
    }

    static Optional<AdminHttpServer> startAdmin(List<ConnectorConfig> sinks, SinkRunner runner,
                                                StartupProgress progress, PrometheusMetrics metrics) {
        return startAdmin(sinks, List.of(), runner, progress, metrics);
    }

    /** As above; the table sinks are served too, after the S3 sinks (whose [admin] comes first). */
    static Optional<AdminHttpServer> startAdmin(List<ConnectorConfig> sinks, List<TableSinkRunner> tables,
                                                SinkRunner runner, StartupProgress progress,
                                                PrometheusMetrics metrics) {
        List<Map.Entry<String, AdminConfig>> all = new ArrayList<>();
        sinks.forEach(s -> all.add(Map.entry(s.key(), s.admin())));
        tables.forEach(t -> all.add(Map.entry(t.config().key(), t.config().admin())));
        AdminConfig first = all.get(0).getValue();
        for (Map.Entry<String, AdminConfig> s : all.subList(1, all.size())) {
            if (!s.getValue().equals(first)) {
                LOG.warn("sink {}: its [admin] settings are ignored; the first sink's ({}) serve the whole process",
                        s.getKey(), all.get(0).getKey());
            }
        }
        Supplier<List<ManagedSink>> managed = tables.isEmpty() ? runner::managed : () -> {
            List<ManagedSink> every = new ArrayList<>(runner.managed());
            tables.stream().filter(TableSinkRunner::started)
                    .forEach(t -> every.add(new ManagedSink(t.config().key(), t.control())));
            return every;
        };
        try {
            return Optional.of(AdminHttpServer.start(SinkAssembly.admin(first), managed,
                    progress::reasons, metrics));
        } catch (IOException | IllegalArgumentException e) {
            LOG.error("admin server: cannot listen on {}: {} (set [admin] address to a free host:port, or off)",
                    first.address().orElse("?"), e.getMessage());
            return Optional.empty();
        }
    }

    private Integer runSinks(List<ConnectorConfig> sinks, SinkRunner runner, StartupProgress progress,
                             PrometheusMetrics metrics) throws InterruptedException {
        Signals.onStop(() -> {
            LOG.info("stop requested: sealing, uploading and committing what was read");
            runner.requestStop();
        });
        Signals.onHurry(runner::hurryStop);
        StartupChecks checks = new StartupChecks(failFast, SLOW_ANSWER, Signals::stopRequested, progress);
        for (ConnectorConfig s : sinks) {
            if (Signals.stopRequested()) break;
            LOG.info("effective configuration of sink {}: {}", s.key(), SettingsPrinter.redactedLine(s));
            StartupChecks.Outcome outcome = runner.start(s, metrics.forSink(s.key()), checks);
            progress.done(s.key());
            if (outcome == StartupChecks.Outcome.FAILED) {
                runner.requestStop();
                runner.awaitAll();
                return ExitCodes.STARTUP;
            }
        }
        // A stop that came while the last sink was starting reached only the sinks already listed.
        if (Signals.stopRequested()) runner.requestStop();
        runner.statusLineEvery(statusInterval);
        boolean clean = runner.awaitAll();
        return clean ? ExitCodes.OK : ExitCodes.INCOMPLETE;
    }
}
