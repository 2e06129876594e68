package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.ConfigError;
import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import dev.iggysink.adapters.config.SettingsPrinter;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.SinkSettings;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Validates, probes the store, and runs until SIGTERM/SIGINT; exits 0 only when everything read became durable. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run the sink(s) of a connector file or runtime config until stopped (SIGTERM/SIGINT).")
final class RunCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, required = true, description = "connector file or runtime config.toml")
    Path config;

    @Option(names = "--status-interval", defaultValue = "30s", converter = DurationConverter.class,
            description = "how often to log the status line (default ${DEFAULT-VALUE})")
    Duration statusInterval;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        ConfigResult result = ConnectorConfigLoader.load(config, System.getenv());
        result.warnings().forEach(w -> LOG.warn("config: {}", w));
        result.notices().forEach(n -> LOG.info("config: {}", n));
        if (!result.ok()) {
            err.println(config + ": " + result.errors().size() + " error(s):");
            for (ConfigError e : result.errors()) err.println("  " + e);
            err.flush();
            return ExitCodes.CONFIG;
        }
        if (result.sinks().isEmpty()) {
            err.println(config + ": no enabled S3 sink to run");
            err.flush();
            return ExitCodes.CONFIG;
        }
        try (SinkRunner runner = new SinkRunner()) {
            for (SinkSettings s : result.sinks()) {
                LOG.info("effective configuration of sink {}:\n{}", s.key(), SettingsPrinter.redacted(s));
                try {
                    runner.start(s, SinkMetrics.NONE);
                } catch (StoreException e) {
                    LOG.error("sink {}: the object store check failed: {}", s.key(), e.getMessage());
                    runner.requestStop();
                    runner.awaitAll();
                    return ExitCodes.STARTUP;
                }
            }
            Signals.onStop(() -> {
                LOG.info("stop requested: sealing, uploading and committing what was read");
                runner.requestStop();
            });
            runner.statusLineEvery(statusInterval);
            boolean clean = runner.awaitAll();
            return clean ? ExitCodes.OK : ExitCodes.INCOMPLETE;
        }
    }
}
