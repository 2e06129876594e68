package dev.iggysink.testkit.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/**
 * A real MinIO for integration tests. {@link #start()} uses, in order:
 * <ol>
 *   <li>an external server named by {@code S3_TEST_ENDPOINT} (with {@code S3_TEST_ACCESS_KEY} /
 *       {@code S3_TEST_SECRET_KEY}, default {@code minioadmin}); it cannot be stopped or restarted from here;</li>
 *   <li>a MinIO binary from {@code MINIO_BINARY}, {@code minio} on {@code PATH}, or {@code .tools/minio} in the
 *       working directory or one of its parents, started as a child process on 127.0.0.1 with free ports and a
 *       fresh data directory.</li>
 * </ol>
 * With neither, it throws {@link IllegalStateException}: a missing server must fail the build, not skip tests that
 * would then prove nothing.
 *
 * <p>A child MinIO also gets a static KMS key ({@link #KMS_KEY_ID}), so SSE-S3 and SSE-KMS requests work.
 * Thread-safe.
 */
public final class MinioServer implements AutoCloseable {
    /** The key id of the static KMS key a child MinIO is started with; use it for {@code aws:kms} tests. */
    public static final String KMS_KEY_ID = "iggy-sink-test-key";

    private static final Logger LOG = LoggerFactory.getLogger(MinioServer.class);
    private static final String REGION = "us-east-1";
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    /** Child processes still alive, killed by one JVM-wide hook so a crashed test run leaves no MinIO behind. */
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    private static MinioServer shared;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "minio-reaper"));
    }

    private final URI endpoint;
    private final String accessKey;
    private final String secretKey;
    /** Null for an external server. */
    private final Path binary;
    private final Path workDir;
    private final Path dataDir;
    private final int port;
    private final int consolePort;
    /** More MINIO_* settings for a child server (e.g. an OpenID provider); set before the first launch. */
    private volatile Map<String, String> extraEnv = Map.of();
    /** Kept across restarts: objects encrypted before a restart must still decrypt after it. */
    private final String kmsKey = kmsKey();
    private final HttpClient health = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private Process process;
    private S3Client client;

    private MinioServer(URI endpoint, String accessKey, String secretKey, Path binary, Path workDir, int port,
                        int consolePort) {
        this.endpoint = endpoint;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.binary = binary;
        this.workDir = workDir;
        this.dataDir = workDir == null ? null : workDir.resolve("data");
        this.port = port;
        this.consolePort = consolePort;
    }

    /** A new server (see the class comment for where it comes from). */
    public static MinioServer start() {
        Map<String, String> env = System.getenv();
        String external = env.get("S3_TEST_ENDPOINT");
        if (external != null && !external.isBlank()) {
            MinioServer server = new MinioServer(URI.create(external.strip()),
                    env.getOrDefault("S3_TEST_ACCESS_KEY", "minioadmin"),
                    env.getOrDefault("S3_TEST_SECRET_KEY", "minioadmin"), null, null, -1, -1);
            server.awaitLive(Duration.ofSeconds(10));
            LOG.info("Using external S3 endpoint {}", server.endpoint);
            return server;
        }
        Path binary = findBinary().orElseThrow(() -> new IllegalStateException(
                "No MinIO for the integration tests. Run scripts/ensure-minio.sh and export MINIO_BINARY=<its output>"
                        + " (or put 'minio' on PATH, or set S3_TEST_ENDPOINT/S3_TEST_ACCESS_KEY/S3_TEST_SECRET_KEY"
                        + " to an external server)."));
        try {
            Path workDir = Files.createTempDirectory("iggy-sink-minio-");
            String secret = "secret-" + randomHex(12);
            int port = freePort();
            MinioServer server = new MinioServer(URI.create("http://127.0.0.1:" + port), "sinkadmin", secret,
                    binary, workDir, port, freePort());
            server.launch();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare a MinIO data directory", e);
        }
    }

    /**
     * A new child server (never an external one) started with these environment variables too, e.g.
     * {@code MINIO_IDENTITY_OPENID_CONFIG_URL} for web identity tests; the caller closes it.
     */
    public static MinioServer startWith(Map<String, String> extraEnv) {
        Path binary = findBinary().orElseThrow(() -> new IllegalStateException(
                "No MinIO binary for a server of this test's own. Run scripts/ensure-minio.sh and export"
                        + " MINIO_BINARY=<its output> (or put 'minio' on PATH)."));
        try {
            Path workDir = Files.createTempDirectory("iggy-sink-minio-");
            int port = freePort();
            MinioServer server = new MinioServer(URI.create("http://127.0.0.1:" + port), "sinkadmin",
                    "secret-" + randomHex(12), binary, workDir, port, freePort());
            server.extraEnv = Map.copyOf(extraEnv);
            server.launch();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare a MinIO data directory", e);
        }
    }

    /**
     * One server for the whole JVM, started on first use and closed by a shutdown hook. Suites share it and keep
     * apart by bucket name; do not stop or restart it (use {@link #start()} for outage tests).
     */
    public static synchronized MinioServer shared() {
        if (shared == null) {
            MinioServer server = start();
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "minio-shared-close"));
            shared = server;
        }
        return shared;
    }

    /** The MinIO process's id, for measuring it; empty for an external store. */
    public synchronized java.util.OptionalLong pid() {
        return process == null || !process.isAlive() ? java.util.OptionalLong.empty()
                : java.util.OptionalLong.of(process.pid());
    }

    public URI endpoint() {
        return endpoint;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    public String region() {
        return REGION;
    }

    /** True for a server this JVM started, false for an external one. */
    public boolean managed() {
        return binary != null;
    }

    /** Creates the bucket; an existing bucket of ours is fine. */
    public void createBucket(String bucket) {
        try {
            client().createBucket(b -> b.bucket(bucket));
        } catch (BucketAlreadyOwnedByYouException e) {
            LOG.debug("bucket {} already exists", bucket);
        }
    }

    /** An AWS SDK client with the root credentials, for setting up and asserting. Owned by this server. */
    public synchronized S3Client client() {
        if (client == null) {
            client = S3Clients.create(endpoint, REGION, accessKey, secretKey);
        }
        return client;
    }

    /** Kills the process and keeps the data directory, so {@link #restart()} brings the same objects back. */
    public synchronized void stop() {
        requireManaged("stop");
        if (process == null) {
            return;
        }
        long started = System.nanoTime();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        LIVE.remove(process);
        process = null;
        LOG.info("MinIO on {} stopped in {} ms", endpoint, (System.nanoTime() - started) / 1_000_000);
    }

    /** Starts the process again on the same port and data directory (for outage tests). */
    public synchronized void restart() {
        requireManaged("restart");
        stop();
        launch();
    }

    /** Whether the server answers its liveness probe now. */
    public boolean running() {
        if (managed()) {
            synchronized (this) {
                if (process == null || !process.isAlive()) {
                    return false;
                }
            }
        }
        return live();
    }

    /** Stops a child server and deletes its data; for an external server only the client is closed. */
    @Override
    public synchronized void close() {
        if (client != null) {
            client.close();
            client = null;
        }
        if (!managed()) {
            return;
        }
        stop();
        deleteRecursively(workDir);
    }

    @Override
    public String toString() {
        return "MinioServer[" + endpoint + (managed() ? ", child process" : ", external") + "]";
    }

    private synchronized void launch() {
        List<String> command = List.of(binary.toString(), "server", "--quiet",
                "--address", "127.0.0.1:" + port, "--console-address", "127.0.0.1:" + consolePort,
                dataDir.toString());
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve("minio.log").toFile()));
        Map<String, String> env = builder.environment();
        env.put("MINIO_ROOT_USER", accessKey);
        env.put("MINIO_ROOT_PASSWORD", secretKey);
        env.put("MINIO_KMS_SECRET_KEY", KMS_KEY_ID + ":" + kmsKey);
        env.put("MINIO_UPDATE", "off");
        env.put("MINIO_BROWSER", "off");
        // A developer's own MinIO settings must not leak into the test server.
        env.remove("MINIO_VOLUMES");
        env.remove("MINIO_CONFIG_ENV_FILE");
        env.putAll(extraEnv);
        long started = System.nanoTime();
        try {
            Files.createDirectories(dataDir);
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start MinIO from " + binary, e);
        }
        LIVE.add(process);
        awaitLive(STARTUP_TIMEOUT);
        LOG.info("MinIO {} up on {} in {} ms (data {})", binary.getFileName(), endpoint,
                (System.nanoTime() - started) / 1_000_000, dataDir);
    }

    private void awaitLive(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (live()) {
                return;
            }
            synchronized (this) {
                if (process != null && !process.isAlive()) {
                    throw new IllegalStateException("MinIO exited with " + process.exitValue() + ": " + logTail());
                }
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for MinIO", e);
            }
        }
        throw new IllegalStateException("MinIO at " + endpoint + " not live within " + timeout + ": " + logTail());
    }

    /**
     * Live and ready: {@code /minio/health/live} answers as soon as the HTTP listener is up, while the first S3
     * requests can still hang until the object layer is initialised (seen: a CreateBucket stuck for 60 s), so the
     * readiness probe must pass too.
     */
    private boolean live() {
        return probe("/minio/health/live") && probe("/minio/health/ready");
    }

    private boolean probe(String path) {
        HttpRequest request = HttpRequest.newBuilder(endpoint.resolve(path))
                .timeout(Duration.ofSeconds(2)).GET().build();
        try {
            return health.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private String logTail() {
        if (workDir == null) {
            return "(external server)";
        }
        try {
            List<String> lines = Files.readAllLines(workDir.resolve("minio.log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private void requireManaged(String what) {
        if (!managed()) {
            throw new IllegalStateException("cannot " + what + " the external S3 endpoint " + endpoint);
        }
    }

    private static Optional<Path> findBinary() {
        String fromEnv = System.getenv("MINIO_BINARY");
        if (fromEnv != null && !fromEnv.isBlank()) {
            Path path = Paths.get(fromEnv.strip());
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException("MINIO_BINARY=" + fromEnv + " is not an executable file");
            }
            return Optional.of(path);
        }
        String pathVar = System.getenv("PATH");
        if (pathVar != null) {
            for (String dir : pathVar.split(java.io.File.pathSeparator)) {
                if (!dir.isEmpty()) {
                    Path candidate = Paths.get(dir, "minio");
                    if (Files.isExecutable(candidate)) {
                        return Optional.of(candidate);
                    }
                }
            }
        }
        // Surefire/failsafe run in the module directory, so the repository's .tools is one or two levels up.
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(".tools").resolve("minio");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }

    private static String kmsKey() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }

    private static String randomHex(int bytes) {
        byte[] raw = new byte[bytes];
        new SecureRandom().nextBytes(raw);
        StringBuilder hex = new StringBuilder();
        for (byte b : raw) {
            hex.append(String.format("%02x", b));
        }
        return hex.toString();
    }

    private static void deleteRecursively(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            List<Path> all = new ArrayList<>(paths.sorted(Comparator.reverseOrder()).toList());
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.warn("could not delete MinIO directory {}: {}", root, e.toString());
        }
    }
}
