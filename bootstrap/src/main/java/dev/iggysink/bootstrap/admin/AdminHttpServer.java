package dev.iggysink.bootstrap.admin;

import dev.iggysink.application.status.Health;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The admin endpoints of the process, for every sink it runs:
 * <ul>
 *   <li>{@code GET /}: the status page, one self-contained HTML document that polls {@code /status};</li>
 *   <li>{@code GET /health} (readiness): 200 {@code {"status":"ok"}}; 200 {@code "paused"} with since when and who
 *       asked (a deliberate pause keeps the pod ready: an unready pod would hold up node drains under a disruption
 *       budget); or 503 with {@code "degraded"} (working toward delivery: the store or Iggy is down and retried, or
 *       a sink is still starting, naming what it waits for) or {@code "failed"} (needs a person) and the
 *       reasons;</li>
 *   <li>{@code GET /live} (liveness): 200 {@code {"status":"alive"}} unless a consumer loop stopped coming round
 *       (503 {@code "stuck"} with the loop): a restart helps only then, not while Iggy or the store is down, a
 *       partition is halted, or the sink is paused or starting;</li>
 *   <li>{@code GET /status}: per partition offsets, buffers, uploads and errors, rotations, plus process totals;</li>
 *   <li>{@code GET /metrics}: Prometheus text;</li>
 *   <li>{@code POST /flush}, {@code /pause}, {@code /resume}: applied to every sink; guarded by {@link AdminAccess}.</li>
 * </ul>
 * Every {@code GET} endpoint answers {@code HEAD} too. On Netty (already in the jar for the Iggy client), not the
 * JDK's HTTP server: that one reads a request on a pool thread, so a few clients that never finish their headers
 * froze it; here reading never holds a thread, and a request reaches the worker pool only once it is complete (see
 * docs/adr/0004-admin-http-server-on-netty.md).
 */
