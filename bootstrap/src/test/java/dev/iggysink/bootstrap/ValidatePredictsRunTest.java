package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** validate and run decide on the same loader result: what run refuses, validate refuses with the same lines. */
class ValidatePredictsRunTest {
    private static final String SINK = """
            type = "sink"
            key = "%s"
            enabled = %s
            version = 0
            name = "S3 sink"
            path = "target/release/libiggy_connector_s3_sink"

            [[streams]]
            stream = "s"
            topics = ["t"]
            schema = "json"

            [plugin_config]
            bucket = "%s"
            region = "us-east-1"
            %s
            """;

    @TempDir
    Path tmp;

    private Path write(String name, String text) throws IOException {
        Path file = tmp.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    @Test
    void a_config_without_an_enabled_sink_fails_both_with_the_same_message() throws IOException {
        Path file = write("s3.toml", SINK.formatted("s3", "false", "lake", ""));
        CliRun validate = CliRun.execute("validate", "--config", file.toString());
        CliRun run = CliRun.execute("run", "--config", file.toString());
        assertThat(validate.code()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.code()).isEqualTo(ExitCodes.CONFIG);
        assertThat(validate.err()).contains("  s3.toml: no enabled S3 sink to run");
        assertThat(run.err()).contains("  s3.toml: no enabled S3 sink to run");
    }

    @Test
    void errors_in_two_connector_files_are_all_listed_by_both() throws IOException {
        Path config = write("config.toml", "[connectors]\nconfig_dir = \"" + tmp.resolve("c") + "\"\n");
        write("c/a.toml", SINK.formatted("a", "true", "lake-a", "max_file_size = \"big\""));
        write("c/b.toml", SINK.formatted("b", "true", "Lake_B", ""));
        for (String command : new String[] {"validate", "run"}) {
            CliRun outcome = CliRun.execute(command, "--config", config.toString());
            assertThat(outcome.code()).as(command).isEqualTo(ExitCodes.CONFIG);
            assertThat(outcome.err()).as(command)
                    .contains("config.toml: 2 error(s):")
                    .contains("  [a.toml] plugin_config.max_file_size: \"big\" is not a size")
                    .contains("  [b.toml] plugin_config.bucket: \"Lake_B\" is not a valid bucket name");
        }
    }
}
