package dev.iggysink.bootstrap.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;

/**
 * A TCP relay in front of the store that can stop passing answers on: requests still reach the store (a PUT becomes
 * durable) but the client never learns it. That is the moment a kill -9 turns into "durable, not committed", which a
 * delay before the request (the request never arrives) cannot produce. Interim {@code 100 Continue} answers still
 * pass, so a client that waits for them sends its body.
 *
 * <p>It can also hold requests: each request the client sends is framed (request line, headers, a body by
 * Content-Length), and from {@link #hold} on, a request whose method and target match is kept here instead of being
 * passed on, with everything the client sends after it on that connection. The client waits for an answer that does
 * not come (a PUT under way); {@link #release} then sends each held request, whole, to the store on a connection of
 * its own and returns the store's answers: the PUT lands late, after whatever happened meanwhile. A request with a
 * chunked body ends the framing of its connection (it and what follows are passed on as they are, never held).
 */
final class StoreRelay implements AutoCloseable {
    private static final byte[] CONTINUE = "HTTP/1.1 100".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads;
    private final AtomicInteger swallowed = new AtomicInteger();
    private final List<Held> held = new CopyOnWriteArrayList<>();
    private volatile boolean swallowing;
    private volatile BiPredicate<String, String> holding;
    private volatile BiPredicate<String, String> swallowingAfter;
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

    /**
     * From now on, once a request whose method and target match has been passed on over a connection, that
     * connection's answers (but interim ones) are dropped; other connections' answers pass. With the aws client over
     * http, whole-object PUTs of data files have connections of their own, so {@code PUT} of a data key swallows
     * their answers while claims, HEADs and LISTs are answered.
     */
    void swallowAnswersAfter(BiPredicate<String, String> methodAndTarget) {
        swallowingAfter = methodAndTarget;
    }

    /** How many reads of answers were dropped in part or whole. */
    int swallowed() {
        return swallowed.get();
    }

    /**
     * From now on, a request whose method and target (as in its request line, e.g. {@code PUT},
     * {@code /bucket/key?x=1}) match is held, not passed on; see the class comment.
     */
    void hold(BiPredicate<String, String> methodAndTarget) {
        holding = methodAndTarget;
    }

    /** The request lines of the held requests that arrived whole (head and body), in order. */
    List<String> held() {
        List<String> out = new ArrayList<>();
        for (Held h : held) if (h.complete) out.add(h.requestLine);
        return out;
    }

    /**
     * Stops holding, and sends every held request that arrived whole to the store, each on a connection of its own,
     * in order; returns the status line of the store's final answer to each (an interim {@code 100 Continue} is
     * skipped). Nothing reaches the client that sent it. A request that did not arrive whole is dropped.
     */
    List<String> release() throws IOException {
        holding = null;
        List<String> answers = new ArrayList<>();
        for (Held h : held) {
            held.remove(h);
            if (!h.complete) continue;
            try (Socket s = new Socket()) {
                s.connect(target, 5_000);
                s.setSoTimeout(60_000);
                OutputStream out = s.getOutputStream();
                out.write(h.bytes());
                out.flush();
                answers.add(finalStatusLine(s.getInputStream()));
            }
        }
        return answers;
    }

    /** The first status line of an answer that is not interim (1xx); reads no further than its head. */
    private static String finalStatusLine(InputStream in) throws IOException {
        while (true) {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int last4 = 0;
            while (last4 != 0x0d0a0d0a) {
                int b = in.read();
                if (b < 0) throw new IOException("the store closed the connection; answer so far: " + head);
                head.write(b);
                last4 = (last4 << 8) | b;
            }
            String text = head.toString(StandardCharsets.ISO_8859_1);
            String statusLine = text.substring(0, text.indexOf("\r\n"));
            if (!statusLine.matches("HTTP/\\d\\.\\d 1\\d\\d.*")) return statusLine;
        }
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
            AtomicBoolean swallowHere = new AtomicBoolean();
            threads.execute(() -> requests(client, upstream, swallowHere));
            threads.execute(() -> pump(upstream, client, swallowHere));
        }
    }

    /** The store's side of one connection: its answers passed on to the client, or dropped while swallowing. */
    private void pump(Socket from, Socket to, AtomicBoolean swallowHere) {
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                int pass = n;
                if (swallowing || swallowHere.get()) {
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

    /**
     * The client's side of one connection: its bytes passed on to the store request by request, a request that
     * {@link #holding} matches (and all after it) kept instead.
     */
    private void requests(Socket client, Socket upstream, AtomicBoolean swallowHere) {
        byte[] buf = new byte[64 * 1024];
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int last4 = 0;
        long body = -1; // bytes of the current request's body still to come; -1 while reading a head
        boolean framed = true;
        Held current = null; // once a request of this connection is held, everything after it goes there too
        try (InputStream in = client.getInputStream(); OutputStream out = upstream.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                int i = 0;
                while (i < n) {
                    if (!framed || body > 0) {
                        int take = framed ? (int) Math.min(body, n - i) : n - i;
                        if (current != null) current.bytes.write(buf, i, take);
                        else out.write(buf, i, take);
                        i += take;
                        if (framed) {
                            body -= take;
                            if (body == 0) {
                                body = -1;
                                if (current != null) current.complete = true;
                            }
                        }
                        continue;
                    }
                    int b = buf[i++] & 0xff;
                    head.write(b);
                    last4 = (last4 << 8) | b;
                    if (last4 != 0x0d0a0d0a) continue;
                    // A whole head: pass it on or hold it, then its body follows the same way.
                    last4 = 0;
                    String text = head.toString(StandardCharsets.ISO_8859_1);
                    head.reset();
                    String requestLine = text.substring(0, text.indexOf("\r\n"));
                    String[] parts = requestLine.split(" ");
                    BiPredicate<String, String> rule = holding;
                    if (current == null && rule != null && parts.length >= 2 && rule.test(parts[0], parts[1])) {
                        current = new Held(requestLine);
                        held.add(current);
                    }
                    byte[] headBytes = text.getBytes(StandardCharsets.ISO_8859_1);
                    if (current != null) {
                        current.bytes.write(headBytes, 0, headBytes.length);
                    } else {
                        BiPredicate<String, String> swallow = swallowingAfter;
                        if (swallow != null && parts.length >= 2 && swallow.test(parts[0], parts[1])) {
                            swallowHere.set(true);
                        }
                        out.write(headBytes);
                    }
                    String lower = text.toLowerCase(Locale.ROOT);
                    if (lower.contains("\r\ntransfer-encoding:") && lower.contains("chunked")) {
                        framed = false;
                        continue;
                    }
                    body = contentLength(text);
                    if (body == 0) {
                        body = -1;
                        if (current != null) current.complete = true;
                    }
                }
                out.flush();
            }
        } catch (IOException e) {
            // the other side went away (a killed sink, a closed relay): so does this connection
        } finally {
            close(client);
            close(upstream);
        }
    }

    private static long contentLength(String head) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("Content-Length")) {
                return Long.parseLong(line.substring(colon + 1).trim());
            }
        }
        return 0;
    }

    /** A request kept back: its request line, and its bytes (head and body) as the client sent them. */
    private static final class Held {
        final String requestLine;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile boolean complete;

        Held(String requestLine) {
            this.requestLine = requestLine;
        }

        byte[] bytes() {
            synchronized (bytes) {
                return bytes.toByteArray();
            }
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
