package dev.iggysink.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's fat jar (built by {@code package}) as a user runs it: {@code --keep-running} prints the admin server's
 * URL, which answers {@code /health} while the sink runs; SIGTERM then stops it cleanly and it lists the objects.
 */
class DemoJarIT {
    private static final Path JAR = Paths.get("target", "iggy-s3-sink-demo.jar");
    private static final Pattern ADMIN = Pattern.compile("Admin server: (http://127\\.0\\.0\\.1:\\d+) ");

    @Test
    void keep_running_serves_the_admin_server_and_stops_cleanly_on_sigterm(@TempDir Path dir) throws Exception {
        assertThat(JAR).as("demo jar; run `mvn package` first").exists();
        Process demo = new ProcessBuilder(javaBin(), "-jar", JAR.toString(), "--keep-running", "--messages", "25",
                "--dir", dir.toString())
                .redirectError(dir.resolve("demo.log").toFile()).start();
        List<String> out = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) out.add(line);
            } catch (IOException ignored) {
                // the process ended
            }
        });
        reader.start();
        try {
            // Liveness bound only: the demo normally reaches "Running." in a few seconds.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (out.stream().noneMatch(l -> l.startsWith("Running.")) && demo.isAlive()
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(out).as("demo output; log in %s", dir.resolve("demo.log"))
                    .anyMatch(l -> l.startsWith("Running."));
            String url = out.stream().map(ADMIN::matcher).filter(Matcher::find).map(m -> m.group(1))
                    .findFirst().orElseThrow(() -> new AssertionError("no admin URL in " + out));

            HttpResponse<String> health = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(url + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"ok\"");
        } finally {
            // SIGTERM: the sink seals, uploads and commits, then the demo lists the objects. Through the handle,
            // because Process.destroy() also closes our end of the demo's stdout.
            demo.toHandle().destroy();
        }
        assertThat(demo.waitFor(120, TimeUnit.SECONDS)).isTrue();
        reader.join();
        assertThat(demo.exitValue()).as("exit code; log in %s", dir.resolve("demo.log")).isZero();
        assertThat(out).contains("Objects in s3://my-data-lake (6):")
                .anyMatch(l -> l.contains("application_logs/api_requests/")
                        && l.contains("00000-00000000000000000020-00000000000000000024.jsonl"))
                .anyMatch(l -> l.startsWith("  {\"offset\":0,"))
                .contains("Sink stopped cleanly: every message read is in the store and committed.");
        assertThat(Files.list(dir.resolve("s3"))).isNotEmpty();
    }

    @Test
    void with_the_filesystem_store_the_objects_are_plain_files_in_a_directory(@TempDir Path dir) throws Exception {
        assertThat(JAR).as("demo jar; run `mvn package` first").exists();
        Process demo = new ProcessBuilder(javaBin(), "-jar", JAR.toString(), "--store", "filesystem",
                "--messages", "25", "--dir", dir.toString())
                .redirectError(dir.resolve("demo.log").toFile()).redirectOutput(dir.resolve("demo.out").toFile())
                .start();
        assertThat(demo.waitFor(120, TimeUnit.SECONDS)).isTrue();
        List<String> out = Files.readAllLines(dir.resolve("demo.out"));
        assertThat(demo.exitValue()).as("exit code; output %s", out).isZero();
        Path lake = dir.resolve("lake");
        assertThat(out).contains("Objects in the directory " + lake + " (6):")
                .contains("Sink stopped cleanly: every message read is in the store and committed.");
        Path file = lake.resolve("iggy/raw/application_logs/api_requests");
        try (var files = Files.walk(file)) {
            List<Path> objects = files.filter(Files::isRegularFile).toList();
            assertThat(objects).hasSize(3)
                    .anyMatch(p -> p.getFileName().toString()
                            .equals("00000-00000000000000000020-00000000000000000024.jsonl"));
            assertThat(Files.readString(objects.get(0))).startsWith("{\"offset\":");
        }
        assertThat(dir.resolve("s3")).as("no S3 store was started").doesNotExist();
    }

    @Test
    void with_the_table_sink_the_table_read_back_by_iceberg_holds_every_message_exactly_once(@TempDir Path dir)
            throws Exception {
        assertThat(JAR).as("demo jar; run `mvn package` first").exists();
        Process demo = new ProcessBuilder(javaBin(), "-jar", JAR.toString(), "--sink", "tables",
                "--messages", "25", "--dir", dir.toString())
                .redirectError(dir.resolve("demo.log").toFile()).redirectOutput(dir.resolve("demo.out").toFile())
                .start();
        assertThat(demo.waitFor(180, TimeUnit.SECONDS)).isTrue();
        List<String> out = Files.readAllLines(dir.resolve("demo.out"));
        assertThat(demo.exitValue()).as("exit code; output %s; log in %s", out, dir.resolve("demo.log")).isZero();
        String offsets = "iggy.offsets.iceberg_sink.application_logs.api_requests=";
        assertThat(out)
                .contains("Iceberg catalog: JDBC on the SQLite file " + dir.resolve("catalog.db")
                        + ", warehouse s3://my-data-lake/warehouse")
                .contains("Table logs.api_requests (s3://my-data-lake/warehouse/logs/api_requests), read back with"
                        + " Iceberg's reader (IcebergGenerics): 25 rows")
                .anyMatch(l -> l.matches("Snapshots \\(\\d+\\), each with the offset map it commits:"))
                // the newest snapshot's map holds the last offset; how many snapshots led there depends on timing
                .anyMatch(l -> l.contains(" append ") && l.endsWith(offsets + "{\"0\":24}"))
                .anyMatch(l -> l.startsWith("  iggy_offset=0 iggy_partition_id=0 iggy_timestamp=")
                        && l.endsWith(" method=GET path=/api/users status=200"))
                .contains("Check: every offset is in the table exactly once (partition 0 offsets 0..24, as the"
                        + " offset map says)")
                .contains("Sink stopped cleanly: every message read is in the table and committed.");
        try (var files = Files.walk(dir.resolve("s3"))) {
            assertThat(files.map(Path::toString)).as("data files in the embedded store")
                    .anyMatch(f -> f.endsWith(".parquet"));
        }
    }

    @Test
    void the_jar_ships_the_demo_and_its_test_infrastructure() throws IOException {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            List<String> entries = jar.stream().map(ZipEntry::getName).toList();
            assertThat(entries).contains("dev/iggysink/demo/Demo.class",
                    "dev/iggysink/bootstrap/EmbeddedSink.class",
                    "dev/iggysink/testkit/iggy/EmbeddedIggyServer.class");
            assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo("dev.iggysink.demo.Demo");
        }
    }

    private static String javaBin() {
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }
}
