package dev.iggysink.testkit.s3;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An HTTP/1.1 relay on 127.0.0.1 in front of one target (an S3 server) that fails requests on a schedule.
 *
 * <p>How to use it: point the client under test at {@link #endpoint()}, then {@link #enqueue(Fault...)} faults. Each
 * incoming request takes the first queued fault whose {@linkplain Fault#matching(String) filter} matches its request
 * line (method, path and query, e.g. {@code "PUT /bucket/key?partNumber=2&uploadId=..."}); a request that takes no
 * fault is relayed byte for byte. So {@code enqueue(Fault.status(503))} fails exactly the next request, and
 * {@code enqueue(Fault.status(500).matching("partNumber=2"))} fails the upload of part 2 whenever it comes.
 *
 * <p>Faults: an HTTP status with an S3-style XML error body (optionally {@code Retry-After}), answered after the
 * request body has been read and followed by closing the connection; a delay before the request is relayed (pick
 * one longer than the client's timeout to produce a timeout); a TCP reset (RST, via SO_LINGER 0) as soon as the
 * request head has arrived; a body relayed with one byte changed (damaged on the way: the server sees a body that
 * does not match the checksum or hash the client sent with it).
 *
 * <p>It parses only request framing (Content-Length, chunked, {@code Expect: 100-continue}); clients must not
 * pipeline, which the AWS SDK and OkHttp do not. Thread-safe.
 */
public final class FaultProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final URI target;
    private final ServerSocket server;
    private final ExecutorService threads;
    private final LinkedList<Fault> schedule = new LinkedList<>();
    private final List<String> requestLines = new ArrayList<>();
    private final List<String> requestHeads = new ArrayList<>();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private FaultProxy(URI target) throws IOException {
        this.target = Objects.requireNonNull(target, "target");
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        int id = INSTANCES.incrementAndGet();
        AtomicInteger n = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fault-proxy-" + id + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        threads.execute(this::acceptLoop);
    }

    /** A proxy relaying to {@code target} (scheme http, host and port are used). */
    public static FaultProxy start(URI target) {
        try {
            return new FaultProxy(target);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the fault proxy's socket", e);
        }
    }

    /** Where clients connect: {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Appends faults to the schedule; returns this for chaining. */
    public FaultProxy enqueue(Fault... faults) {
        synchronized (schedule) {
            schedule.addAll(List.of(faults));
        }
        return this;
    }

    /** Faults not yet taken by a request. */
    public int pendingFaults() {
        synchronized (schedule) {
            return schedule.size();
        }
    }

    /** Every request line seen so far, in arrival order (relayed or failed). */
    public List<String> requestLines() {
        synchronized (requestLines) {
            return List.copyOf(requestLines);
        }
    }

    /** Every request head seen so far (request line and headers, CRLF-separated), in arrival order. */
    public List<String> requestHeads() {
        synchronized (requestLines) {
            return List.copyOf(requestHeads);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("closing fault proxy socket", e);
        }
        List.copyOf(open).forEach(this::closeQuietly);
        threads.shutdownNow();
    }

    @Override
    public String toString() {
        return "FaultProxy[" + endpoint() + " -> " + target + "]";
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                open.add(client);
                threads.execute(() -> serve(client));
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("fault proxy accept failed", e);
                }
                return;
            }
        }
    }

    private void serve(Socket client) {
        Socket upstream = null;
        try {
            InputStream in = new BufferedInputStream(client.getInputStream());
            OutputStream out = client.getOutputStream();
            while (!closed) {
                byte[] head = readHead(in);
                if (head == null) {
                    return;
                }
                RequestHead request = RequestHead.parse(head);
                synchronized (requestLines) {
                    requestLines.add(request.line);
                    requestHeads.add(new String(head, StandardCharsets.ISO_8859_1));
                }
                Fault fault = take(request.line);
                if (fault != null) {
                    LOG.debug("fault {} for {}", fault, request.line);
                    switch (fault.kind()) {
                        case RESET -> {
                            reset(client);
                            return;
                        }
                        case STATUS -> {
                            if (!request.expectContinue) {
                                copyBody(request, in, OutputStream.nullOutputStream());
                            }
                            out.write(errorResponse(fault));
                            out.flush();
                            return;
                        }
                        case DELAY -> Thread.sleep(fault.delay().toMillis());
                        case CORRUPT -> {
                            if (request.chunked || request.contentLength == 0) {
                                throw new IOException("a corrupt-body fault needs a Content-Length body");
                            }
                        }
                    }
                }
                if (upstream == null) {
                    upstream = new Socket();
                    upstream.connect(new InetSocketAddress(target.getHost(), target.getPort()), 5_000);
                    open.add(upstream);
                    Socket from = upstream;
                    threads.execute(() -> pump(from, client));
                }
                OutputStream up = upstream.getOutputStream();
                up.write(head);
                if (fault != null && fault.kind() == Fault.Kind.CORRUPT) {
                    int first = in.read();
                    if (first < 0) {
                        throw new IOException("connection closed inside a request body");
                    }
                    up.write(first ^ 0x20);
                    copyExactly(in, up, request.contentLength - 1);
                } else {
                    copyBody(request, in, up);
                }
                up.flush();
            }
        } catch (IOException e) {
            LOG.debug("fault proxy connection ended: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(client);
            if (upstream != null) {
                closeQuietly(upstream);
            }
        }
    }

    /** Upstream to client, raw, until either side closes. */
    private void pump(Socket from, Socket to) {
        try {
            from.getInputStream().transferTo(to.getOutputStream());
        } catch (IOException e) {
            LOG.debug("fault proxy pump ended: {}", e.toString());
        } finally {
            closeQuietly(to);
            closeQuietly(from);
        }
    }

    private Fault take(String requestLine) {
        synchronized (schedule) {
            for (Iterator<Fault> it = schedule.iterator(); it.hasNext(); ) {
                Fault f = it.next();
                if (f.match() == null || requestLine.contains(f.match())) {
                    it.remove();
                    return f;
                }
            }
            return null;
        }
    }

    private void reset(Socket client) {
        try {
            client.setSoLinger(true, 0);
        } catch (SocketException e) {
            LOG.debug("SO_LINGER", e);
        }
        closeQuietly(client);
    }

    private void closeQuietly(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            LOG.trace("close", e);
        }
    }

    private static byte[] errorResponse(Fault fault) {
        String code = switch (fault.status()) {
            case 503 -> "ServiceUnavailable";
            case 429 -> "SlowDown";
            case 500 -> "InternalError";
            case 403 -> "AccessDenied";
            case 408 -> "RequestTimeout";
            default -> "InjectedFault";
        };
        String body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code
                + "</Code><Message>injected by FaultProxy</Message><RequestId>fault-proxy</RequestId></Error>";
        byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder()
                .append("HTTP/1.1 ").append(fault.status()).append(' ').append(code).append("\r\n")
                .append("Content-Type: application/xml\r\n")
                .append("Content-Length: ").append(bodyBytes.length).append("\r\n")
                .append("Connection: close\r\n");
        if (fault.retryAfter() != null) {
            head.append("Retry-After: ").append(fault.retryAfter().toSeconds()).append("\r\n");
        }
        head.append("\r\n");
        byte[] headBytes = head.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[headBytes.length + bodyBytes.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(bodyBytes, 0, all, headBytes.length, bodyBytes.length);
        return all;
    }

    /** The request head including the blank line, or null at a clean end of stream. */
    private static byte[] readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream(1024);
        int matched = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                if (head.size() == 0) {
                    return null;
                }
                throw new IOException("connection closed inside a request head");
            }
            head.write(b);
            matched = switch (matched) {
                case 0, 2 -> b == '\r' ? matched + 1 : 0;
                case 1, 3 -> b == '\n' ? matched + 1 : (b == '\r' ? 1 : 0);
                default -> 0;
            };
            if (matched == 4) {
                return head.toByteArray();
            }
            if (head.size() > 64 * 1024) {
                throw new IOException("request head too large");
            }
        }
    }

    private static void copyBody(RequestHead request, InputStream in, OutputStream out) throws IOException {
        if (request.chunked) {
            copyChunked(in, out);
        } else {
            copyExactly(in, out, request.contentLength);
        }
    }

    private static void copyExactly(InputStream in, OutputStream out, long n) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long left = n;
        while (left > 0) {
            int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (read < 0) {
                throw new IOException("connection closed inside a request body");
            }
            out.write(buffer, 0, read);
            left -= read;
        }
    }

    private static void copyChunked(InputStream in, OutputStream out) throws IOException {
        while (true) {
            String sizeLine = readLine(in);
            out.write((sizeLine + "\r\n").getBytes(StandardCharsets.US_ASCII));
            int semicolon = sizeLine.indexOf(';');
            long size = Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).strip(), 16);
            if (size == 0) {
                String trailer;
                do {
                    trailer = readLine(in);
                    out.write((trailer + "\r\n").getBytes(StandardCharsets.US_ASCII));
                } while (!trailer.isEmpty());
                return;
            }
            copyExactly(in, out, size + 2);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                int len = line.length();
                return len > 0 && line.charAt(len - 1) == '\r' ? line.substring(0, len - 1) : line.toString();
            }
            line.append((char) b);
        }
        throw new IOException("connection closed inside a chunk header");
    }

    private record RequestHead(String line, long contentLength, boolean chunked, boolean expectContinue) {
        static RequestHead parse(byte[] head) {
            String[] lines = new String(head, StandardCharsets.ISO_8859_1).split("\r\n");
            long length = 0;
            boolean chunked = false;
            boolean expect = false;
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon <= 0) {
                    continue;
                }
                String name = lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT);
                String value = lines[i].substring(colon + 1).strip();
                switch (name) {
                    case "content-length" -> length = Long.parseLong(value);
                    case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "expect" -> expect = value.equalsIgnoreCase("100-continue");
                    default -> {
                    }
                }
            }
            return new RequestHead(lines[0], length, chunked, expect);
        }
    }

    /** What to do to one request. Build with the static factories; narrow with {@link #matching(String)}. */
    public record Fault(Kind kind, int status, Duration retryAfter, Duration delay, String match) {
        public enum Kind { STATUS, DELAY, RESET, CORRUPT }

        public Fault {
            Objects.requireNonNull(kind, "kind");
        }

        /** Answer with this HTTP status (and an S3 XML error body), then close the connection. */
        public static Fault status(int status) {
            return new Fault(Kind.STATUS, status, null, null, null);
        }

        /** Answer 429 with {@code Retry-After: <whole seconds>}. */
        public static Fault throttled(Duration retryAfter) {
            return new Fault(Kind.STATUS, 429, retryAfter, null, null);
        }

        /** Any status with a {@code Retry-After} header. */
        public static Fault statusWithRetryAfter(int status, Duration retryAfter) {
            return new Fault(Kind.STATUS, status, retryAfter, null, null);
        }

        /** Hold the request this long before relaying it (past the client's timeout: a timeout). */
        public static Fault delay(Duration delay) {
            return new Fault(Kind.DELAY, 0, null, delay, null);
        }

        /** Reset the TCP connection once the request head has arrived. */
        public static Fault reset() {
            return new Fault(Kind.RESET, 0, null, null, null);
        }

        /** Relay the request with the first byte of its body changed (needs a Content-Length body). */
        public static Fault corruptBody() {
            return new Fault(Kind.CORRUPT, 0, null, null, null);
        }

        /** The same fault, taken only by a request whose request line contains {@code fragment}. */
        public Fault matching(String fragment) {
            return new Fault(kind, status, retryAfter, delay, fragment);
        }
    }
}
