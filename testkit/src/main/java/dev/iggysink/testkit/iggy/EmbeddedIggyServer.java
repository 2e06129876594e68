package dev.iggysink.testkit.iggy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory Apache Iggy 0.8 broker on 127.0.0.1 for tests, driven by the real Java client over TCP.
 *
 * <p>It reproduces what a sink can observe of the 0.8 server: framing and status codes, byte layouts, server-assigned
 * offsets/timestamps/ids/checksums, the five polling strategies, consumer offsets, and consumer-group membership per
 * connection with the cooperative join rebalance (pending revocations, timeout) and the full rebalance on leave or
 * disconnect. Nothing is persisted; users are root {@code iggy/iggy} plus {@link Options#extraUsers()}, all with every
 * permission.
 *
 * <p>Beyond the protocol it can misbehave on purpose: {@link #dropConnections()} (FIN), {@link #resetConnections()}
 * (RST) and {@link #stallResponses(boolean)} (hold requests unanswered, to put a request "in flight").
 *
 * <p>Thread-safe. One platform thread per connection; {@link #close()} joins them.
 */
public final class EmbeddedIggyServer implements AutoCloseable {

    /**
     * Start-up options.
     *
     * @param port TCP port on 127.0.0.1, 0 for a free one
     * @param extraUsers more users besides root, user name to password (ids 1, 2, ... in map order)
     * @param rebalancingTimeout how long a pending partition revocation may wait before it is forced (server: 30 s)
     */
    public record Options(int port, Map<String, String> extraUsers, Duration rebalancingTimeout) {

        public Options {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            Objects.requireNonNull(extraUsers, "extraUsers");
            // Map order decides the extra users' ids, so keep it.
            extraUsers = Collections.unmodifiableMap(new LinkedHashMap<>(extraUsers));
            Objects.requireNonNull(rebalancingTimeout, "rebalancingTimeout");
            if (rebalancingTimeout.isNegative() || rebalancingTimeout.isZero()) {
                throw new IllegalArgumentException("rebalancingTimeout must be positive");
            }
        }

        public static Options defaults() {
            return new Options(0, Map.of(), Duration.ofSeconds(30));
        }

        public Options withPort(int newPort) {
            return new Options(newPort, extraUsers, rebalancingTimeout);
        }

        public Options withUser(String username, String password) {
            Map<String, String> users = new LinkedHashMap<>(extraUsers);
            users.put(username, password);
            return new Options(port, users, rebalancingTimeout);
        }

        public Options withRebalancingTimeout(Duration timeout) {
            return new Options(port, extraUsers, timeout);
        }
    }

    private static final String HOST = "127.0.0.1";
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final BrokerState state;
    private final ServerSocket serverSocket;
    private final Thread acceptor;
    private final Thread revocationTimer;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final List<Thread> connectionThreads = new ArrayList<>();
    private final long timerPeriodMillis;
    private final AtomicInteger heldRequests = new AtomicInteger();
    private volatile boolean stalled;
    private volatile boolean closed;

    private EmbeddedIggyServer(Options options) throws IOException {
        this.state = new BrokerState(options.extraUsers(), options.rebalancingTimeout());
        // The server checks revocation deadlines every 5 s; shortened timeouts in tests need a finer tick.
        this.timerPeriodMillis = Math.max(10, Math.min(5_000, options.rebalancingTimeout().toMillis() / 5));
        this.serverSocket = new ServerSocket();
        serverSocket.setReuseAddress(true);
        serverSocket.bind(new InetSocketAddress(InetAddress.getByName(HOST), options.port()), 128);
        int instance = INSTANCES.incrementAndGet();
        this.acceptor = new Thread(this::acceptLoop, "iggy-embedded-" + instance + "-accept");
        this.revocationTimer = new Thread(this::revocationLoop, "iggy-embedded-" + instance + "-revocations");
        acceptor.setDaemon(true);
        revocationTimer.setDaemon(true);
        acceptor.start();
        revocationTimer.start();
    }

    /** Starts on 127.0.0.1, a free port, root {@code iggy/iggy}, revocation timeout 30 s. */
    public static EmbeddedIggyServer start() {
        return start(Options.defaults());
    }

    public static EmbeddedIggyServer start(Options options) {
        try {
            return new EmbeddedIggyServer(options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded Iggy broker", e);
        }
    }

    public String host() {
        return HOST;
    }

    public int port() {
        return serverSocket.getLocalPort();
    }

    /** {@code "127.0.0.1:port"}. */
    public String address() {
        return HOST + ":" + port();
    }

    /**
     * Closes every client socket gracefully (FIN) while the listener stays up. A request the client has in flight
     * then never gets an answer, which wedges the 0.8 Java client; an idle client reconnects on its next call.
     */
    public void dropConnections() {
        for (Connection c : List.copyOf(connections)) {
            c.drop();
        }
    }

    /** Closes every client socket with RST (SO_LINGER 0), as a crash would; in-flight calls fail. */
    public void resetConnections() {
        for (Connection c : List.copyOf(connections)) {
            c.reset();
        }
    }

    /**
     * While stalled, requests are read but not answered, so a test can make one "in flight" before
     * {@link #dropConnections()} or {@link #resetConnections()}. Un-stalling answers the held requests.
     */
    public void stallResponses(boolean stall) {
        this.stalled = stall;
    }

    boolean stalled() {
        return stalled;
    }

    void requestHeld(int delta) {
        heldRequests.addAndGet(delta);
    }

    /**
     * Requests read but held by {@link #stallResponses(boolean)}; wait for 1 to know a client call is in flight.
     */
    public int heldRequests() {
        return heldRequests.get();
    }

    /** Open client connections (each is a separate server-side client). */
    public int connectionCount() {
        return connections.size();
    }

    /**
     * Stamps the messages sent from now on with {@code clock}'s time, as a server whose clock reads it would: a test
     * can give records times hours apart without waiting for them. Timestamps still never decrease along a
     * partition's offsets, as on a real server.
     */
    public void stampMessagesWith(java.time.InstantSource clock) {
        state.stampClock(java.util.Objects.requireNonNull(clock, "clock"));
    }

    /** Messages stored in a partition, by stream and topic name; 0 when any of them does not exist. */
    public long messageCount(String stream, String topic, int partition) {
        return state.messageCount(stream, topic, partition);
    }

    /** Stops accepting, closes all sockets and joins the broker's threads. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            serverSocket.close();
        } catch (IOException e) {
            // the accept loop ends either way
        }
        for (Connection c : List.copyOf(connections)) {
            c.closeQuietly();
        }
        revocationTimer.interrupt();
        join(acceptor);
        join(revocationTimer);
        List<Thread> threads;
        synchronized (connectionThreads) {
            threads = List.copyOf(connectionThreads);
        }
        threads.forEach(EmbeddedIggyServer::join);
    }

    void unregister(Connection connection) {
        connections.remove(connection);
    }

    private void acceptLoop() {
        while (!closed) {
            Socket socket;
            try {
                socket = serverSocket.accept();
            } catch (IOException e) {
                return;
            }
            try {
                socket.setTcpNoDelay(true);
                socket.setKeepAlive(true);
            } catch (SocketException e) {
                closeQuietly(socket);
                continue;
            }
            Connection c = new Connection(socket, state, this);
            connections.add(c);
            Thread t = new Thread(c, "iggy-embedded-conn-" + c.session.address);
            t.setDaemon(true);
            synchronized (connectionThreads) {
                connectionThreads.removeIf(th -> !th.isAlive());
                connectionThreads.add(t);
            }
            if (closed) {
                c.closeQuietly();
            }
            t.start();
        }
    }

    private void revocationLoop() {
        while (!closed) {
            try {
                Thread.sleep(timerPeriodMillis);
            } catch (InterruptedException e) {
                return;
            }
            state.expireRevocations(System.nanoTime());
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing to release
        }
    }

    private static void join(Thread t) {
        try {
            t.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
