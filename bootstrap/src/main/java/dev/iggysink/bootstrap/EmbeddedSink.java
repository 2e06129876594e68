package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.ConnectorConfig;
import dev.iggysink.adapters.config.ConfigError;
import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.bootstrap.admin.AdminHttpServer;
import dev.iggysink.bootstrap.admin.PrometheusMetrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The sinks of one connector file running inside the caller's JVM, wired as {@code run} wires them (store check,
 * metrics, admin server, SIGTERM/SIGINT ask for a clean stop). For programs that embed the sink, such as the demo,
 * which lives in its own module so that this jar ships no test infrastructure.
 */
public final class EmbeddedSink implements AutoCloseable {
    private final PrometheusMetrics metrics;
    private final SinkRunner runner;
    private final AdminHttpServer admin;

    private EmbeddedSink(PrometheusMetrics metrics, SinkRunner runner, AdminHttpServer admin) {
        this.metrics = metrics;
        this.runner = runner;
        this.admin = admin;
    }

    /**
     * Reads the connector file (environment overrides as for {@code run}), starts the admin server and every enabled
     * sink.
     *
     * @throws IllegalArgumentException the file has errors (all of them in the message) or no enabled sink
     * @throws IOException the admin server cannot listen on its address
     * @throws StoreException a store refused the startup check; nothing was consumed
     */
    public static EmbeddedSink start(Path connectorFile, Map<String, String> env) throws IOException, StoreException {
        Logging.bridgeJul();
        ConfigResult config = ConnectorConfigLoader.load(connectorFile, env);
        if (!config.ok()) {
            throw new IllegalArgumentException(connectorFile + ": " + config.errors().stream()
                    .map(ConfigError::toString).collect(Collectors.joining("; ")));
        }
        if (config.sinks().isEmpty()) throw new IllegalArgumentException(connectorFile + ": no enabled S3 sink");
        PrometheusMetrics metrics = new PrometheusMetrics();
        SinkRunner runner = new SinkRunner();
        Optional<AdminHttpServer> admin = RunCommand.startAdmin(config.sinks(), runner, metrics);
        if (admin.isEmpty()) {
            runner.close();
            metrics.close();
            throw new IOException("admin server cannot listen on "
                    + config.sinks().get(0).admin().address().orElse("?"));
        }
        EmbeddedSink sink = new EmbeddedSink(metrics, runner, admin.get());
        Signals.onStop(runner::requestStop);
        Signals.onHurry(runner::hurryStop);
        try {
            for (ConnectorConfig s : config.sinks()) runner.start(s, metrics.forSink(s.key()));
        } catch (StoreException e) {
            sink.close();
            throw e;
        }
        return sink;
    }

    /** {@code http://host:port} of the admin server (a wildcard bind answers on loopback); empty when off. */
    public Optional<URI> adminUrl() {
        return admin.address().map(EmbeddedSink::url);
    }

    static URI url(InetSocketAddress bound) {
        String host = bound.getAddress() == null || bound.getAddress().isAnyLocalAddress()
                ? "127.0.0.1" : bound.getAddress().getHostAddress();
        if (host.contains(":")) host = "[" + host + "]";
        return URI.create("http://" + host + ":" + bound.getPort());
    }

    /** Every partition of every sink, as {@code /status} shows them. */
    public List<PartitionStatus> partitions() {
        return runner.running().stream().flatMap(r -> r.service().status().partitions().stream()).toList();
    }

    /** The first sink's object store, open until {@link #close()}. */
    public ObjectStore store() {
        return runner.running().get(0).store();
    }

    /** Asks every sink to seal, upload and commit what it read, then stop; returns at once. */
    public void requestStop() {
        runner.requestStop();
    }

    /** Waits until every sink stopped; true when everything read became durable and was committed. */
    public boolean awaitStopped() throws InterruptedException {
        return runner.awaitAll();
    }

    @Override
    public void close() {
        admin.close();
        runner.close();
        metrics.close();
    }
}
