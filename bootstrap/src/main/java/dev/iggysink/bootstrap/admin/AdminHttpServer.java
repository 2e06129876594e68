package dev.iggysink.bootstrap.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.iggysink.application.settings.AdminSettings;
import dev.iggysink.application.status.Health;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The admin endpoints of the process, for every sink it runs:
 * <ul>
 *   <li>{@code GET /health}: 200 {@code {"status":"ok"}}, or 503 with {@code "degraded"} (working toward delivery,
 *       e.g. the store is down and uploads are retried) or {@code "failed"} (needs a person) and the reasons;</li>
 *   <li>{@code GET /status}: per partition offsets, buffers, uploads and errors, plus process totals;</li>
 *   <li>{@code GET /metrics}: Prometheus text;</li>
 *   <li>{@code POST /flush}, {@code /pause}, {@code /resume}: applied to every sink; guarded by {@link AdminAccess}.</li>
 * </ul>
 * On the JDK's own HTTP server: a handful of requests a minute do not justify a web framework in the fat jar.
 */
public final class AdminHttpServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminHttpServer.class);
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final String JSON = "application/json; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService executor;
    private final Supplier<List<ManagedSink>> sinks;
    private final PrometheusMetrics metrics;
    private final AdminAccess access;

    private AdminHttpServer(HttpServer server, ExecutorService executor, Supplier<List<ManagedSink>> sinks,
                            PrometheusMetrics metrics, AdminAccess access) {
        this.server = server;
        this.executor = executor;
        this.sinks = sinks;
        this.metrics = metrics;
        this.access = access;
    }

    /**
     * Binds and starts the server, or returns a stopped one when {@code settings.address()} is empty ({@code off}).
     *
     * @param sinks read on every request, so sinks started later are served too; must be safe to call from the
     *              server's threads
     * @throws IOException when the address cannot be bound (in use, not local): the caller should not start
     */
    public static AdminHttpServer start(AdminSettings settings, Supplier<List<ManagedSink>> sinks,
                                        PrometheusMetrics metrics) throws IOException {
        AdminAccess access = AdminAccess.of(settings.token());
        if (settings.address().isEmpty()) {
            LOG.info("admin server off");
            return new AdminHttpServer(null, null, sinks, metrics, access);
        }
        InetSocketAddress bind = parseAddress(settings.address().get());
        HttpServer server = HttpServer.create(bind, 16);
        // Daemon threads: the admin server must never be what keeps a stopped sink's JVM alive.
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "admin-http");
            t.setDaemon(true);
            return t;
        });
        AdminHttpServer admin = new AdminHttpServer(server, executor, sinks, metrics, access);
        server.createContext("/", admin::handle);
        server.setExecutor(executor);
        server.start();
        InetSocketAddress bound = server.getAddress();
        LOG.info("admin server on http://{}:{} (GET /health /status /metrics; POST /flush /pause /resume {})",
                bound.getHostString(), bound.getPort(),
                access.tokenRequired() ? "need the bearer token" : "only from loopback, no token configured");
        return admin;
    }

    /** {@code host:port} or {@code [v6]:port}; port 0 binds an ephemeral port (tests). */
    static InetSocketAddress parseAddress(String address) {
        String text = address.strip();
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("admin address is not host:port: " + address);
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("admin address has no numeric port: " + address, e);
        }
        return new InetSocketAddress(host, port);
    }

    /** Where the server listens; empty when it is off. */
    public Optional<InetSocketAddress> address() {
        return server == null ? Optional.empty() : Optional.of(server.getAddress());
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            switch (path) {
                case "/health" -> get(exchange, method, this::health);
                case "/status" -> get(exchange, method, this::status);
                case "/metrics" -> get(exchange, method, this::metrics);
                case "/flush" -> control(exchange, method, "flush", s -> s.service().flush(), 202);
                case "/pause" -> control(exchange, method, "pause", s -> s.service().pause(), 200);
                case "/resume" -> control(exchange, method, "resume", s -> s.service().resume(), 200);
                default -> send(exchange, 404, JSON, error("no such endpoint: " + path));
            }
        } catch (RuntimeException e) {
            LOG.warn("admin: {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI().getPath(), e);
            if (exchange.getResponseCode() == -1) send(exchange, 500, JSON, error("internal error, see the log"));
        } finally {
            exchange.close();
        }
    }

    private interface Getter {
        void answer(HttpExchange exchange) throws IOException;
    }

    private void get(HttpExchange exchange, String method, Getter getter) throws IOException {
        if (!method.equals("GET")) {
            exchange.getResponseHeaders().set("Allow", "GET");
            send(exchange, 405, JSON, error("use GET"));
            return;
        }
        getter.answer(exchange);
    }

    private List<SinkView> views() {
        return sinks.get().stream().map(s -> new SinkView(s.key(), s.service().status())).toList();
    }

    private void health(HttpExchange exchange) throws IOException {
        StatusJson.Overall overall = StatusJson.overall(views());
        send(exchange, overall.health() == Health.OK ? 200 : 503, JSON, StatusJson.health(overall));
    }

    private void status(HttpExchange exchange) throws IOException {
        send(exchange, 200, JSON, StatusJson.status(views()));
    }

    private void metrics(HttpExchange exchange) throws IOException {
        send(exchange, 200, PrometheusMetrics.CONTENT_TYPE, metrics.scrape(views()));
    }

    private void control(HttpExchange exchange, String method, String action, Consumer<ManagedSink> apply,
                         int okStatus) throws IOException {
        if (!method.equals("POST")) {
            exchange.getResponseHeaders().set("Allow", "POST");
            send(exchange, 405, JSON, error("use POST"));
            return;
        }
        String remote = exchange.getRemoteAddress().getAddress().getHostAddress();
        AdminAccess.Decision decision = access.decide(exchange.getRequestHeaders().getFirst("Authorization"),
                exchange.getRemoteAddress().getAddress());
        switch (decision) {
            case UNAUTHORIZED -> {
                LOG.warn("admin: {} from {} refused: missing or wrong bearer token", action, remote);
                exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"iggy-s3-sink\"");
                send(exchange, 401, JSON, error("a valid bearer token is required"));
            }
            case FORBIDDEN -> {
                LOG.warn("admin: {} from {} refused: no token configured, so only loopback callers may", action,
                        remote);
                send(exchange, 403, JSON, error("control endpoints answer loopback callers only when no token"
                        + " is configured"));
            }
            case ALLOW -> {
                List<ManagedSink> targets = sinks.get();
                targets.forEach(apply);
                List<String> keys = targets.stream().map(ManagedSink::key).toList();
                LOG.info("admin: {} requested from {} for sink(s) {}", action, remote, keys);
                ObjectNode body = MAPPER.createObjectNode();
                body.put("action", action);
                keys.forEach(body.putArray("sinks")::add);
                send(exchange, okStatus, JSON, MAPPER.writeValueAsString(body));
            }
        }
    }

    private static String error(String message) {
        ObjectNode body = MAPPER.createObjectNode();
        body.put("error", message);
        return MAPPER.writeValueAsString(body);
    }

    private static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** Stops accepting requests, lets in-flight ones finish for up to a second. */
    @Override
    public void close() {
        if (server == null) return;
        server.stop(1);
        executor.shutdownNow();
        LOG.info("admin server stopped");
    }
}
