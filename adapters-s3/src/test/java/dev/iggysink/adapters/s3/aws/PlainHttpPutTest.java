package dev.iggysink.adapters.s3.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.iggysink.adapters.s3.StorageClient;
import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.Secret;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;

/**
 * The SDK-less PUT against a scripted server: which endpoints it takes, how an error answer and a stalled store
 * end. What a real store makes of its requests is in {@code AwsS3ObjectStoreIT} and {@link PlainHttpPutIT}.
 */
class PlainHttpPutTest {
    private static final String SECRET = "plain-put-secret-0123456789";

    private ServerSocket server;
    private final List<String> heads = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() throws IOException {
        release.countDown();
        if (server != null) server.close();
    }

    private static StorageSettings settings(String endpoint, boolean pathStyle, Duration timeout) {
        return new StorageSettings("bucket", "us-east-1", Optional.ofNullable(endpoint), pathStyle,
                Optional.of("AKID"), Optional.of(Secret.of(SECRET)), StorageClient.AWS, 64L << 20, 8L << 20, 2,
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Map.of(), timeout);
    }

    @Test
    void it_is_used_only_where_the_sdk_would_send_the_same_request() {
        Duration t = Duration.ofSeconds(5);
        assertThat(PlainHttpPut.usableFor(settings("http://127.0.0.1:9000", true, t))).isTrue();
        assertThat(PlainHttpPut.usableFor(settings("http://minio.local", true, t))).isTrue();
        assertThat(PlainHttpPut.usableFor(settings("http://minio.local:9000/", true, t))).isTrue();
        assertThat(PlainHttpPut.usableFor(settings("https://minio.local:9000", true, t))).as("TLS").isFalse();
        assertThat(PlainHttpPut.usableFor(settings("http://minio.local:9000", false, t))).as("virtual host").isFalse();
        assertThat(PlainHttpPut.usableFor(settings("http://minio.local:443", true, t))).as("http on 443").isFalse();
        assertThat(PlainHttpPut.usableFor(settings("http://gw.local:9000/s3", true, t))).as("a base path").isFalse();
        assertThat(PlainHttpPut.usableFor(settings(null, true, t))).as("AWS itself").isFalse();
    }

    @Test
    void an_error_document_gives_its_code_and_message_unescaped() {
        String xml = "<?xml version=\"1.0\"?><Error><Code>SlowDown</Code>"
                + "<Message>Reduce &lt;rate&gt; &amp; &quot;retry&quot;</Message><Key>a</Key></Error>";
        assertThat(PlainHttpPut.element(xml, "Code")).isEqualTo("SlowDown");
        assertThat(PlainHttpPut.element(xml, "Message")).isEqualTo("Reduce <rate> & \"retry\"");
        assertThat(PlainHttpPut.element(xml, "RequestId")).isNull();
        assertThat(PlainHttpPut.element("<Error><Code>cut", "Code")).isNull();
        assertThat(PlainHttpPut.element("", "Code")).isNull();
    }

    @Test
    @Timeout(30)
    void an_error_answer_is_the_stores_failure_with_its_code_message_and_retry_after() throws Exception {
        String document = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
        int port = serve(in -> {
            String head = FilePutHttpClientTest.readHead(in);
            heads.add(head);
            return "HTTP/1.1 503 Slow Down\r\nRetry-After: 4\r\nContent-Type: application/xml\r\nContent-Length: "
                    + document.length() + "\r\n\r\n" + document;
        });
        try (FilePutHttpClient http = client(Duration.ofSeconds(5));
             PlainHttpPut put = new PlainHttpPut(settings("http://127.0.0.1:" + port, true, Duration.ofSeconds(5)),
                     credentials(), http)) {
            StoreException e = catchThrowableOfType(StoreException.class,
                    () -> put.put("PUT", "a b/ü.json", FileBytes.of(new byte[10]), "text/plain", "AAAAAA==",
                            Map.of()));

            assertThat(e).isNotNull();
            assertThat(e.httpStatus()).isEqualTo(503);
            assertThat(e.retryable()).isTrue();
            assertThat(e.retryAfter()).contains(Duration.ofSeconds(4));
            assertThat(e.getMessage()).contains("s3://bucket/a b/ü.json").contains("SlowDown")
                    .contains("Please reduce your request rate.").doesNotContain(SECRET);
        }
        assertThat(heads.get(0)).startsWith("PUT /bucket/a%20b/%C3%BC.json HTTP/1.1\r\n");
    }

    @Test
    @Timeout(60)
    void a_store_that_stops_reading_the_body_ends_in_a_retryable_timeout() throws Exception {
        int port = serve(in -> {
            heads.add(FilePutHttpClientTest.readHead(in));
            return "HTTP/1.1 100 Continue\r\n\r\n"; // then reads nothing more until released
        });
        // Larger than what the loopback's socket buffers take, so the write blocks.
        byte[] body = new byte[48 << 20];
        try (FilePutHttpClient http = client(Duration.ofSeconds(30));
             PlainHttpPut put = new PlainHttpPut(settings("http://127.0.0.1:" + port, true, Duration.ofSeconds(2)),
                     credentials(), http)) {
            StoreException e = catchThrowableOfType(StoreException.class,
                    () -> put.put("PUT", "stalled", FileBytes.of(body), "text/plain", "AAAAAA==", Map.of()));

            assertThat(e).isNotNull();
            assertThat(e.retryable()).isTrue();
            assertThat(e.httpStatus()).isZero();
            assertThat(e.getMessage()).contains("PUT s3://bucket/stalled timed out");
        }
        assertThat(heads).hasSize(1);
    }

    private interface Answer {
        String serve(InputStream in) throws IOException;
    }

    /** Serves each connection's first request with {@code answer}, then holds the connection until the test ends. */
    private int serve(Answer answer) throws IOException {
        server = new ServerSocket();
        server.setReceiveBufferSize(4096);
        server.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread c = new Thread(() -> {
                        try (s) {
                            OutputStream out = s.getOutputStream();
                            out.write(answer.serve(s.getInputStream()).getBytes(StandardCharsets.UTF_8));
                            out.flush();
                            release.await(60, TimeUnit.SECONDS);
                        } catch (IOException | InterruptedException e) {
                            // the client went away
                        }
                    });
                    c.setDaemon(true);
                    c.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return server.getLocalPort();
    }

    // Apache5HttpClient, as the store builds it: only the fallback, never called here
    private static FilePutHttpClient client(Duration readTimeout) {
        return new FilePutHttpClient(Apache5HttpClient.builder().build(), Duration.ofSeconds(2), readTimeout);
    }

    private static StaticCredentialsProvider credentials() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create("AKID", SECRET));
    }
}
