package dev.iggysink.adapters.s3.aws;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.iggysink.adapters.s3.StorageClient;
import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.adapters.s3.support.ObjectOptions;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.Secret;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * The hand-written whole-object PUT ({@link PlainHttpPut} over {@link FilePutHttpClient}) against the SDK's own
 * client (S3Client on Apache HttpClient 5, built as the store builds it) on the same adversarial input: the same
 * request for keys with spaces, {@code +}, {@code %}, {@code ~}, unicode and 1,024 bytes, a signature a SigV4
 * verifier accepts; and, from a raw-socket server, error, redirect, cut and garbled answers and connections closed
 * mid-answer, where a failure of the SDK's must be a failure here too, with the same status and retryability.
 */
class PlainHttpPutDifferentialTest {
    private static final String SECRET = "differential-secret+/0123456789";
    private static final StaticCredentialsProvider CREDENTIALS =
            StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDDIFF", SECRET));
    /**
     * Not compared: the SDK's bookkeeping headers, the per-request signature values, and the unsigned transport
     * headers each HTTP client sets its own way (Apache 5 sends {@code Connection: keep-alive} and handles
     * {@code Expect} itself; the hand-written client sends {@code Expect: 100-continue}).
     */
    private static final List<String> NOT_COMPARED = List.of("amz-sdk-invocation-id", "amz-sdk-request",
            "user-agent", "x-amz-date", "authorization", "connection", "expect");

    private ServerSocket server;
    private final List<Request> requests = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws IOException {
        if (server != null) server.close();
    }

    /**
     * A 1,024-byte key (S3's limit), of multi-byte characters and reserved ones, ending in one of a byte; in segments
     * of under 255 bytes, which MinIO (files on a disk) wants.
     */
    static String longKey() {
        StringBuilder key = new StringBuilder("sink/\u65e5\u672c +%~/");
        for (int i = 1; key.toString().getBytes(StandardCharsets.UTF_8).length < 1_020; i++) {
            key.append(i % 10 == 0 ? "/" : "\u00e9a+ ");
        }
        while (key.toString().getBytes(StandardCharsets.UTF_8).length < 1_024) key.append('~');
        assertThat(key.toString().getBytes(StandardCharsets.UTF_8)).hasSize(1_024);
        return key.toString();
    }

    @Test
    @Timeout(60)
    void adversarial_keys_go_out_as_the_sdk_sends_them_and_their_signatures_verify() throws Exception {
        int port = serve(new Script(true, ok(), false));
        StorageSettings settings = settings(port);
        String[] keys = {"a b/c d.json", "plus+sign/1+1=2", "per%cent/%20/%2F/%", "tilde~/~x~", "r\u00e9gion/\u65e5\u672c/"
                + "emoji-\uD83D\uDE00.json", "semi;colon,comma:colon@at!bang'quote(paren)$dollar&amp=eq*star",
                "trailing/", "//double//slash", longKey()};
        try (AwsS3ObjectStore store = new AwsS3ObjectStore(settings);
             S3Client sdk = AwsS3ObjectStore.clientOf(settings, CREDENTIALS, null)) {
            for (String key : keys) {
                byte[] body = ("body of " + key).getBytes(StandardCharsets.UTF_8);
                requests.clear();
                store.put(key, FileBytes.of(body), "application/x-ndjson", Map.of("iggy-records", "1"));
                sdk.putObject(sdkRequest(key, body, "application/x-ndjson").toBuilder().metadata(Map.of("iggy-records", "1")).build(),
                        RequestBody.fromBytes(body));
                assertThat(requests).as(key).hasSize(2);
                Request ours = requests.get(0);
                Request theirs = requests.get(1);
                assertThat(ours.target()).as(key).isEqualTo(theirs.target());
                assertThat(compared(ours)).as(key).isEqualTo(compared(theirs));
                assertThat(ours.body()).isEqualTo(body);
                assertThat(theirs.body()).isEqualTo(body);
                assertThat(verified(theirs, port, CREDENTIALS.resolveCredentials(), "us-east-1")).as("the verifier accepts the SDK's own request for %s", key)
                        .isTrue();
                assertThat(verified(ours, port, CREDENTIALS.resolveCredentials(), "us-east-1")).as(key).isTrue();
            }
        }
    }

