package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.ConfigError;
import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import dev.iggysink.adapters.iceberg.IcebergCatalogs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.Catalog;

/**
 * The Iceberg table sink of one connector file running inside the caller's JVM, as {@code run} runs it (SIGTERM and
 * SIGINT ask for the final commit and a clean stop). For programs that embed the sink, such as the demo.
 */
public final class EmbeddedTableSink implements AutoCloseable {
    private final TableConnectorConfig config;
    private final TableSinkRunner runner;
    private final Thread thread;
    private final AtomicInteger exitCode = new AtomicInteger(-1);

    private EmbeddedTableSink(TableConnectorConfig config) {
        this.config = config;
        this.runner = new TableSinkRunner(config);
        this.thread = new Thread(this::runToEnd, "table-sink-" + config.key());
    }

    /**
     * Reads the table sink's connector file (environment overrides as for {@code run}); {@link #start()} starts it.
     *
     * @throws IllegalArgumentException the file has errors (all of them in the message) or the sink is disabled
     */
    public static EmbeddedTableSink open(Path connectorFile, Map<String, String> env) {
        Logging.bridgeJul();
        TableConnectorReader.Result result = TableConnectorReader.load(connectorFile, env);
        List<String> errors = new ArrayList<>(result.errors().stream().map(ConfigError::toString).toList());
        result.connector().flatMap(TableSinkRunner::template)
                .ifPresent(t -> t.problems().forEach(p -> errors.add("plugin_config." + p)));
        if (!errors.isEmpty() || result.connector().isEmpty()) {
            throw new IllegalArgumentException(connectorFile + ": " + String.join("; ", errors));
        }
        TableConnectorConfig config = result.connector().get();
        if (!config.enabled()) throw new IllegalArgumentException(connectorFile + ": the sink is disabled");
        return new EmbeddedTableSink(config);
    }

    /** Starts the consumer loops on a thread of their own; SIGTERM and SIGINT from now on ask them to stop. */
    public void start() {
        Signals.onStop(runner::requestStop);
        thread.start();
    }

    private void runToEnd() {
        try {
            exitCode.set(runner.run());
        } catch (InterruptedException e) {
            exitCode.set(ExitCodes.INCOMPLETE);
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A new client of the sink's catalog, configured as the sink's own; the caller closes it. Open it before
     * {@link #start()} when the catalog is a new SQLite file: two clients creating its tables at once collide.
     */
    public Catalog openCatalog() {
        return IcebergCatalogs.open(TableSinkRunner.catalog(config.catalog()));
    }

    /** The consumer group of each configured stream, by stream name. */
    public Map<String, String> consumerGroups() {
        return config.streams().stream().collect(Collectors.toMap(s -> s.stream(), s -> s.consumerGroup(),
                (a, b) -> a));
    }

    /** Whether the sink's loops still run (false once it stopped, also when it could not start). */
    public boolean running() {
        return thread.isAlive();
    }

    /** Asks every loop to commit what it read to the tables, then stop; returns at once. */
    public void requestStop() {
        runner.requestStop();
    }

    /** Waits until the sink stopped; its exit code as {@code run} would return it (0: everything read committed). */
    public int awaitStopped() throws InterruptedException {
        thread.join();
        return exitCode.get();
    }

    /** Asks for a stop and waits for it; an interrupt while waiting stays set for the caller. */
    @Override
    public void close() {
        runner.requestStop();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
