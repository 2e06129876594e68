package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An OutOfMemoryError ends the sink at once with exit 1, "stopped with data not yet durable", as the README's
 * Commands table says (3 is "could not start"): run through the tarball's launcher (distribution/src/dist/bin), whose
 * JVM options are what turns any OutOfMemoryError, even one some library catches, into that exit.
 */
class OutOfMemoryIT {
    private static final Path LAUNCHER = Paths.get("..", "distribution", "src", "dist", "bin", "iggy-s3-sink");

    @TempDir
    Path dir;

    /** The launcher and the fat jar laid out as the tarball has them: bin/iggy-s3-sink, lib/iggy-s3-sink.jar. */
    private Path install() throws IOException {
        Path bin = Files.createDirectories(dir.resolve("install/bin"));
        Path lib = Files.createDirectories(dir.resolve("install/lib"));
        Path launcher = Files.copy(LAUNCHER, bin.resolve("iggy-s3-sink"));
        assertThat(launcher.toFile().setExecutable(true)).isTrue();
        Files.createSymbolicLink(lib.resolve("iggy-s3-sink.jar"), SinkProcess.jar().toAbsolutePath());
        return launcher;
    }

    private SinkProcess launch(Path launcher, Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new java.util.ArrayList<>(List.of(launcher.toString()));
        cmd.addAll(List.of(args));
        Map<String, String> withJava = new java.util.HashMap<>(env);
        withJava.put("JAVA_HOME", System.getProperty("java.home"));
        return SinkProcess.start(cmd, dir.resolve("sink.log"), withJava);
    }

    @Test
    @Timeout(120)
    void an_out_of_memory_error_ends_the_sink_with_exit_1_not_3() throws Exception {
        Path launcher = install();
        // A connector file larger than the heap: reading it runs the heap out, as any OutOfMemoryError would.
        Path config = dir.resolve("s3_sink.toml");
        try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
            w.write("type = \"sink\"\nkey = \"s3\"\nenabled = true\n# ");
            char[] line = "x".repeat(1 << 20).toCharArray();
            for (int i = 0; i < 64; i++) w.write(line);
            w.write("\n");
        }
        try (SinkProcess sink = launch(launcher, Map.of("IGGY_S3_SINK_HEAP", "32m"), "run", "--config",
                config.toString())) {
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(1);
            assertThat(sink.logText()).contains("OutOfMemoryError")
                    .contains("out of memory: stopping at once with exit 1");
        }
    }

    @Test
    @Timeout(120)
    void the_signal_the_launcher_sends_on_out_of_memory_ends_the_sink_at_once_with_exit_1() throws Exception {
        Path launcher = install();
        // A sink waiting for an Iggy that does not answer (nothing listens on port 1): it is running, not stopping.
        Path config = dir.resolve("s3_sink.toml");
        Files.writeString(config, """
                type = "sink"
                key = "s3"
                enabled = true
                version = 0
                name = "S3 sink"
                path = "target/release/libiggy_connector_s3_sink"

                [iggy]
                address = "127.0.0.1:1"

                [[streams]]
                stream = "s"
                topics = ["t"]
                schema = "json"
                consumer_group = "g"

                [plugin_config]
                storage_client = "filesystem"
                directory = "%s"

                [admin]
                address = "off"
                """.formatted(Files.createDirectory(dir.resolve("out"))), StandardCharsets.UTF_8);
        try (SinkProcess sink = launch(launcher, Map.of(), "run", "--config", config.toString())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("cannot be used yet"));
            sink.signal("USR1");
            assertThat(sink.waitFor(Duration.ofSeconds(10))).as(sink.logText()).isEqualTo(1);
            assertThat(sink.logText()).contains("out of memory: stopping at once with exit 1");
        }
    }
}