    @Test
    @Timeout(60)
    void object_options_metadata_and_a_session_token_go_out_as_the_sdk_sends_them() throws Exception {
        int port = serve(new Script(true, ok(), false));
        StorageSettings plain = settings(port);
        StorageSettings settings = new StorageSettings("bucket", "eu-west-1", plain.endpoint(), true,
                plain.accessKeyId(), plain.secretAccessKey(), StorageClient.AWS, 64L << 20, 8L << 20, 2,
                Optional.of("aws:kms"), Optional.of("arn:aws:kms:eu-west-1:1:key/a b"), Optional.of("STANDARD_IA"),
                Optional.of("bucket-owner-full-control"), Map.of("team", "data lake+", "env", "pr%od"),
                Duration.ofSeconds(4));
        AwsSessionCredentials session = AwsSessionCredentials.create("ASIADIFF", SECRET, "Fwo//session+token==");
        StaticCredentialsProvider credentials = StaticCredentialsProvider.create(session);
        byte[] body = "x".getBytes(StandardCharsets.UTF_8);
        Map<String, String> metadata = Map.of("iggy-offsets", "0-9", "iggy-first", "0/7/1767225600000000");
        try (FilePutHttpClient http = new FilePutHttpClient(Apache5HttpClient.builder().build(),
                Duration.ofSeconds(2), Duration.ofSeconds(4));
             PlainHttpPut put = new PlainHttpPut(settings, credentials, http);
             S3Client sdk = AwsS3ObjectStore.clientOf(settings, credentials, null)) {
            PutObjectRequest request = sdkRequest("opt +~%/é", body, "application/json").toBuilder()
                    .serverSideEncryption("aws:kms").ssekmsKeyId("arn:aws:kms:eu-west-1:1:key/a b")
                    .storageClass("STANDARD_IA").acl("bucket-owner-full-control")
                    .tagging(ObjectOptions.from(settings).tagging().orElseThrow()).metadata(metadata).build();
            put.put("PUT", "opt +~%/é", FileBytes.of(body), "application/json", request.checksumCRC32C(),
                    metadata);
            sdk.putObject(request, RequestBody.fromBytes(body));
        }
        assertThat(requests).hasSize(2);
        assertThat(requests.get(0).target()).isEqualTo(requests.get(1).target());
        assertThat(compared(requests.get(0))).isEqualTo(compared(requests.get(1)))
                .containsEntry("x-amz-security-token", "Fwo//session+token==")
                .containsEntry("x-amz-server-side-encryption", "aws:kms");
        assertThat(verified(requests.get(1), port, session, "eu-west-1")).isTrue();
        assertThat(verified(requests.get(0), port, session, "eu-west-1")).isTrue();
    }

    /** A marker written again: the If-Match of its own PUT goes out as the SDK's ifMatch, signed the same way. */
    @Test
    @Timeout(60)
    void a_replace_goes_out_with_if_match_as_the_sdk_sends_it() throws Exception {
        int port = serve(new Script(true, ok(), false));
        StorageSettings settings = settings(port);
        byte[] body = "{\"version\": 2}\n".getBytes(StandardCharsets.UTF_8);
        String etag = "\"9b2cf535f27731c974343645a3985328\"";
        try (AwsS3ObjectStore store = new AwsS3ObjectStore(settings);
             S3Client sdk = AwsS3ObjectStore.clientOf(settings, CREDENTIALS, null)) {
            assertThat(store.replace("m/_COMPLETE", body, "application/json", etag)).isTrue();
            sdk.putObject(sdkRequest("m/_COMPLETE", body, "application/json").toBuilder().ifMatch(etag).build(),
                    RequestBody.fromBytes(body));
        }
        assertThat(requests).hasSize(2);
        assertThat(requests.get(0).target()).isEqualTo(requests.get(1).target());
        assertThat(compared(requests.get(0))).isEqualTo(compared(requests.get(1))).containsEntry("if-match", etag);
        assertThat(verified(requests.get(1), port, CREDENTIALS.resolveCredentials(), "us-east-1")).isTrue();
        assertThat(verified(requests.get(0), port, CREDENTIALS.resolveCredentials(), "us-east-1")).isTrue();
    }

