package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code buffer_directory}: where open files grow; the temporary directory unless set, the heap when empty. */
class BufferDirectoryConfigTest {
    @TempDir
    Path tmp;

    private static final String BUCKET = "bucket = \"my-data-lake\"";

    private ConnectorConfig load(String line) {
        ConfigResult result = ConnectorConfigLoader.load(TestFiles.write(tmp, "conf/s3.toml",
                TestFiles.seedWith(BUCKET, BUCKET + "\n" + line)), Map.of());
        assertThat(result.errors()).isEmpty();
        return result.sinks().get(0);
    }

    @Test
    void unset_it_is_the_temporary_directory() {
        ConnectorConfig c = load("");
        assertThat(c.buffersOnDisk()).isTrue();
        assertThat(c.bufferDirectory())
                .isEqualTo(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().toString());
    }

    @Test
    void a_relative_directory_is_beside_the_config_file_and_an_absolute_one_is_taken_as_it_is() {
        assertThat(load("buffer_directory = \"spill/open\"").bufferDirectory())
                .isEqualTo(tmp.resolve("conf/spill/open").toString());
        assertThat(load("buffer_directory = \"/var/lib/sink\"").bufferDirectory())
                .isEqualTo("/var/lib/sink");
    }

    @Test
    void empty_keeps_open_files_on_the_heap_and_the_effective_configuration_says_so() {
        ConnectorConfig c = load("buffer_directory = \"\"");
        assertThat(c.buffersOnDisk()).isFalse();
        assertThat(SettingsPrinter.redacted(c)).contains("buffer_directory=(heap)");
        assertThat(SettingsPrinter.redacted(load("buffer_directory = \"/var/lib/sink\"")))
                .contains("shutdown_timeout=30s buffer_directory=/var/lib/sink");
    }

    @Test
    void a_value_that_is_not_a_string_is_an_error_naming_the_key() {
        ConfigResult result = ConnectorConfigLoader.load(TestFiles.write(tmp, "conf/s3.toml",
                TestFiles.seedWith(BUCKET, BUCKET + "\nbuffer_directory = 5")), Map.of());
        assertThat(result.errors()).extracting(ConfigError::toString).singleElement().asString()
                .contains("plugin_config.buffer_directory");
    }
}
