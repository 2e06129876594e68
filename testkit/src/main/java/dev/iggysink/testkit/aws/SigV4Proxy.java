package dev.iggysink.testkit.aws;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.signer.Aws4Signer;
import software.amazon.awssdk.auth.signer.params.Aws4SignerParams;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.regions.Region;

/**
 * An HTTP proxy in front of a service that takes only requests signed with AWS SigV4 for one key pair, service and
 * region, as AWS's Glue and S3 Tables Iceberg REST endpoints do. Each request's signature is computed again with the
 * AWS SDK's own signer from what arrived (its signed headers, path, query, body and {@code X-Amz-Date}) and compared
 * with the one sent; an unsigned or wrongly signed request gets 403 in the Iceberg REST error form and never reaches
 * the service. Counts both.
 */
@SuppressWarnings("deprecation") // Aws4Signer: the signer Iceberg's own RESTSigV4AuthSession signs with
public final class SigV4Proxy implements AutoCloseable {
    private static final Pattern AUTHORIZATION = Pattern.compile(
            "AWS4-HMAC-SHA256 Credential=([^/]+)/[^,]+, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)");
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);

    private final URI target;
    private final AwsBasicCredentials credentials;
    private final String signingName;
    private final Region region;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final HttpClient client = HttpClient.newHttpClient();
    private final AtomicInteger verified = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();

    private SigV4Proxy(URI target, String accessKeyId, String secretAccessKey, String signingName, String region)
            throws IOException {
        this.target = target;
        this.credentials = AwsBasicCredentials.create(accessKeyId, secretAccessKey);
        this.signingName = signingName;
        this.region = Region.of(region);
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    /** A proxy on a free loopback port to {@code target} ({@code http://host:port}, no path). */
    public static SigV4Proxy start(URI target, String accessKeyId, String secretAccessKey, String signingName,
                                   String region) {
        try {
            return new SigV4Proxy(target, accessKeyId, secretAccessKey, signingName, region);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the SigV4 proxy", e);
        }
    }

    /** The proxy's address, {@code http://127.0.0.1:<port>/}. */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    /** Requests whose signature matched, passed on to the service. */
    public int verified() {
        return verified.get();
    }

    /** Requests refused: unsigned, or signed otherwise than the proxy computes. */
    public int refused() {
        return refused.get();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String why = check(exchange, body);
            if (why != null) {
                refused.incrementAndGet();
                respond(exchange, 403, "application/json", ("{\"error\":{\"message\":\"" + why
                        + "\",\"type\":\"ForbiddenException\",\"code\":403}}").getBytes(StandardCharsets.UTF_8));
                return;
            }
            verified.incrementAndGet();
            forward(exchange, body);
        }
    }

    /** Why the request is refused, or null when its signature is the one the SDK computes. */
    private String check(HttpExchange exchange, byte[] body) {
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        String date = exchange.getRequestHeaders().getFirst("X-Amz-Date");
        if (authorization == null || date == null) return "the request is not signed (no SigV4 Authorization)";
        Matcher m = AUTHORIZATION.matcher(authorization);
        if (!m.matches()) return "the Authorization header is not a SigV4 signature";
        if (!m.group(1).equals(credentials.accessKeyId())) return "the access key id is not known";
        String host = exchange.getRequestHeaders().getFirst("Host");
        SdkHttpFullRequest.Builder request = SdkHttpFullRequest.builder()
                .method(SdkHttpMethod.fromValue(exchange.getRequestMethod()))
                .uri(URI.create("http://" + host + exchange.getRequestURI().toString()));
        for (String name : List.of(m.group(2).split(";"))) {
            if (name.equals("host") || name.equals("x-amz-date")) continue;
            List<String> values = exchange.getRequestHeaders().get(name);
            if (values == null) return "signed header " + name + " is missing";
            request.putHeader(name, values);
        }
        if (body.length > 0) request.contentStreamProvider(() -> new ByteArrayInputStream(body));
        Instant at = Instant.from(AMZ_DATE.parse(date));
        Aws4SignerParams params = Aws4SignerParams.builder().awsCredentials(credentials).signingName(signingName)
                .signingRegion(region).signingClockOverride(Clock.fixed(at, ZoneOffset.UTC)).build();
        String expected = Aws4Signer.create().sign(request.build(), params).firstMatchingHeader("Authorization")
                .orElse("");
        return expected.equals(authorization) ? null : "the signature does not match";
    }

    private void forward(HttpExchange exchange, byte[] body) throws IOException {
        HttpRequest.Builder out = HttpRequest.newBuilder(target.resolve(exchange.getRequestURI().toString()))
                .method(exchange.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        exchange.getRequestHeaders().forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.equals("content-type") || lower.equals("accept") || lower.startsWith("x-iceberg")) {
                values.forEach(v -> out.header(name, v));
            }
        });
        try {
            HttpResponse<byte[]> response = client.send(out.build(), HttpResponse.BodyHandlers.ofByteArray());
            respond(exchange, response.statusCode(), response.headers().firstValue("Content-Type")
                    .orElse("application/json"), response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            respond(exchange, 503, "text/plain", "interrupted".getBytes(StandardCharsets.UTF_8));
        }
    }

    private static void respond(HttpExchange exchange, int status, String contentType, byte[] body)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean empty = body.length == 0 || status == 204 || status == 304;
        exchange.sendResponseHeaders(status, empty ? -1 : body.length);
        if (!empty) {
            try (OutputStream o = exchange.getResponseBody()) {
                o.write(body);
            }
        }
    }
}
