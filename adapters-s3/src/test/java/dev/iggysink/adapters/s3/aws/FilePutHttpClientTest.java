package dev.iggysink.adapters.s3.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.iggysink.application.file.FileBytes;

import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * The plain-http PUT path against a scripted server: what goes on the wire, interim and final answers, answer
 * bodies, connection reuse and abort. The stores themselves (MinIO, s3proxy, a fault proxy) are in the ITs and
 * contract tests, which run every PUT of the AWS adapter through this client.
 */
class FilePutHttpClientTest {
    private static final byte[] BODY = "hello, file body".getBytes(StandardCharsets.US_ASCII);

    /** One scripted exchange per connection turn: reads a request, answers as told. */
    private interface Script {
        void serve(Request request, InputStream in, OutputStream out) throws IOException;
    }

    private record Request(String head, int connection) { }

    private ServerSocket server;
    private final AtomicInteger accepted = new AtomicInteger();
    private final BlockingQueue<Script> scripts = new LinkedBlockingQueue<>();
    private final List<byte[]> bodies = new CopyOnWriteArrayList<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final RecordingFallback fallback = new RecordingFallback();
    private FilePutHttpClient client;

    private void start(Duration continueWait) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    int n = accepted.incrementAndGet();
                    Thread c = new Thread(() -> connection(s, n), "scripted-" + n);
                    c.setDaemon(true);
                    c.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "scripted-accept");
        t.setDaemon(true);
        t.start();
        client = new FilePutHttpClient(fallback, Duration.ofSeconds(2), Duration.ofSeconds(5), continueWait);
    }

    private void connection(Socket s, int n) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            while (true) {
                String head = readHead(in);
                if (head == null) return;
                Request r = new Request(head, n);
                requests.add(r);
                Script script = scripts.poll(5, TimeUnit.SECONDS);
                if (script == null) return;
                script.serve(r, in, out);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the client went away
        }
    }

    /** The request head up to its blank line (ISO-8859-1), or null when the client closed first. */
    static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < 4) {
            int b = in.read();
            if (b < 0) return null;
            head.write(b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    private void readBody(InputStream in, int length) throws IOException {
        bodies.add(in.readNBytes(length));
    }

    @AfterEach
    void stop() throws IOException {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    private static HttpExecuteRequest put(int port, boolean expectContinue) {
        SdkHttpRequest.Builder r = SdkHttpRequest.builder().method(SdkHttpMethod.PUT).protocol("http")
                .host("127.0.0.1").port(port).encodedPath("/bucket/a%20key")
                .appendRawQueryParameter("x-id", "PutObject")
                .putHeader("Content-Length", Integer.toString(BODY.length))
                .putHeader("x-amz-checksum-crc32c", "AAAAAA==");
        if (expectContinue) r.putHeader("Expect", "100-continue");
        return HttpExecuteRequest.builder().request(r.build())
                .contentStreamProvider(() -> new ByteArrayInputStream(BODY)).build();
    }

    private HttpExecuteResponse send(HttpExecuteRequest request) {
        return FilePutHttpClient.sending(FileBytes.of(BODY), () -> {
            try {
                return client.prepareRequest(request).call();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private static String body(HttpExecuteResponse response) throws IOException {
        try (InputStream in = response.responseBody().orElseThrow()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static final Script OK_AFTER_BODY = (r, in, out) -> {
        out.write("HTTP/1.1 200 OK\r\nETag: \"e1\"\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    };

    @Test
    void a_put_of_a_file_waits_for_100_continue_sends_the_exact_bytes_and_keeps_the_connection() throws Exception {
        start(Duration.ofSeconds(3));
        Script serve = (r, in, out) -> {
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            readBody(in, BODY.length);
            OK_AFTER_BODY.serve(r, in, out);
        };
        scripts.add(serve);
        scripts.add(serve);

        HttpExecuteResponse first = send(put(server.getLocalPort(), true));
        assertThat(first.httpResponse().statusCode()).isEqualTo(200);
        assertThat(first.httpResponse().firstMatchingHeader("ETag")).contains("\"e1\"");
        assertThat(body(first)).isEmpty();
        HttpExecuteResponse second = send(put(server.getLocalPort(), true));
        assertThat(second.httpResponse().statusCode()).isEqualTo(200);
        body(second);

        assertThat(bodies).hasSize(2).allSatisfy(b -> assertThat(b).isEqualTo(BODY));
        String head = requests.get(0).head();
        assertThat(head).startsWith("PUT /bucket/a%20key?x-id=PutObject HTTP/1.1\r\n")
                .contains("Host: 127.0.0.1:" + server.getLocalPort() + "\r\n")
                .contains("Content-Length: " + BODY.length + "\r\n")
                .contains("x-amz-checksum-crc32c: AAAAAA==\r\n");
        assertThat(accepted.get()).as("one connection for both PUTs").isEqualTo(1);
        assertThat(client.filePuts()).isEqualTo(2);
        assertThat(fallback.calls.get()).isZero();
    }

    @Test
    void a_final_answer_instead_of_100_continue_is_returned_with_its_body_and_the_body_is_never_sent()
            throws Exception {
        start(Duration.ofSeconds(3));
        String error = "<Error><Code>AccessDenied</Code></Error>";
        scripts.add((r, in, out) -> out.write(("HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml\r\n"
                + "Content-Length: " + error.length() + "\r\n\r\n" + error).getBytes(StandardCharsets.US_ASCII)));
        scripts.add(bodyThenOk());

        HttpExecuteResponse refused = send(put(server.getLocalPort(), true));
        assertThat(refused.httpResponse().statusCode()).isEqualTo(403);
        assertThat(refused.httpResponse().statusText()).contains("Forbidden");
        assertThat(body(refused)).isEqualTo(error);
        assertThat(client.filePuts()).isZero();

        // Not kept: the next PUT opens a connection of its own, and sends the body without Expect.
        assertThat(send(put(server.getLocalPort(), false)).httpResponse().statusCode()).isEqualTo(200);
        assertThat(accepted.get()).isEqualTo(2);
        assertThat(requests.get(1).connection()).isEqualTo(2);
        assertThat(bodies).containsExactly(BODY);
    }

    @Test
    void without_an_interim_answer_in_time_the_body_goes_anyway() throws Exception {
        start(Duration.ofMillis(200));
        scripts.add((r, in, out) -> {
            readBody(in, BODY.length); // never says 100
            OK_AFTER_BODY.serve(r, in, out);
        });
        assertThat(send(put(server.getLocalPort(), true)).httpResponse().statusCode()).isEqualTo(200);
        assertThat(bodies).containsExactly(BODY);
    }

    @Test
    void a_chunked_answer_is_decoded_and_the_connection_kept() throws Exception {
        start(Duration.ofSeconds(3));
        scripts.add((r, in, out) -> {
            readBody(in, BODY.length);
            out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "2\r\nab\r\n3;ext=1\r\ncde\r\n0\r\nX-Trailer: t\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        });
        scripts.add(bodyThenOk());
        assertThat(body(send(put(server.getLocalPort(), false)))).isEqualTo("abcde");
        assertThat(send(put(server.getLocalPort(), false)).httpResponse().statusCode()).isEqualTo(200);
        assertThat(accepted.get()).isEqualTo(1);
    }

    @Test
    void a_kept_connection_the_store_closed_is_not_reused() throws Exception {
        start(Duration.ofSeconds(3));
        CountDownLatch closedByServer = new CountDownLatch(1);
        scripts.add((r, in, out) -> {
            readBody(in, BODY.length);
            OK_AFTER_BODY.serve(r, in, out);
            out.close(); // closes the socket: on loopback its FIN has reached the client when close returns
            closedByServer.countDown();
            throw new IOException("server closed the connection without saying so");
        });
        scripts.add(bodyThenOk());
        body(send(put(server.getLocalPort(), false)));
        assertThat(closedByServer.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(send(put(server.getLocalPort(), false)).httpResponse().statusCode()).isEqualTo(200);
        assertThat(accepted.get()).isEqualTo(2);
        assertThat(bodies).hasSize(2);
    }

    /** Reads the request's body, then answers 200 and keeps the connection. */
    private Script bodyThenOk() {
        return (r, in, out) -> {
            readBody(in, BODY.length);
            OK_AFTER_BODY.serve(r, in, out);
        };
    }

    /** Reads the request's body, then closes the connection without a byte of answer. */
    private Script closesUnanswered(CountDownLatch closed) {
        return (r, in, out) -> {
            readBody(in, BODY.length);
            out.close();
            closed.countDown();
            throw new IOException("server closed the connection as the request came");
        };
    }

    @Test
    void a_request_on_a_kept_connection_closed_before_any_answer_is_sent_once_more_on_a_new_connection()
            throws Exception {
        // The race a usability check cannot close: the store drops a kept connection as the next request arrives.
        start(Duration.ofSeconds(3));
        CountDownLatch closed = new CountDownLatch(1);
        scripts.add(bodyThenOk());
        scripts.add(closesUnanswered(closed));
        scripts.add(bodyThenOk());
        body(send(put(server.getLocalPort(), false)));
        HttpExecuteResponse again = send(put(server.getLocalPort(), false));
        assertThat(again.httpResponse().statusCode()).isEqualTo(200);
        body(again);
        assertThat(closed.getCount()).isZero();
        assertThat(accepted.get()).as("the resend went on a new connection").isEqualTo(2);
        assertThat(requests).extracting(Request::connection).containsExactly(1, 1, 2);
        assertThat(bodies).hasSize(3).allSatisfy(b -> assertThat(b).isEqualTo(BODY));
    }

    @Test
    void a_new_connection_closed_before_any_answer_fails_the_call_without_a_resend() throws Exception {
        start(Duration.ofSeconds(3));
        scripts.add(closesUnanswered(new CountDownLatch(1)));
        scripts.add(bodyThenOk());
        assertThatThrownBy(() -> send(put(server.getLocalPort(), false))).hasRootCauseInstanceOf(IOException.class);
        assertThat(accepted.get()).as("one attempt: max_attempts counts requests").isEqualTo(1);
        assertThat(requests).hasSize(1);
    }

    @Test
    void a_kept_connection_that_times_out_before_any_answer_fails_the_call_without_a_resend() throws Exception {
        start(Duration.ofSeconds(3));
        client.close();
        client = new FilePutHttpClient(fallback, Duration.ofSeconds(2), Duration.ofMillis(300), Duration.ofMillis(100));
        CountDownLatch done = new CountDownLatch(1);
        scripts.add(bodyThenOk());
        scripts.add((r, in, out) -> {
            readBody(in, BODY.length);
            try {
                done.await(5, TimeUnit.SECONDS); // never answers in time
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("gave up");
        });
        body(send(put(server.getLocalPort(), false)));
        assertThatThrownBy(() -> send(put(server.getLocalPort(), false)))
                .hasRootCauseInstanceOf(java.net.SocketTimeoutException.class);
        done.countDown();
        assertThat(accepted.get()).as("a slow store is not sent the request again").isEqualTo(1);
        assertThat(requests).hasSize(2);
    }

    @Test
    void a_kept_connection_closed_inside_an_answer_fails_the_call_without_a_resend() throws Exception {
        start(Duration.ofSeconds(3));
        scripts.add(bodyThenOk());
        scripts.add((r, in, out) -> {
            readBody(in, BODY.length);
            out.write("HTTP/1.1 200 OK\r\nETag: ".getBytes(StandardCharsets.US_ASCII));
            out.close();
            throw new IOException("server closed the connection inside its answer");
        });
        scripts.add(bodyThenOk());
        body(send(put(server.getLocalPort(), false)));
        assertThatThrownBy(() -> send(put(server.getLocalPort(), false))).hasRootCauseInstanceOf(IOException.class);
        assertThat(accepted.get()).as("the store answered: the request is not sent again").isEqualTo(1);
        assertThat(requests).hasSize(2);
    }

    @Test
    void abort_ends_a_call_waiting_for_an_answer() throws Exception {
        start(Duration.ofSeconds(3));
        CountDownLatch bodyRead = new CountDownLatch(1);
        scripts.add((r, in, out) -> {
            readBody(in, BODY.length);
            bodyRead.countDown();
            in.read(); // never answers
        });
        ExecutableHttpRequest call = FilePutHttpClient.sending(FileBytes.of(BODY),
                () -> client.prepareRequest(put(server.getLocalPort(), false)));
        Thread aborter = new Thread(() -> {
            try {
                if (bodyRead.await(5, TimeUnit.SECONDS)) call.abort();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        aborter.start();
        long start = System.nanoTime();
        assertThatThrownBy(call::call).isInstanceOf(IOException.class);
        aborter.join();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
    }

    @Test
    void other_requests_and_puts_without_their_file_go_to_the_fallback_client() throws Exception {
        start(Duration.ofSeconds(3));
        HttpExecuteRequest get = HttpExecuteRequest.builder().request(SdkHttpRequest.builder()
                .method(SdkHttpMethod.GET).protocol("http").host("127.0.0.1").port(server.getLocalPort())
                .encodedPath("/bucket").build()).build();
        FilePutHttpClient.sending(FileBytes.of(BODY), () -> client.prepareRequest(get));
        client.prepareRequest(put(server.getLocalPort(), false)); // no file on this thread
        FilePutHttpClient.sending(FileBytes.of(new byte[3]), () -> client.prepareRequest(
                put(server.getLocalPort(), false))); // another length than the request's
        assertThat(fallback.calls.get()).isEqualTo(3);
        assertThat(accepted.get()).isZero();
    }

    @Test
    void a_configured_http_proxy_is_seen_in_the_environment_or_the_jvms_properties() {
        java.util.Properties none = new java.util.Properties();
        assertThat(FilePutHttpClient.proxyConfigured(java.util.Map.of(), none)).isFalse();
        assertThat(FilePutHttpClient.proxyConfigured(java.util.Map.of("HTTP_PROXY", " "), none)).isFalse();
        assertThat(FilePutHttpClient.proxyConfigured(java.util.Map.of("http_proxy", "http://p:3128"), none)).isTrue();
        assertThat(FilePutHttpClient.proxyConfigured(java.util.Map.of("HTTP_PROXY", "http://p:3128"), none)).isTrue();
        java.util.Properties jvm = new java.util.Properties();
        jvm.setProperty("http.proxyHost", "p");
        assertThat(FilePutHttpClient.proxyConfigured(java.util.Map.of("HTTPS_PROXY", "http://p:3128"), jvm)).isTrue();
        assertThat(FilePutHttpClient.proxyConfigured(java.util.Map.of("HTTPS_PROXY", "http://p:3128"), none))
                .as("an https proxy is not used for an http endpoint").isFalse();
    }

    private static final class RecordingFallback implements SdkHttpClient {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
            calls.incrementAndGet();
            return new ExecutableHttpRequest() {
                @Override
                public HttpExecuteResponse call() {
                    throw new UnsupportedOperationException("not sent in this test");
                }

                @Override
                public void abort() {
                }
            };
        }

        @Override
        public void close() {
        }
    }
}
