package dev.iggysink.adapters.s3.aws;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.iggysink.application.file.FileBytes;

import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullResponse;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * The SDK's HTTP client for a plain-http endpoint: a PUT whose body is a sealed file goes out with the file handed
 * to the socket by the kernel ({@link FileBytes#transferTo}, sendfile for a buffer file), every other request goes
 * to the {@code fallback} client (Apache's) unchanged.
 *
 * <p>Why: Apache's client copies a body 4 KiB at a time from the stream into its buffer and writes it in 8 KiB
 * socket writes: a pread, two heap copies and a socket write per 8 KiB, a visible share of the sink's CPU at small
 * records (figures: docs/adr/0007-file-bodies-by-sendfile-over-http.md). Here the request head is one write and the
 * body one {@code transferTo}. Over https the bytes must pass
 * through the TLS engine, so this client is used only for http endpoints.
 *
 * <p>The body file reaches the client through {@link #sending}, on the thread that calls the SDK: the SDK hands an
 * HTTP client only a stream over the body. A PUT matches when that file is set and the request's Content-Length is
 * its length; the bytes the SDK's stream would give are then exactly the file's (the store checks them against the
 * request's CRC32C either way).
 *
 * <p>HTTP/1.1 as S3 stores speak it: {@code Expect: 100-continue} is honoured (the body is sent after the interim
 * answer, or after {@link #CONTINUE_WAIT} without one, never after a final answer), the answer's body is
 * read by Content-Length, chunked, or to the end of the connection, and a connection is kept for the next PUT only
 * when its answer was read to the end and neither side asked to close it. {@link ExecutableHttpRequest#abort} (the
 * SDK's attempt timeout) closes the connection, which ends a write or read blocked on it.
 */
public final class FilePutHttpClient implements SdkHttpClient {
    private static final ThreadLocal<FileBytes> BODY = new ThreadLocal<>();
    /** How long a PUT with {@code Expect: 100-continue} waits for the interim answer before it sends the body. */
    static final Duration CONTINUE_WAIT = Duration.ofSeconds(3);
    /** A kept connection idle for longer is closed rather than reused (stores drop idle ones after a while). */
    private static final long MAX_IDLE_NANOS = Duration.ofSeconds(30).toNanos();
    private static final int MAX_HEAD_BYTES = 64 * 1024;

    private final SdkHttpClient fallback;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    private final int continueWaitMillis;
    private final Map<String, ConcurrentLinkedDeque<Connection>> idle = new ConcurrentHashMap<>();
    private final AtomicLong filePuts = new AtomicLong();
    private final AtomicLong connections = new AtomicLong();
    private volatile boolean closed;

    FilePutHttpClient(SdkHttpClient fallback, Duration connectTimeout, Duration readTimeout) {
        this(fallback, connectTimeout, readTimeout, CONTINUE_WAIT);
    }

    FilePutHttpClient(SdkHttpClient fallback, Duration connectTimeout, Duration readTimeout, Duration continueWait) {
        this.fallback = fallback;
        this.connectTimeout = connectTimeout;
        this.readTimeout = readTimeout;
        this.continueWaitMillis = (int) Math.max(1, Math.min(continueWait.toMillis(), readTimeout.toMillis()));
    }

    /**
     * True when the JVM's or the environment's settings name an HTTP proxy, which Apache's client (through the SDK's
     * defaults) would use for a plain-http endpoint; this client connects directly, so it is not used then.
     */
    public static boolean proxyConfigured(Map<String, String> env, Properties properties) {
        for (String name : new String[] {"HTTP_PROXY", "http_proxy"}) {
            String v = env.get(name);
            if (v != null && !v.isBlank()) return true;
        }
        String host = properties.getProperty("http.proxyHost");
        return host != null && !host.isBlank();
    }

    /** Runs {@code call} (an SDK call on this thread) with {@code body} as the file a PUT of its length sends. */
    static <T> T sending(FileBytes body, Supplier<T> call) {
        FileBytes before = BODY.get();
        BODY.set(body);
        try {
            return call.get();
        } finally {
            if (before == null) BODY.remove();
            else BODY.set(before);
        }
    }

    /** PUTs whose body went out through this client (for tests). */
    long filePuts() {
        return filePuts.get();
    }

    /** Connections this client opened (for tests). */
    long connections() {
        return connections.get();
    }

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
        FileBytes body = BODY.get();
        SdkHttpRequest http = request.httpRequest();
        if (body == null || body.length() == 0 || http.method() != SdkHttpMethod.PUT
                || !"http".equalsIgnoreCase(http.protocol()) || request.contentStreamProvider().isEmpty()
                || !http.firstMatchingHeader("Content-Length").equals(Optional.of(Long.toString(body.length())))) {
            return fallback.prepareRequest(request);
        }
        return new FilePut("PUT", Head.of(http), body);
    }

    /**
     * The PUT of {@code head} (signed, with its Content-Length) with {@code body} sent from the file, for a caller
     * that builds and signs the request itself ({@link PlainHttpPut}).
     */
    ExecutableHttpRequest filePut(Head head, FileBytes body) {
        return new FilePut("PUT", head, body);
    }

    /**
     * The HEAD of {@code head} (signed), for a caller that builds and signs the request itself: its answer has no
     * body, whatever its Content-Length says.
     */
    ExecutableHttpRequest head(Head head) {
        return new FilePut("HEAD", head, null);
    }

    /** The DELETE of {@code head} (signed), for a caller that builds and signs the request itself. */
    ExecutableHttpRequest delete(Head head) {
        return new FilePut("DELETE", head, null);
    }

    /** The POST of {@code head} (signed, with its Content-Length) with {@code body}, for a caller that signs it. */
    ExecutableHttpRequest post(Head head, FileBytes body) {
        return new FilePut("POST", head, body);
    }

    /** The GET of {@code head} (signed), for a caller that builds and signs the request itself. */
    ExecutableHttpRequest get(Head head) {
        return new FilePut("GET", head, null);
    }

    /**
     * A PUT's request line and headers: {@code target} is the encoded path (and query); {@code headers} in the order
     * sent, without Host or Connection.
     */
    record Head(String host, int port, String hostHeader, String target, List<Map.Entry<String, String>> headers) {
        /** The Host header as sent for {@code host} and {@code port}: no port for 80. */
        static String hostHeader(String host, int port) {
            return port == 80 ? host : host + ":" + port;
        }

        static Head of(SdkHttpRequest http) {
            List<Map.Entry<String, String>> headers = new ArrayList<>();
            http.forEachHeader((name, values) -> {
                if (name.equalsIgnoreCase("Host") || name.equalsIgnoreCase("Connection")) return;
                for (String v : values) headers.add(Map.entry(name, v));
            });
            String path = http.encodedPath().isEmpty() ? "/" : http.encodedPath();
            String target = http.encodedQueryParameters().map(q -> path + "?" + q).orElse(path);
            int port = http.port() > 0 ? http.port() : 80;
            String hostHeader = http.firstMatchingHeader("Host").orElse(hostHeader(http.host(), port));
            return new Head(http.host(), port, hostHeader, target, headers);
        }

        boolean expectsContinue() {
            for (Map.Entry<String, String> h : headers) {
                if (h.getKey().equalsIgnoreCase("Expect") && h.getValue().equalsIgnoreCase("100-continue")) return true;
            }
            return false;
        }
    }

    @Override
    public String clientName() {
        return "FilePut+" + fallback.clientName();
    }

    @Override
    public void close() {
        closed = true;
        closeIdle();
        fallback.close();
    }

    private void closeIdle() {
        for (ConcurrentLinkedDeque<Connection> q : idle.values()) {
            Connection c;
            while ((c = q.poll()) != null) c.close();
        }
    }

    /** A kept connection that looks usable, else a new one. */
    private Connection connection(Head http) throws IOException {
        ConcurrentLinkedDeque<Connection> q = idle.get(http.host() + ":" + http.port());
        if (q != null) {
            Connection c;
            while ((c = q.pollFirst()) != null) {
                if (c.usable()) {
                    c.reused = true;
                    return c;
                }
                c.close();
            }
        }
        return newConnection(http);
    }

    private Connection newConnection(Head http) throws IOException {
        String key = http.host() + ":" + http.port();
        SocketChannel channel = SocketChannel.open();
        try {
            channel.socket().setTcpNoDelay(true);
            channel.socket().connect(new InetSocketAddress(http.host(), http.port()),
                    (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
            channel.socket().setSoTimeout((int) Math.min(Integer.MAX_VALUE, readTimeout.toMillis()));
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        connections.incrementAndGet();
        return new Connection(key, channel);
    }

    private void keep(Connection c) {
        if (closed) {
            c.close();
            return;
        }
        c.idleSince = System.nanoTime();
        idle.computeIfAbsent(c.key, k -> new ConcurrentLinkedDeque<>()).addFirst(c);
        if (closed) closeIdle(); // raced with close(): nothing may stay open
    }

    /** One socket with the buffered reader of its answers. */
    private static final class Connection {
        final String key;
        final SocketChannel channel;
        final InputStream in;
        long idleSince;
        /** Taken from the idle connections for this request. */
        boolean reused;
        /** A byte of an answer to this request has arrived (a kept connection starts each request at false). */
        boolean answered;

        Connection(String key, SocketChannel channel) throws IOException {
            this.key = key;
            this.channel = channel;
            this.in = new BufferedInputStream(new FilterInputStream(channel.socket().getInputStream()) {
                @Override
                public int read() throws IOException {
                    int b = super.read();
                    if (b >= 0) answered = true;
                    return b;
                }

                @Override
                public int read(byte[] bytes, int off, int len) throws IOException {
                    int n = super.read(bytes, off, len);
                    if (n > 0) answered = true;
                    return n;
                }
            }, 8192);
        }

        /** Not idle too long, and the peer has neither closed it nor sent anything unasked. */
        boolean usable() {
            if (System.nanoTime() - idleSince > MAX_IDLE_NANOS) return false;
            try {
                if (in.available() > 0) return false;
                channel.configureBlocking(false);
                try {
                    return channel.read(ByteBuffer.allocate(1)) == 0;
                } finally {
                    channel.configureBlocking(true);
                }
            } catch (IOException e) {
                return false;
            }
        }

        void close() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing more to do with it
            }
        }
    }

    /** A PUT with its body sent from a file, or a HEAD ({@code body} null). */
    private final class FilePut implements ExecutableHttpRequest {
        private final String method;
        private final Head http;
        private final FileBytes body;
        private volatile Connection connection;
        private volatile boolean aborted;

        FilePut(String method, Head http, FileBytes body) {
            this.method = method;
            this.http = http;
            this.body = body;
        }

        /**
         * One exchange; when a kept connection ends before a byte of answer (the store closed it as the request
         * came, a race no check before sending can close), the request is sent once more on a new connection: the
         * store has not answered it, and the sink's writes are safe to repeat (its retry policy repeats them
         * anyway; a repeated claim finds its own range). A new connection's failure, or one after the answer began,
         * is the call's.
         */
        @Override
        public HttpExecuteResponse call() throws IOException {
            Connection c = connection(http);
            try {
                return exchange(c);
            } catch (IOException e) {
                // A timeout is a slow store, not a closed connection: sending again would only double the wait.
                if (!c.reused || c.answered || aborted || closed || e instanceof SocketTimeoutException) throw e;
                try {
                    return exchange(newConnection(http));
                } catch (IOException again) {
                    again.addSuppressed(e);
                    throw again;
                }
            }
        }

        private HttpExecuteResponse exchange(Connection c) throws IOException {
            c.answered = false;
            connection = c;
            if (aborted) c.close();
            boolean done = false;
            try {
                boolean expectContinue = body != null && http.expectsContinue();
                writeFully(c.channel, ByteBuffer.wrap(head()));
                Answer early = null;
                if (expectContinue) early = awaitContinue(c);
                if (early == null && body != null) {
                    body.transferTo(c.channel);
                    if (method.equals("PUT")) filePuts.incrementAndGet();
                }
                Answer answer = early != null ? early : Answer.finalOne(c.in);
                // A final answer before the body was sent leaves the peer's read side in doubt: not kept.
                boolean keepable = early == null && answer.keepAlive;
                HttpExecuteResponse response = answer.response(FilePutHttpClient.this, c, keepable,
                        method.equals("HEAD"));
                done = true;
                return response;
            } finally {
                if (!done) c.close();
            }
        }

        /** Null once the store said 100 (or did not answer in time); else its final answer, body unsent. */
        private Answer awaitContinue(Connection c) throws IOException {
            int timeout = c.channel.socket().getSoTimeout();
            c.channel.socket().setSoTimeout(continueWaitMillis);
            try {
                while (true) {
                    Answer answer = Answer.read(c.in);
                    if (answer.status == 100) return null;
                    if (answer.status >= 200) return answer;
                }
            } catch (SocketTimeoutException e) {
                return null;
            } finally {
                c.channel.socket().setSoTimeout(timeout);
            }
        }

        private byte[] head() {
            StringBuilder h = new StringBuilder(512);
            h.append(method).append(' ').append(http.target()).append(" HTTP/1.1\r\n");
            h.append("Host: ").append(http.hostHeader()).append("\r\n");
            for (Map.Entry<String, String> header : http.headers()) {
                String name = header.getKey();
                String v = header.getValue();
                if (v.indexOf('\r') >= 0 || v.indexOf('\n') >= 0 || name.indexOf(':') >= 0) {
                    throw new IllegalArgumentException("header " + name + " holds a line break or colon");
                }
                h.append(name).append(": ").append(v).append("\r\n");
            }
            h.append("\r\n");
            return h.toString().getBytes(StandardCharsets.ISO_8859_1);
        }

        @Override
        public void abort() {
            aborted = true;
            Connection c = connection;
            if (c != null) c.close();
        }
    }

    private static void writeFully(SocketChannel channel, ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) channel.write(bytes);
    }

    /** A status line and headers as read; the body is still on the connection. */
    private static final class Answer {
        int status;
        String reason;
        final SdkHttpFullResponse.Builder builder = SdkHttpResponse.builder();
        long contentLength = -1;
        boolean chunked;
        boolean keepAlive = true;

        /** The next answer that is not an interim one (1xx). */
        static Answer finalOne(InputStream in) throws IOException {
            while (true) {
                Answer a = read(in);
                if (a.status >= 200) return a;
            }
        }

        static Answer read(InputStream in) throws IOException {
            Answer a = new Answer();
            String statusLine = line(in);
            // "HTTP/1.1 200 OK": version, code, optional reason
            String[] parts = statusLine.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
                throw new ProtocolException("not an HTTP/1.x status line: " + statusLine);
            }
            try {
                a.status = Integer.parseInt(parts[1]);
            } catch (NumberFormatException e) {
                throw new ProtocolException("bad status in: " + statusLine);
            }
            a.reason = parts.length > 2 ? parts[2] : "";
            if (parts[0].equals("HTTP/1.0")) a.keepAlive = false;
            int headBytes = statusLine.length();
            while (true) {
                String line = line(in);
                if (line.isEmpty()) break;
                headBytes += line.length();
                if (headBytes > MAX_HEAD_BYTES) throw new ProtocolException("answer head over " + MAX_HEAD_BYTES);
                int colon = line.indexOf(':');
                if (colon <= 0) throw new ProtocolException("bad header line: " + line);
                String name = line.substring(0, colon).trim();
                String value = line.substring(colon + 1).trim();
                a.builder.appendHeader(name, value);
                switch (name.toLowerCase(Locale.ROOT)) {
                    case "content-length" -> {
                        try {
                            a.contentLength = Long.parseLong(value);
                        } catch (NumberFormatException e) {
                            throw new ProtocolException("bad Content-Length: " + value);
                        }
                    }
                    case "transfer-encoding" -> a.chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "connection" -> {
                        String v = value.toLowerCase(Locale.ROOT);
                        if (v.contains("close")) a.keepAlive = false;
                        else if (v.contains("keep-alive")) a.keepAlive = true;
                    }
                    default -> { }
                }
            }
            a.builder.statusCode(a.status).statusText(a.reason);
            return a;
        }

        HttpExecuteResponse response(FilePutHttpClient client, Connection c, boolean keepable, boolean toHead) {
            InputStream raw;
            boolean toClose = false;
            if (toHead || status == 204 || status == 304 || (status >= 100 && status < 200)) {
                raw = InputStream.nullInputStream();
            } else if (chunked) {
                raw = new Chunked(c.in);
            } else if (contentLength >= 0) {
                raw = new Bounded(c.in, contentLength);
            } else {
                raw = c.in;
                toClose = true; // the body ends with the connection
            }
            BodyStream stream = client.new BodyStream(raw, c, keepable && keepAlive && !toClose);
            return HttpExecuteResponse.builder()
                    .response(builder.build())
                    .responseBody(AbortableInputStream.create(stream, stream::abort))
                    .build();
        }

        /** One CRLF-ended line (ISO-8859-1), without its end. */
        static String line(InputStream in) throws IOException {
            StringBuilder s = new StringBuilder(64);
            while (true) {
                int b = in.read();
                if (b < 0) throw new EOFException("connection closed in the answer head");
                if (b == '\n') break;
                if (s.length() > MAX_HEAD_BYTES) throw new ProtocolException("answer line over " + MAX_HEAD_BYTES);
                s.append((char) b);
            }
            int n = s.length();
            if (n > 0 && s.charAt(n - 1) == '\r') s.setLength(n - 1);
            return s.toString();
        }
    }

    /**
     * The answer's body; closing it after reading to the end hands the connection back, closing it earlier (or
     * an abort) closes the connection.
     */
    private final class BodyStream extends FilterInputStream {
        private final Connection connection;
        private final boolean keepable;
        private boolean atEnd;
        private boolean closedAlready;

        BodyStream(InputStream in, Connection connection, boolean keepable) {
            super(in);
            this.connection = connection;
            this.keepable = keepable;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b < 0) atEnd = true;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n < 0) atEnd = true;
            return n;
        }

        @Override
        public void close() {
            if (closedAlready) return;
            closedAlready = true;
            if (!atEnd && keepable) {
                // A short body left unread (an empty PUT answer, an error document the SDK has parsed): read it
                // out so the connection can be kept.
                try {
                    atEnd = in.skip(Long.MAX_VALUE) >= 0 && in.read() < 0;
                } catch (IOException e) {
                    atEnd = false;
                }
            }
            if (atEnd && keepable) keep(connection);
            else connection.close();
        }

        void abort() {
            closedAlready = true;
            connection.close();
        }
    }

    /** The next {@code left} bytes. */
    private static final class Bounded extends FilterInputStream {
        private long left;

        Bounded(InputStream in, long length) {
            super(in);
            this.left = length;
        }

        @Override
        public int read() throws IOException {
            if (left == 0) return -1;
            int b = in.read();
            if (b < 0) throw new EOFException(left + " bytes of the answer's body missing");
            left--;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left == 0) return -1;
            if (len == 0) return 0;
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n < 0) throw new EOFException(left + " bytes of the answer's body missing");
            left -= n;
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = 0;
            byte[] sink = new byte[4096];
            while (skipped < n && left > 0) {
                int k = read(sink, 0, (int) Math.min(sink.length, n - skipped));
                if (k < 0) break;
                skipped += k;
            }
            return skipped;
        }

        @Override
        public int available() throws IOException {
            return (int) Math.min(left, in.available());
        }

        @Override
        public void close() {
            // the connection's stream is closed with the connection, not with one body
        }
    }

    /** A chunked body, decoded; trailers are read and dropped. */
    private static final class Chunked extends FilterInputStream {
        private long inChunk;
        private boolean end;

        Chunked(InputStream in) {
            super(in);
        }

        private boolean next() throws IOException {
            if (end) return false;
            if (inChunk > 0) return true;
            String size = Answer.line(in);
            int semi = size.indexOf(';');
            if (semi >= 0) size = size.substring(0, semi);
            try {
                inChunk = Long.parseLong(size.trim(), 16);
            } catch (NumberFormatException e) {
                throw new ProtocolException("bad chunk size: " + size);
            }
            if (inChunk < 0) throw new ProtocolException("bad chunk size: " + size);
            if (inChunk == 0) {
                while (!Answer.line(in).isEmpty()) {
                    // trailers
                }
                end = true;
                return false;
            }
            return true;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) return 0;
            if (!next()) return -1;
            int n = in.read(b, off, (int) Math.min(len, inChunk));
            if (n < 0) throw new EOFException("connection closed in a chunk of the answer's body");
            inChunk -= n;
            if (inChunk == 0 && !Answer.line(in).isEmpty()) throw new ProtocolException("chunk not ended by CRLF");
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = 0;
            byte[] sink = new byte[4096];
            while (skipped < n) {
                int k = read(sink, 0, (int) Math.min(sink.length, n - skipped));
                if (k < 0) break;
                skipped += k;
            }
            return skipped;
        }

        @Override
        public int available() {
            return 0;
        }

        @Override
        public void close() {
            // as Bounded
        }
    }
}
