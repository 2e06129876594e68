package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.settings.Secret;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The AWS credential sources of [plugin_config] beside the key pair: a role to assume ({@code role_arn},
 * {@code external_id}, {@code session_name}, {@code assume_role_duration}, {@code sts_endpoint}) and a profile of
 * the shared files ({@code profile}, {@code credentials_file}).
 */
class AwsCredentialsConfigTest {
    @TempDir
    Path tmp;

    private ConfigResult load(String pluginLines) {
        return load(pluginLines, Map.of());
    }

    private ConfigResult load(String pluginLines, Map<String, String> env) {
        Path file = TestFiles.write(tmp, "s3.toml", TestFiles.seedWith("region = \"us-east-1\"",
                "region = \"us-east-1\"\n" + pluginLines));
        return ConnectorConfigLoader.load(file, env);
    }

    @Test
    void an_assumed_role_is_read_and_printed_with_its_external_id_masked() {
        ConfigResult result = load("""
                role_arn = "arn:aws:iam::123456789012:role/iggy-s3-sink"
                external_id = "EXT-ID-7f3q"
                session_name = "sink-eu-1"
                assume_role_duration = "2h"
                sts_endpoint = "https://sts.eu-west-1.amazonaws.com"
                """);
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        String printed = SettingsPrinter.redacted(result.sinks().get(0));
        assertThat(printed).contains("role_arn=arn:aws:iam::123456789012:role/iggy-s3-sink", "external_id=****",
                "session_name=sink-eu-1", "assume_role_duration=2h",
                "sts_endpoint=https://sts.eu-west-1.amazonaws.com");
        assertThat(printed + result).doesNotContain("EXT-ID-7f3q");
    }

    @Test
    void a_profile_and_its_credentials_file_are_read_and_printed() {
        Path credentials = TestFiles.write(tmp, "credentials", "[sink]\naws_access_key_id = A\n"
                + "aws_secret_access_key = B\n");
        ConfigResult result = load("profile = \"sink\"\ncredentials_file = \"" + credentials + "\"\n");
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        assertThat(SettingsPrinter.redacted(result.sinks().get(0)))
                .contains("profile=sink", "credentials_file=" + credentials);
    }

    @Test
    void the_settings_carry_every_source_with_defaults_for_the_session_and_duration() {
        Path credentials = TestFiles.write(tmp, "creds", "[ops]\naws_access_key_id = A\naws_secret_access_key = B\n");
        ConfigResult result = load("""
                role_arn = "arn:aws:iam::123456789012:role/sink"
                external_id = "ext-1"
                profile = "ops"
                credentials_file = "creds"
                """);
        assertThat(result.errors()).isEmpty();
        CredentialsConfig c = ConnectorConfigLoaderTest.s3(result.sinks().get(0)).credentials();
        assertThat(c.roleArn()).contains("arn:aws:iam::123456789012:role/sink");
        assertThat(c.externalId()).contains(Secret.of("ext-1"));
        assertThat(c.sessionName()).isEqualTo("iggy-s3-sink");
        assertThat(c.assumeRoleDuration()).isEqualTo(Duration.ofHours(1));
        assertThat(c.stsEndpoint()).isEmpty();
        assertThat(c.profile()).contains("ops");
        assertThat(c.credentialsFile()).as("relative to the config file's directory").contains(credentials);
    }

    @Test
    void without_any_of_them_the_environment_and_the_chain_decide() {
        ConfigResult result = load("");
        assertThat(result.errors()).isEmpty();
        assertThat(ConnectorConfigLoaderTest.s3(result.sinks().get(0)).credentials()).isEqualTo(CredentialsConfig.NONE);
        assertThat(SettingsPrinter.redacted(result.sinks().get(0))).doesNotContain("role_arn");
    }

    @Test
    void the_role_can_come_from_the_environment() {
        ConfigResult result = load("", Map.of("IGGY_CONNECTORS_SINK_S3_PLUGIN_CONFIG_ROLE_ARN",
                "arn:aws:iam::123456789012:role/from-env", "IGGY_CONNECTORS_SINK_S3_PLUGIN_CONFIG_EXTERNAL_ID", "e-9"));
        assertThat(result.errors()).isEmpty();
        CredentialsConfig c = ConnectorConfigLoaderTest.s3(result.sinks().get(0)).credentials();
        assertThat(c.roleArn()).contains("arn:aws:iam::123456789012:role/from-env");
        assertThat(c.externalId()).contains(Secret.of("e-9"));
    }

    @Test
    void every_bad_value_is_reported_at_once_naming_its_key() {
        ConfigResult result = load("""
                role_arn = "arn:aws:s3:::my-bucket"
                session_name = "has spaces"
                assume_role_duration = "5m"
                sts_endpoint = "sts.internal:8443"
                external_id = "EXT ID WITH SPACES 55"
                """);
        assertThat(result.errors()).extracting(ConfigError::toString).containsExactlyInAnyOrder(
                "plugin_config.role_arn: \"arn:aws:s3:::my-bucket\" is not an IAM role ARN"
                        + " (arn:aws:iam::<account id>:role/<role name>)",
                "plugin_config.session_name: \"has spaces\" must be 2 to 64 letters, digits or characters of"
                        + " +=,.@-_",
                "plugin_config.assume_role_duration: 5m is outside STS's 15m to 12h",
                "plugin_config.sts_endpoint: \"sts.internal:8443\" has no scheme (write http://sts.internal:8443,"
                        + " or https://sts.internal:8443 for TLS)",
                "plugin_config.external_id: must be 2 to 1224 letters, digits or characters of +=,.@:/-_"
                        + " (value not shown)");
        assertThat(result.toString()).doesNotContain("EXT ID WITH SPACES 55");
    }

    @Test
    void the_role_options_without_a_role_are_refused() {
        ConfigResult result = load("external_id = \"x1\"\nsession_name = \"s1\"\nassume_role_duration = \"1h\"\n"
                + "sts_endpoint = \"http://127.0.0.1:9000\"\n");
        assertThat(result.errors()).extracting(ConfigError::toString).containsExactlyInAnyOrder(
                "plugin_config.external_id: only applies with plugin_config.role_arn",
                "plugin_config.session_name: only applies with plugin_config.role_arn",
                "plugin_config.assume_role_duration: only applies with plugin_config.role_arn");
        assertThat(result.errors()).as("sts_endpoint serves web identity too")
                .noneMatch(e -> e.toString().startsWith("plugin_config.sts_endpoint"));
    }

    @Test
    void a_profile_with_a_key_pair_and_a_missing_credentials_file_are_refused() {
        ConfigResult result = load("""
                access_key_id = "AKID"
                secret_access_key = "s"
                profile = "ops"
                credentials_file = "no-such-file"
                """);
        assertThat(result.errors()).extracting(ConfigError::toString).containsExactlyInAnyOrder(
                "plugin_config.profile: set together with plugin_config.access_key_id (choose one source of"
                        + " credentials)",
                "plugin_config.credentials_file: set together with plugin_config.access_key_id (choose one source"
                        + " of credentials)",
                "plugin_config.credentials_file: " + tmp.resolve("no-such-file") + " does not exist or is not a"
                        + " file");
    }

    @Test
    void a_role_on_top_of_a_key_pair_is_allowed() {
        ConfigResult result = load("""
                access_key_id = "AKID"
                secret_access_key = "s"
                role_arn = "arn:aws-cn:iam::123456789012:role/path/sink"
                """);
        assertThat(result.errors()).isEmpty();
        assertThat(ConnectorConfigLoaderTest.s3(result.sinks().get(0)).credentials().roleArn()).isPresent();
    }
}
