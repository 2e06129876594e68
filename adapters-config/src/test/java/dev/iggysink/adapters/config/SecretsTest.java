package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.settings.Secret;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** No rendering of a loaded configuration (settings, printout, errors, warnings, notices) shows a secret value. */
class SecretsTest {
    private static final List<String> SECRETS = List.of("S3-SECRET-zz91", "IGGY-PW-9f3k", "IGGY-TOKEN-x1b",
            "ADMIN-TOKEN-q7r", "8675309123");

    @TempDir
    Path tmp;

    private static String withSecrets(String secretAccessKeyValue) {
        return TestFiles.seedWith("region = \"us-east-1\"", "region = \"us-east-1\"\naccess_key_id = \"AKID\"\n"
                + "secret_access_key = " + secretAccessKeyValue)
                + "\n[iggy]\npassword = \"IGGY-PW-9f3k\"\ntoken = \"IGGY-TOKEN-x1b\"\n"
                + "\n[admin]\ntoken = \"ADMIN-TOKEN-q7r\"\n";
    }

    private static String everythingShown(ConfigResult result) {
        List<String> shown = new ArrayList<>();
        shown.add(result.toString());
        result.errors().forEach(e -> shown.add(e.toString()));
        shown.addAll(result.warnings());
        shown.addAll(result.notices());
        for (ConnectorConfig s : result.sinks()) {
            shown.add(s.toString());
            shown.add(SettingsPrinter.redacted(s));
        }
        return String.join("\n", shown);
    }

    @Test
    void a_valid_configuration_keeps_its_secrets_out_of_every_rendering() {
        Path file = TestFiles.write(tmp, "s3.toml", withSecrets("\"S3-SECRET-zz91\""));
        ConfigResult result = ConnectorConfigLoader.load(file, Map.of());
        ConnectorConfig s = result.sinks().get(0);
        assertThat(s3(s).secretAccessKey()).contains(Secret.of("S3-SECRET-zz91"));
        assertThat(s.iggy().password().reveal()).isEqualTo("IGGY-PW-9f3k");
        assertThat(s.admin().token()).contains(Secret.of("ADMIN-TOKEN-q7r"));
        String shown = everythingShown(result);
        assertThat(shown).contains("****").contains("AKID");
        SECRETS.forEach(secret -> assertThat(shown).doesNotContain(secret));
    }

    @Test
    void a_secret_of_the_wrong_type_is_reported_without_its_value() {
        Path file = TestFiles.write(tmp, "s3.toml", withSecrets("8675309123"));
        ConfigResult result = ConnectorConfigLoader.load(file, Map.of());
        assertThat(result.errors()).extracting(ConfigError::toString).containsExactly(
                "plugin_config.secret_access_key: expected a string, got an integer (value not shown)");
        String shown = everythingShown(result);
        SECRETS.forEach(secret -> assertThat(shown).doesNotContain(secret));
    }

    @Test
    void secrets_from_the_environment_are_read_as_text_and_never_shown() {
        ConfigResult result = ConnectorConfigLoader.load(TestFiles.resource("seed/s3.toml"), Map.of(
                "IGGY_CONNECTORS_SINK_S3_PLUGIN_CONFIG_ACCESS_KEY_ID", "AKID",
                "IGGY_CONNECTORS_SINK_S3_PLUGIN_CONFIG_SECRET_ACCESS_KEY", "8675309123",
                "IGGY_CONNECTORS_IGGY_PASSWORD", "IGGY-PW-9f3k"));
        assertThat(result.errors()).isEmpty();
        assertThat(s3(result.sinks().get(0)).secretAccessKey()).contains(Secret.of("8675309123"));
        String shown = everythingShown(result);
        SECRETS.forEach(secret -> assertThat(shown).doesNotContain(secret));
    }

    @Test
    void a_syntax_error_next_to_a_secret_does_not_quote_it() {
        Path file = TestFiles.write(tmp, "s3.toml", withSecrets("\"S3-SECRET-zz91"));
        ConfigResult result = ConnectorConfigLoader.load(file, Map.of());
        assertThat(result.errors()).singleElement().satisfies(e ->
                assertThat(e.message()).startsWith("TOML syntax error at line "));
        String shown = everythingShown(result);
        SECRETS.forEach(secret -> assertThat(shown).doesNotContain(secret));
    }

    @Test
    void a_misspelt_secret_key_is_warned_about_by_name_only() {
        String text = withSecrets("\"S3-SECRET-zz91\"").replace("[admin]\ntoken", "[admin]\ntokn");
        ConfigResult result = ConnectorConfigLoader.load(TestFiles.write(tmp, "s3.toml", text), Map.of());
        assertThat(result.warnings()).containsExactly("unknown key admin.tokn (did you mean admin.token?)");
        String shown = everythingShown(result);
        SECRETS.forEach(secret -> assertThat(shown).doesNotContain(secret));
    }

    /** The bucket options of a sink that writes to S3. */
    static StorageConfig.S3 s3(ConnectorConfig c) {
        return (StorageConfig.S3) c.storage();
    }
}