    @Test
    @Timeout(60)
    void an_empty_body_goes_plain_with_its_crc32c_as_the_sdk_sends_it_but_unsigned() throws Exception {
        // The start-up probe's PUT: on the SDK's pipeline it would make the SDK's client at every start (ADR 0021).
        int port = serve(new Script(true, ok(), false));
        StorageSettings settings = settings(port);
        try (AwsS3ObjectStore store = new AwsS3ObjectStore(settings);
             S3Client sdk = AwsS3ObjectStore.clientOf(settings, CREDENTIALS, null)) {
            store.put("empty +~%/\u00e9", FileBytes.EMPTY, "application/octet-stream", Map.of());
            assertThat(store.sdkClientMade()).isFalse();
            sdk.putObject(PutObjectRequest.builder().bucket("bucket").key("empty +~%/\u00e9")
                    .contentType("application/octet-stream").contentLength(0L).build(), RequestBody.empty());
        }
        assertThat(requests).hasSize(2);
        assertThat(requests.get(0).target()).isEqualTo(requests.get(1).target());
        assertThat(requests.get(0).body()).isEmpty();
        Map<String, String> plain = new java.util.TreeMap<>(compared(requests.get(0)));
        Map<String, String> sdkSent = new java.util.TreeMap<>(compared(requests.get(1)));
        assertThat(plain).containsEntry("x-amz-checksum-crc32c", "AAAAAA==")
                .containsEntry("x-amz-content-sha256", "UNSIGNED-PAYLOAD").doesNotContainKey("expect");
        plain.remove("x-amz-checksum-crc32c");
        plain.remove("x-amz-content-sha256");
        sdkSent.remove("x-amz-content-sha256");
        assertThat(plain).isEqualTo(sdkSent);
        assertThat(verified(requests.get(0), port, CREDENTIALS.resolveCredentials(), "us-east-1")).isTrue();
    }

