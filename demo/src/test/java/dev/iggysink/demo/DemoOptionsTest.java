package dev.iggysink.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import dev.iggysink.adapters.config.StorageConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Options are checked before anything starts: one line naming the option, exit 2. */
class DemoOptionsTest {
    @Test
    void a_message_count_below_one_is_refused_with_exit_2() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Demo());
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute("--messages", "-5")).isEqualTo(2);
        assertThat(err.toString()).startsWith("--messages must be at least 1, got -5");
    }

    @Test
    void a_message_count_that_is_not_a_number_is_refused_with_exit_2() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Demo());
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute("--messages", "many")).isEqualTo(2);
        assertThat(err.toString()).contains("--messages").doesNotContain("Exception");
    }

    @Test
    void the_connector_file_turns_the_admin_server_on_at_the_given_address() {
        String file = Demo.connectorFile("127.0.0.1:8090", "http://127.0.0.1:9000", "a", "s", "127.0.0.1:4711");
        assertThat(file).contains("[admin]\naddress = \"127.0.0.1:4711\"").doesNotContain("\"off\"");
    }

    @Test
    void the_filesystem_store_is_chosen_in_the_connector_file_alone(@TempDir Path dir) throws Exception {
        Path lake = dir.resolve("lake");
        Path file = Files.writeString(dir.resolve("s3_sink.toml"),
                Demo.connectorFileForDirectory("127.0.0.1:8090", lake, "127.0.0.1:4711"));
        ConfigResult result = ConnectorConfigLoader.load(file, Map.of());
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        assertThat(result.sinks().get(0).storage()).isEqualTo(new StorageConfig.Directory(lake));

        String s3 = Demo.connectorFile("127.0.0.1:8090", "http://127.0.0.1:9000", "a", "s", "127.0.0.1:4711");
        // Everything but the store's lines is the same file.
        assertThat(s3.replaceAll("(?m)^(bucket|region|endpoint|access_key_id|secret_access_key) = .*\n", ""))
                .isEqualTo(Demo.connectorFileForDirectory("127.0.0.1:8090", lake, "127.0.0.1:4711")
                        .replaceAll("(?m)^(storage_client|directory) = .*\n", ""));
    }
}