public final class AdminHttpServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminHttpServer.class);
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final String JSON = "application/json; charset=utf-8";
    private static final String HTML = "text/html; charset=utf-8";
    /** The page may run only its own inline script and style, and talk only to this server. */
    private static final String PAGE_POLICY = "default-src 'none'; script-src 'unsafe-inline'; "
            + "style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'";

    /**
     * What a client may cost: at most {@code maxConnections} open at once (more are closed on arrival), the request
     * line and headers within {@code headerTimeout} of the connection opening or the previous answer, the body
     * within {@code bodyTimeout} of the headers, at most {@code maxBodyBytes} of body.
     */
    record Limits(int maxConnections, Duration headerTimeout, Duration bodyTimeout, int maxBodyBytes) {
        static final Limits DEFAULT = new Limits(512, Duration.ofSeconds(10), Duration.ofSeconds(10), 64 * 1024);

        Limits {
            if (maxConnections < 1) throw new IllegalArgumentException("maxConnections must be at least 1");
            Objects.requireNonNull(headerTimeout, "headerTimeout");
            Objects.requireNonNull(bodyTimeout, "bodyTimeout");
        }
    }

    /** Set once bound; null while off. */
    private volatile Channel channel;
    private final EventLoopGroup io;
    private final ExecutorService workers;
    private final Supplier<List<ManagedSink>> sinks;
    private final Supplier<List<String>> starting;
    private final PrometheusMetrics metrics;
    private final AdminAccess access;

    private AdminHttpServer(EventLoopGroup io, ExecutorService workers, Supplier<List<ManagedSink>> sinks,
                            Supplier<List<String>> starting, PrometheusMetrics metrics, AdminAccess access) {
        this.io = io;
        this.workers = workers;
        this.sinks = sinks;
        this.starting = starting;
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
        return start(settings, sinks, List::of, metrics, Limits.DEFAULT);
    }

    /**
     * As {@link #start(AdminSettings, Supplier, PrometheusMetrics)}; {@code starting} tells what the sinks not
     * running yet wait for ("sink s3: waiting for Iggy at ..."), read on every request like {@code sinks}.
     */
    public static AdminHttpServer start(AdminSettings settings, Supplier<List<ManagedSink>> sinks,
                                        Supplier<List<String>> starting, PrometheusMetrics metrics)
            throws IOException {
        return start(settings, sinks, starting, metrics, Limits.DEFAULT);
    }

    static AdminHttpServer start(AdminSettings settings, Supplier<List<ManagedSink>> sinks,
                                 PrometheusMetrics metrics, Limits limits) throws IOException {
        return start(settings, sinks, List::of, metrics, limits);
    }

    static AdminHttpServer start(AdminSettings settings, Supplier<List<ManagedSink>> sinks,
                                 Supplier<List<String>> starting, PrometheusMetrics metrics, Limits limits)
            throws IOException {
        AdminAccess access = AdminAccess.of(settings.token());
        if (settings.address().isEmpty()) {
            LOG.info("admin server off");
            return new AdminHttpServer(null, null, sinks, starting, metrics, access);
        }
        InetSocketAddress bind = parseAddress(settings.address().get());
        // Daemon threads: the admin server must never be what keeps a stopped sink's JVM alive. One I/O thread
        // reads every connection without blocking; two workers answer complete requests only.
        EventLoopGroup io = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("admin-http-io", true),
                NioIoHandler.newFactory());
        ExecutorService workers = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(1024), new DefaultThreadFactory("admin-http", true));
        AdminHttpServer admin = new AdminHttpServer(io, workers, sinks, starting, metrics, access);
        ConnectionLimit limit = new ConnectionLimit(limits.maxConnections());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(io)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 128)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast("limit", limit)
                                .addLast("codec", new HttpServerCodec(4096, 8192, 8192))
                                .addLast("deadlines", new RequestDeadlines(limits.headerTimeout(),
                                        limits.bodyTimeout()))
                                .addLast("aggregate", new HttpObjectAggregator(limits.maxBodyBytes()))
                                .addLast("admin", admin.new Handler());
                    }
                });
        ChannelFuture bound = bootstrap.bind(bind).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            shutdown(io, workers);
            Throwable cause = bound.cause();
            if (cause instanceof IOException e) throw e;
            throw new IOException("cannot listen on " + settings.address().get() + ": " + cause, cause);
        }
        admin.channel = bound.channel();
        InetSocketAddress local = (InetSocketAddress) bound.channel().localAddress();
        LOG.info("admin server on {}{} (GET / /health /live /status /metrics; POST /flush /pause /resume {})",
                url(local),
                local.getAddress().isAnyLocalAddress() ? " (listening on every address, port " + local.getPort()
                        + ")" : "",
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

    /**
     * A URL a browser on this host can open: a wildcard bind ({@code 0.0.0.0}, {@code ::}) is reached through
     * loopback, as the bound address itself is no place to connect to.
     */
    static String url(InetSocketAddress bound) {
        InetAddress address = bound.getAddress();
        String host;
        if (address == null || address.isAnyLocalAddress()) {
            host = "127.0.0.1";
        } else if (address instanceof Inet6Address) {
            String text = address.getHostAddress();
            int scope = text.indexOf('%');
            host = "[" + (scope < 0 ? text : text.substring(0, scope)) + "]";
        } else {
            host = address.getHostAddress();
        }
        return "http://" + host + ":" + bound.getPort() + "/";
    }

    /** Where the server listens; empty when it is off. */
    public Optional<InetSocketAddress> address() {
        return channel == null ? Optional.empty() : Optional.of((InetSocketAddress) channel.localAddress());
    }

    /** The status page's URL as the banner prints it; empty when the server is off. */
    public Optional<String> url() {
        return address().map(AdminHttpServer::url);
    }

    /** Closes a connection beyond the limit at once, before anything of it is read. */
    @ChannelHandler.Sharable
    private static final class ConnectionLimit extends ChannelInboundHandlerAdapter {
        private final int max;
        private final AtomicInteger open = new AtomicInteger();
        private volatile long lastWarned;

        ConnectionLimit(int max) {
            this.max = max;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            if (open.incrementAndGet() > max) {
                long now = System.nanoTime();
                if (now - lastWarned > TimeUnit.MINUTES.toNanos(1)) {
                    lastWarned = now;
                    LOG.warn("admin: {} connections open, the most allowed; closing new ones until some end", max);
                }
                ctx.close();
                return;
            }
            super.channelActive(ctx);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            open.decrementAndGet();
            super.channelInactive(ctx);
        }
    }

    /**
     * Closes a connection whose request line and headers, or whose body, do not arrive in time. The clock for the
     * headers starts when the connection opens and again after each answer, so an idle keep-alive connection is
     * bounded too. Runs on the I/O thread, ahead of the aggregator: it sees the request in parts.
     */
    private static final class RequestDeadlines extends io.netty.channel.ChannelDuplexHandler {
        private final Duration headerTimeout;
        private final Duration bodyTimeout;
        private io.netty.util.concurrent.ScheduledFuture<?> deadline;

        RequestDeadlines(Duration headerTimeout, Duration bodyTimeout) {
            this.headerTimeout = headerTimeout;
            this.bodyTimeout = bodyTimeout;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            arm(ctx, headerTimeout);
            super.channelActive(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (msg instanceof io.netty.handler.codec.http.LastHttpContent) {
                disarm();
            } else if (msg instanceof io.netty.handler.codec.http.HttpRequest) {
                arm(ctx, bodyTimeout);
            }
            super.channelRead(ctx, msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, io.netty.channel.ChannelPromise promise)
                throws Exception {
            if (msg instanceof io.netty.handler.codec.http.LastHttpContent) {
                promise.addListener(f -> {
                    if (ctx.channel().isActive()) arm(ctx, headerTimeout);
                });
            }
            super.write(ctx, msg, promise);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            disarm();
            super.channelInactive(ctx);
        }

        private void arm(ChannelHandlerContext ctx, Duration timeout) {
            disarm();
            deadline = ctx.executor().schedule(() -> {
                LOG.debug("admin: closing {}: request not complete within {}", ctx.channel().remoteAddress(),
                        timeout);
                ctx.close();
            }, timeout.toNanos(), TimeUnit.NANOSECONDS);
        }

        private void disarm() {
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
        }
    }

    /** What a worker needs of a complete request; the request's buffers are released on the I/O thread. */
    private record Request(String method, String path, String authorization, InetAddress remote, boolean head,
                           boolean keepAlive) {
    }

    /**
     * Takes complete requests on the I/O thread and answers them on the worker pool, one at a time per connection
     * so pipelined requests are answered in order.
     */
    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean head = request.method().equals(HttpMethod.HEAD);
            if (!request.decoderResult().isSuccess()) {
                write(ctx, head, new Response(400, JSON, error("malformed request")), false);
                return;
            }
            Request r = new Request(request.method().name(), new QueryStringDecoder(request.uri()).path(),
                    request.headers().get(HttpHeaderNames.AUTHORIZATION),
                    ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress(), head,
                    HttpUtil.isKeepAlive(request));
            try {
                // A request the full pool refuses later ends its connection rather than leaving it unanswered.
                previous = previous.thenRunAsync(() -> write(ctx, head, answer(r), r.keepAlive()), workers)
                        .exceptionally(e -> {
                            ctx.close();
                            return null;
                        });
            } catch (RejectedExecutionException e) {
                write(ctx, head, new Response(503, JSON, error("admin server busy or stopping")), false);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("admin: connection from {} failed", ctx.channel().remoteAddress(), cause);
            ctx.close();
        }
    }

    /** One answer: status, content type, body, and extra headers. */
    private record Response(int status, String contentType, String body, List<String> headers) {
        Response(int status, String contentType, String body) {
            this(status, contentType, body, List.of());
        }

        Response withHeader(String name, String value) {
            List<String> more = new java.util.ArrayList<>(headers);
            more.add(name);
            more.add(value);
            return new Response(status, contentType, body, more);
        }
    }

    private Response answer(Request request) {
        try {
            return route(request);
        } catch (RuntimeException e) {
            LOG.warn("admin: {} {} failed", request.method(), request.path(), e);
            return new Response(500, JSON, error("internal error, see the log"));
        }
    }

    private Response route(Request request) {
        String method = request.method();
        String path = request.path();
        return switch (path) {
            case "/" -> get(method, () -> new Response(200, HTML, StatusPage.html())
                    .withHeader("Content-Security-Policy", PAGE_POLICY));
            case "/health" -> get(method, this::health);
            case "/live" -> get(method, this::live);
            case "/status" -> get(method, () -> new Response(200, JSON, StatusJson.status(views(), starting.get(),
                    access.tokenRequired())));
            case "/metrics" -> get(method, () -> new Response(200, PrometheusMetrics.CONTENT_TYPE,
                    metrics.scrape(views())));
            case "/flush" -> control(request, "flush", s -> s.service().flush(), 202);
            case "/pause" -> control(request, "pause",
                    s -> s.service().pause("POST /pause from " + request.remote().getHostAddress()), 200);
            case "/resume" -> control(request, "resume", s -> s.service().resume(), 200);
            default -> new Response(404, JSON, error("no such endpoint: " + path));
        };
    }

    private static Response get(String method, Supplier<Response> getter) {
        if (!method.equals("GET") && !method.equals("HEAD")) {
            return new Response(405, JSON, error("use GET")).withHeader("Allow", "GET, HEAD");
        }
        return getter.get();
    }

    private List<SinkView> views() {
        return sinks.get().stream()
                .map(s -> new SinkView(s.key(), s.service().status(), s.service().rotationCounts(),
                        s.service().tables(), s.service().audit()))
                .toList();
    }

    private Response health() {
        StatusJson.Overall overall = StatusJson.overall(views(), starting.get());
        boolean ready = overall.health() == Health.OK || overall.health() == Health.PAUSED;
        return new Response(ready ? 200 : 503, JSON, StatusJson.health(overall));
    }

    private Response live() {
        List<SinkView> views = views();
        List<String> stuck = new java.util.ArrayList<>();
        for (SinkView v : views) {
            for (String r : v.snapshot().stuck()) stuck.add(views.size() > 1 ? "sink " + v.key() + ": " + r : r);
        }
        return new Response(stuck.isEmpty() ? 200 : 503, JSON, StatusJson.live(stuck));
    }

    private Response control(Request request, String action, Consumer<ManagedSink> apply, int okStatus) {
        if (!request.method().equals("POST")) {
            return new Response(405, JSON, error("use POST")).withHeader("Allow", "POST");
        }
        String remote = request.remote().getHostAddress();
        AdminAccess.Decision decision = access.decide(request.authorization(), request.remote());
        return switch (decision) {
            case UNAUTHORIZED -> {
                LOG.warn("admin: {} from {} refused: missing or wrong bearer token", action, remote);
                yield new Response(401, JSON, error("a valid bearer token is required"))
                        .withHeader("WWW-Authenticate", "Bearer realm=\"iggy-s3-sink\"");
            }
            case FORBIDDEN -> {
                LOG.warn("admin: {} from {} refused: no token configured, so only loopback callers may", action,
                        remote);
                yield new Response(403, JSON, error("control endpoints answer loopback callers only when no token"
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
                yield new Response(okStatus, JSON, MAPPER.writeValueAsString(body));
            }
        };
    }

    private static String error(String message) {
        ObjectNode body = MAPPER.createObjectNode();
        body.put("error", message);
        return MAPPER.writeValueAsString(body);
    }

    /** A {@code HEAD} answer carries the headers of the {@code GET} one, Content-Length included, and no body. */
    private static void write(ChannelHandlerContext ctx, boolean head, Response response, boolean keepAlive) {
        byte[] bytes = response.body().getBytes(StandardCharsets.UTF_8);
        FullHttpResponse out = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(response.status()),
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
        out.headers().set(HttpHeaderNames.CONTENT_TYPE, response.contentType());
        out.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        out.headers().set(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        for (int i = 0; i < response.headers().size(); i += 2) {
            out.headers().set(response.headers().get(i), response.headers().get(i + 1));
        }
        HttpUtil.setKeepAlive(out, keepAlive);
        ChannelFuture written = ctx.writeAndFlush(out);
        if (!keepAlive) written.addListener(ChannelFutureListener.CLOSE);
    }

    /** The status page, read once from the jar. */
    static final class StatusPage {
        private static volatile String html;

        private StatusPage() {
        }

        static String html() {
            String page = html;
            if (page == null) {
                try (InputStream in = AdminHttpServer.class.getResourceAsStream("status.html")) {
                    if (in == null) throw new IllegalStateException("status.html is missing from the jar");
                    page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read status.html from the jar", e);
                }
                html = page;
            }
            return page;
        }
    }

    /** Workers first, so that no answer is written to an I/O thread that is gone. */
    private static void shutdown(EventLoopGroup io, ExecutorService workers) {
        workers.shutdown();
        try {
            if (!workers.awaitTermination(1, TimeUnit.SECONDS)) workers.shutdownNow();
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
        }
        io.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }

    /** Stops accepting connections, lets in-flight answers finish for up to a second. */
    @Override
    public void close() {
        if (channel == null) return;
        channel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        shutdown(io, workers);
        LOG.info("admin server stopped");
    }
}