    @Test
    @Timeout(120)
    void every_broken_answer_the_sdk_fails_on_fails_here_the_same_way() throws Exception {
        String internal = "<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>";
        String slow = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
        String moved = "<Error><Code>PermanentRedirect</Code><Message>Use the other endpoint.</Message>"
                + "<Endpoint>other.local</Endpoint></Error>";
        Map<String, Script> scripts = new LinkedHashMap<>();
        scripts.put("200", new Script(true, ok(), false));
        scripts.put("500 with an error document", new Script(true, answer("500 Internal Server Error", internal, ""), false));
        scripts.put("503 SlowDown with Retry-After", new Script(true,
                answer("503 Slow Down", slow, "Retry-After: 7\r\n"), false));
        scripts.put("502 without a body, closed", new Script(true,
                "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n", true));
        scripts.put("301 PermanentRedirect", new Script(true,
                answer("301 Moved Permanently", moved, "Location: http://other.local/bucket/k\r\n"), false));
        scripts.put("307 with a Location", new Script(true, "HTTP/1.1 307 Temporary Redirect\r\n"
                + "Location: http://127.0.0.1:1/bucket/k\r\nContent-Length: 0\r\n\r\n", false));
        scripts.put("304 Not Modified", new Script(true, "HTTP/1.1 304 Not Modified\r\nContent-Length: 0\r\n\r\n",
                false));
        scripts.put("500 cut short in its body", new Script(true,
                "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 400\r\n\r\n<Error><Code>Inter", true));
        scripts.put("200 cut short in its head", new Script(true, "HTTP/1.1 200 OK\r\nETag: \"e\"\r\n", true));
        scripts.put("cut in the status line", new Script(true, "HTTP/1.1 20", true));
        scripts.put("closed after the body, no answer", new Script(true, "", true));
        scripts.put("closed before the body", new Script(false, "", true));
        scripts.put("not HTTP", new Script(true, "SSH-2.0-OpenSSH_9.6\r\n\r\n", true));
        scripts.put("status 600", new Script(true, "HTTP/1.1 600 Odd\r\nContent-Length: 0\r\n\r\n", false));

        Map<String, String> ours = new LinkedHashMap<>();
        Map<String, String> theirs = new LinkedHashMap<>();
        for (Map.Entry<String, Script> script : scripts.entrySet()) {
            if (server != null) server.close();
            int port = serve(script.getValue());
            StorageSettings settings = settings(port);
            byte[] body = "some records\n".getBytes(StandardCharsets.UTF_8);
            String key = "k +%~\u00e9";
            try (AwsS3ObjectStore store = new AwsS3ObjectStore(settings);
                 S3Client sdk = AwsS3ObjectStore.clientOf(settings, CREDENTIALS, null)) {
                ours.put(script.getKey(), outcome(() -> store.put(key, FileBytes.of(body), "text/plain", Map.of())));
                theirs.put(script.getKey(), outcome(() -> {
                    try {
                        sdk.putObject(sdkRequest(key, body, "text/plain"), RequestBody.fromBytes(body));
                    } catch (SdkException e) {
                        throw store.translate("PUT", key, e);
                    }
                }));
            }
        }
        // Printed for the ADR's table of outcomes.
        scripts.keySet().forEach(name -> System.out.printf("%-36s ours: %-40s sdk: %s%n", name, ours.get(name),
                theirs.get(name)));
        assertThat(ours.get("200")).isEqualTo("ok");
        assertThat(theirs.get("200")).isEqualTo("ok");
        for (String name : scripts.keySet()) {
            if (name.equals("200")) continue;
            assertThat(ours.get(name)).as("no silent success: %s", name).isNotEqualTo("ok");
            if (!theirs.get(name).equals("ok")) {
                assertThat(ours.get(name)).as(name).isEqualTo(theirs.get(name));
            }
        }
    }

    private interface Put {
        void run() throws StoreException;
    }

    private static String outcome(Put put) {
        try {
            put.run();
            return "ok";
        } catch (StoreException e) {
            return "failed status=" + e.httpStatus() + " retryable=" + e.retryable()
                    + e.retryAfter().map(d -> " retry-after=" + d.toSeconds()).orElse("");
        }
    }

    private static StorageSettings settings(int port) {
        return new StorageSettings("bucket", "us-east-1", Optional.of("http://127.0.0.1:" + port), true,
                Optional.of("AKIDDIFF"), Optional.of(Secret.of(SECRET)), StorageClient.AWS, 64L << 20, 8L << 20, 2,
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Map.of(),
                Duration.ofSeconds(4));
    }

