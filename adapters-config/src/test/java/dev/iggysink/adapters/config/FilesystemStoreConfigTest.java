package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code storage_client = "filesystem"}: a directory instead of a bucket, chosen in the config alone. */
class FilesystemStoreConfigTest {
    @TempDir
    Path tmp;

    private static final String BUCKET = "bucket = \"my-data-lake\"";
    private static final String REGION = "region = \"us-east-1\"";

    private ConfigResult load(String text) {
        return ConnectorConfigLoader.load(TestFiles.write(tmp, "conf/s3.toml", text), Map.of());
    }

    /** The guide's file with its bucket and region replaced by the given lines. */
    private static String seedWithStore(String... lines) {
        String seed = TestFiles.seedWith(BUCKET, String.join("\n", lines));
        return seed.replace(REGION + "\n", "");
    }

    @Test
    void a_directory_replaces_the_bucket_and_a_relative_one_is_beside_the_config_file() {
        ConfigResult result = load(seedWithStore("storage_client = \"filesystem\"", "directory = \"lake/raw\""));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        ConnectorConfig c = result.sinks().get(0);
        assertThat(c.storage()).isEqualTo(new StorageConfig.Directory(tmp.resolve("conf/lake/raw")));
        assertThat(c.storage().describe()).isEqualTo("directory " + tmp.resolve("conf/lake/raw"));
        // The pipeline's options are read as for any store.
        assertThat(c.sink().output().prefix()).isEqualTo("iggy/raw");
        assertThat(c.sink().delivery().uploadConcurrency()).isEqualTo(4);
    }

    @Test
    void an_absolute_directory_is_taken_as_it_is() {
        ConfigResult result = load(seedWithStore("storage_client = \"filesystem\"", "directory = \"/data/lake\""));
        assertThat(result.errors()).isEmpty();
        assertThat(result.sinks().get(0).storage()).isEqualTo(new StorageConfig.Directory(Path.of("/data/lake")));
    }

    @Test
    void the_filesystem_needs_a_directory_and_s3_clients_refuse_one() {
        assertThat(load(seedWithStore("storage_client = \"filesystem\"")).errors())
                .extracting(ConfigError::toString).singleElement().asString()
                .contains("plugin_config.directory").contains("required when plugin_config.storage_client");
        assertThat(load(seedWithStore("storage_client = \"filesystem\"", "directory = \"  \"")).errors())
                .extracting(ConfigError::toString).singleElement().asString().contains("plugin_config.directory");

        ConfigResult s3 = load(TestFiles.seedWith(BUCKET, BUCKET + "\ndirectory = \"/data/lake\""));
        assertThat(s3.errors()).extracting(ConfigError::toString).singleElement().asString()
                .contains("plugin_config.directory").contains("only applies with plugin_config.storage_client");
    }

    @Test
    void bucket_options_are_accepted_with_a_warning_that_they_do_nothing() {
        ConfigResult result = load(TestFiles.seedWith(BUCKET, BUCKET
                + "\nstorage_client = \"filesystem\"\ndirectory = \"/data/lake\"\nsse = \"AES256\""));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).containsExactly(
                "plugin_config.bucket has no effect with plugin_config.storage_client = \"filesystem\"",
                "plugin_config.region has no effect with plugin_config.storage_client = \"filesystem\"",
                "plugin_config.sse has no effect with plugin_config.storage_client = \"filesystem\"");
        assertThat(result.sinks().get(0).storage()).isInstanceOf(StorageConfig.Directory.class);
    }

    @Test
    void the_effective_configuration_shows_the_directory() {
        ConfigResult result = load(seedWithStore("storage_client = \"filesystem\"", "directory = \"/data/lake\""));
        assertThat(SettingsPrinter.redacted(result.sinks().get(0)))
                .contains("storage: storage_client=filesystem directory=/data/lake")
                .contains("upload: upload_concurrency=4")
                .doesNotContain("bucket=");
    }

    @Test
    void the_s3_clients_still_need_a_bucket_and_a_region() {
        assertThat(load(seedWithStore("storage_client = \"minio\"")).errors())
                .extracting(ConfigError::toString)
                .anySatisfy(e -> assertThat(e).contains("plugin_config.bucket"))
                .anySatisfy(e -> assertThat(e).contains("plugin_config.region"));
    }
}
