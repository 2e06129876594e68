package dev.iggysink.testkit.aws;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * moto's server (PyPI {@code moto[server]}), the AWS emulator the Glue catalog tests run against, as a child process
 * on a free loopback port. The binary comes from {@code MOTO_SERVER}, else {@code .tools/moto/bin/moto_server} in the
 * working directory or one of its parents (scripts/ensure-moto.sh installs it there). Without one it throws: a
 * missing server must fail the build, not skip tests that would then prove nothing. moto takes any key pair.
 */
public final class MotoServer implements AutoCloseable {
    public static final String REGION = "us-east-1";
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "moto-reaper"));
    }

    private final Process process;
    private final int port;

    private MotoServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** A new server, answering once this returns. */
    public static MotoServer start() {
        Path binary = findBinary().orElseThrow(() -> new IllegalStateException(
                "No moto server for the Glue catalog tests. Run scripts/ensure-moto.sh and export"
                        + " MOTO_SERVER=<its output>."));
        int port = freePort();
        try {
            Path log = Files.createTempFile("iggy-sink-moto-", ".log");
            Process p = new ProcessBuilder(binary.toString(), "-H", "127.0.0.1", "-p", Integer.toString(port))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            LIVE.add(p);
            MotoServer server = new MotoServer(p, port);
            server.awaitListening(log);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start moto's server " + binary, e);
        }
    }

    /** Where the emulated AWS services answer, e.g. Glue's endpoint override. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /**
     * From now on moto checks every request's key against its own IAM (none exist unless made there), as AWS does:
     * any key pair is refused ({@code POST /moto-api/reset-auth}).
     */
    public void requireAuthentication() {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    endpoint().resolve("/moto-api/reset-auth")).POST(HttpRequest.BodyPublishers.ofString("0"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) throw new IllegalStateException("moto refused reset-auth: " + r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        LIVE.remove(process);
    }

    private void awaitListening(Path log) throws IOException {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("moto's server exited at start: " + Files.readString(log));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for moto's server", e);
                }
            }
        }
        close();
        throw new IllegalStateException("moto's server did not listen within " + STARTUP_TIMEOUT + ": "
                + Files.readString(log));
    }

    private static Optional<Path> findBinary() {
        String fromEnv = System.getenv("MOTO_SERVER");
        if (fromEnv != null && !fromEnv.isBlank()) {
            Path path = Paths.get(fromEnv.strip());
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException("MOTO_SERVER=" + fromEnv + " is not an executable file");
            }
            return Optional.of(path);
        }
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(".tools").resolve("moto").resolve("bin").resolve("moto_server");
            if (Files.isExecutable(candidate)) return Optional.of(candidate);
        }
        return Optional.empty();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