    /** The PutObject the store builds: content type, length and the body's CRC32C. */
    private static PutObjectRequest sdkRequest(String key, byte[] body, String contentType) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        int v = (int) crc.getValue();
        String checksum = Base64.getEncoder().encodeToString(new byte[] {
                (byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
        return PutObjectRequest.builder().bucket("bucket").key(key)
                .contentType(contentType)
                .contentLength((long) body.length).checksumCRC32C(checksum).build();
    }

    private static String ok() {
        return "HTTP/1.1 200 OK\r\nETag: \"etag\"\r\nx-amz-checksum-crc32c: AAAAAA==\r\nContent-Length: 0\r\n\r\n";
    }

    private static String answer(String status, String document, String extraHeaders) {
        return "HTTP/1.1 " + status + "\r\n" + extraHeaders + "Content-Type: application/xml\r\nContent-Length: "
                + document.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + document;
    }

    /** The headers both must agree on, names lower-cased: all but the SDK's bookkeeping and the signature. */
    private static Map<String, String> compared(Request r) {
        Map<String, String> h = new TreeMap<>(r.headers());
        NOT_COMPARED.forEach(h::remove);
        return h;
    }

    /**
     * As a store checks it: the request's signed headers, signed again at its x-amz-date by the SDK's signer (as
     * https, UNSIGNED-PAYLOAD, as ChecksummedBodySigner signs), over the path as decoded (an escaped slash, "/%2F",
     * is the key's "//"), give the same Authorization.
     */
    private static boolean verified(Request r, int port, AwsCredentials identity, String region) {
        String authorization = r.headers().get("authorization");
        int from = authorization.indexOf("SignedHeaders=") + "SignedHeaders=".length();
        List<String> signedNames = List.of(authorization.substring(from, authorization.indexOf(',', from)).split(";"));
        ZonedDateTime at = ZonedDateTime.parse(r.headers().get("x-amz-date"),
                DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC));
        SdkHttpRequest.Builder b = SdkHttpRequest.builder().method(SdkHttpMethod.PUT).protocol("https")
                .host("127.0.0.1").port(port).encodedPath(r.target().replace("/%2F", "//"));
        for (String name : signedNames) {
            if (!List.of("host", "x-amz-date", "x-amz-content-sha256").contains(name)) {
                b.putHeader(name, r.headers().get(name));
            }
        }
        SdkHttpRequest signed = AwsV4HttpSigner.create().sign(s -> s
                .identity(identity)
                .request(b.build())
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED,
                        !"UNSIGNED-PAYLOAD".equals(r.headers().get("x-amz-content-sha256")))
                .payload(() -> new java.io.ByteArrayInputStream(r.body()))
                .putProperty(AwsV4HttpSigner.SIGNING_CLOCK, Clock.fixed(at.toInstant(), ZoneOffset.UTC))).request();
        return signed.firstMatchingHeader("Authorization").orElseThrow().equals(authorization);
    }

    /** What the server does with each request: read its body (after a 100 Continue when asked) or not, answer. */
    private record Script(boolean readBody, String answer, boolean closeAfter) {
    }

    private record Request(String target, Map<String, String> headers, byte[] body) {
    }

    private int serve(Script script) throws IOException {
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        server = s;
        Thread t = new Thread(() -> {
            while (!s.isClosed()) {
                try {
                    Socket c = s.accept();
                    Thread conn = new Thread(() -> converse(c, script), "diff-server-conn");
                    conn.setDaemon(true);
                    conn.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "diff-server");
        t.setDaemon(true);
        t.start();
        return s.getLocalPort();
    }

    private void converse(Socket c, Script script) {
        try (c) {
            InputStream in = c.getInputStream();
            OutputStream out = c.getOutputStream();
            while (true) {
                String head = FilePutHttpClientTest.readHead(in);
                if (head == null) return;
                String[] lines = head.split("\r\n");
                Map<String, String> headers = new TreeMap<>();
                for (int i = 1; i < lines.length; i++) {
                    int colon = lines[i].indexOf(':');
                    if (colon > 0) {
                        headers.merge(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                                lines[i].substring(colon + 1).trim(), (a, b) -> a + "," + b);
                    }
                }
                String target = lines[0].split(" ")[1];
                if (!script.readBody()) return;
                if ("100-continue".equalsIgnoreCase(headers.get("expect"))) {
                    out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                }
                int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
                byte[] body = in.readNBytes(length);
                requests.add(new Request(target, headers, body));
                out.write(script.answer().getBytes(StandardCharsets.UTF_8));
                out.flush();
                if (script.closeAfter()) return;
            }
        } catch (IOException e) {
            // the client went away
        }
    }
}
