package dev.iggysink.bootstrap.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay in front of the store that can stop passing answers on: requests still reach the store (a PUT becomes
 * durable) but the client never learns it. That is the moment a kill -9 turns into "durable, not committed", which a
 * delay before the request (the request never arrives) cannot produce. Interim {@code 100 Continue} answers still
 * pass, so a client that waits for them sends its body.
 */
final class StoreRelay implements AutoCloseable {
    private static final byte[] CONTINUE = "HTTP/1.1 100".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads;
    private final AtomicInteger swallowed = new AtomicInteger();
    private volatile boolean swallowing;
    private volatile boolean closed;

    private StoreRelay(URI target) throws IOException {
        this.target = new InetSocketAddress(target.getHost(), target.getPort());
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "store-relay");
            t.setDaemon(true);
            return t;
        });
        threads.execute(this::accept);
    }

    static StoreRelay start(URI target) throws IOException {
        return new StoreRelay(target);
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** From now on, answers (but interim ones) are dropped; the requests still go through. */
    void swallowAnswers() {
        swallowing = true;
    }

    /** How many reads of answers were dropped in part or whole. */
    int swallowed() {
        return swallowed.get();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (closed) return;
                continue;
            }
            sockets.add(client);
            Socket upstream = new Socket();
            sockets.add(upstream);
            try {
                upstream.connect(target, 5_000);
            } catch (IOException e) {
                close(client); // the store is not there: the client sees a closed connection
                close(upstream);
                continue;
            }
            threads.execute(() -> pump(client, upstream, false));
            threads.execute(() -> pump(upstream, client, true));
        }
    }

    private void pump(Socket from, Socket to, boolean answers) {
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                int pass = n;
                if (answers && swallowing) {
                    // Only an interim answer passes (up to its blank line); whatever follows it is dropped.
                    pass = startsWith(buf, n, CONTINUE) ? headEnd(buf, n) : 0;
                    if (pass < n) swallowed.incrementAndGet();
                }
                if (pass > 0) {
                    out.write(buf, 0, pass);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // the other side went away (a killed sink, a closed relay): so does this connection
        } finally {
            close(from);
            close(to);
        }
    }

    /** Length up to and including the first blank line, or {@code n} when there is none. */
    private static int headEnd(byte[] buf, int n) {
        for (int i = 3; i < n; i++) {
            if (buf[i - 3] == '\r' && buf[i - 2] == '\n' && buf[i - 1] == '\r' && buf[i] == '\n') return i + 1;
        }
        return n;
    }

    private static boolean startsWith(byte[] buf, int n, byte[] prefix) {
        if (n < prefix.length) return false;
        for (int i = 0; i < prefix.length; i++) if (buf[i] != prefix[i]) return false;
        return true;
    }

    private void close(Socket s) {
        sockets.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
        Set.copyOf(sockets).forEach(this::close);
        threads.shutdownNow();
    }
}
