package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The second store, chosen by the config alone: {@code storage_client = "filesystem"} writes the same objects into a
 * directory, {@code audit} checks them there, and an independent walk of the directory finds every offset once.
 */
class DirectoryStoreIT {
    private static final int PARTITIONS = 3;
    private static final int PER_PARTITION = 2_500;

    private E2eFixture fx;
    private Path lake;

    @BeforeEach
    void setUp() throws Exception {
        fx = E2eFixture.shared();
        lake = Files.createDirectory(fx.dir.resolve("lake"));
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    /** The scene's connector file with its bucket lines replaced by the directory. */
    private Path directoryConfig(String pluginExtra) throws IOException {
        Path s3 = fx.config(List.of("events"), "json", pluginExtra);
        StringBuilder toml = new StringBuilder();
        for (String line : Files.readAllLines(s3, StandardCharsets.UTF_8)) {
            String key = line.strip().split(" ", 2)[0];
            if (List.of("bucket", "region", "endpoint", "access_key_id", "secret_access_key").contains(key)) continue;
            toml.append(line).append('\n');
            if (line.equals("[plugin_config]")) {
                toml.append("storage_client = \"filesystem\"\n").append("directory = \"lake\"\n");
            }
        }
        Path file = fx.dir.resolve("filesystem_sink.toml");
        Files.writeString(file, toml, StandardCharsets.UTF_8);
        return file;
    }

    @Test
    @Timeout(180)
    void run_writes_into_a_directory_and_audit_finds_every_offset_exactly_once() throws Exception {
        fx.topic("events", PARTITIONS);
        for (int p = 0; p < PARTITIONS; p++) {
            fx.producer.sendJson(fx.stream, "events", p, PER_PARTITION, i -> "{\"i\":" + i + "}");
        }
        Path config = directoryConfig("max_messages_per_file = 1000\nfile_rotation = \"messages\"\n"
                + "rotate_schedule_interval = \"1s\"");

        StringWriter validated = new StringWriter();
        var cl = dev.iggysink.bootstrap.TestAccess.commandLine();
        cl.setOut(new PrintWriter(validated));
        assertThat(cl.execute("validate", "--config", config.toString())).isZero();
        assertThat(validated.toString()).contains("-> directory " + lake.toAbsolutePath());

        try (SinkProcess sink = SinkProcess.run(config, fx.log("filesystem"), Map.of())) {
            fx.awaitCommitted(config, PARTITIONS, PER_PARTITION - 1, sink, Duration.ofSeconds(120),
                    Duration.ofSeconds(1));
            assertThat(sink.alive()).as(sink.logText()).isTrue();
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
            assertThat(sink.logText()).contains("-> directory " + lake.toAbsolutePath());
        }

        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("every committed offset is in exactly one object");

        // Read the directory without the sink: keys are relative paths, each file holds what its key says.
        // Each object's metadata (its offsets and records' identity) is kept beside it under .iggy-meta/.
        Map<String, String> objects = new TreeMap<>();
        List<String> metadata = new ArrayList<>();
        try (Stream<Path> files = Files.walk(lake)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String key = lake.relativize(f).toString();
                if (key.startsWith(".iggy-meta/")) metadata.add(key);
                else objects.put(key, Files.readString(f, StandardCharsets.UTF_8));
            }
        }
        assertThat(objects.keySet()).as("no temp file, probe or claim left behind")
                .allSatisfy(k -> assertThat(k).startsWith(fx.stream + "/events/"));
        assertThat(metadata).as("metadata of every object, and of nothing else")
                .allSatisfy(k -> assertThat(objects).containsKey(k.substring(".iggy-meta/".length())))
                .hasSize(objects.size());
        Map<Integer, Map<Long, Integer>> copies = E2eFixture.copies(objects);
        assertThat(copies).hasSize(PARTITIONS);
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(copies.get(p)).as("partition %d", p).hasSize(PER_PARTITION)
                    .allSatisfy((offset, n) -> assertThat(n).as("copies of offset %d", offset).isEqualTo(1));
        }
    }
}
