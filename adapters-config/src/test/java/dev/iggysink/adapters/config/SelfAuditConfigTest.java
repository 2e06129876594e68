package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code self_audit_requests_per_minute}: the budget of the sink's own audit; on by default, 0 turns it off. */
class SelfAuditConfigTest {
    @TempDir
    Path tmp;

    private static final String BUCKET = "bucket = \"my-data-lake\"";

    private ConfigResult load(String line) {
        return ConnectorConfigLoader.load(TestFiles.write(tmp, "conf/s3.toml",
                TestFiles.seedWith(BUCKET, BUCKET + "\n" + line)), Map.of());
    }

    @Test
    void unset_it_is_the_default_budget_and_the_effective_configuration_says_so() {
        ConnectorConfig c = load("").sinks().get(0);
        assertThat(c.sink().delivery().selfAuditRequestsPerMinute()).isEqualTo(600);
        assertThat(SettingsPrinter.redacted(c)).contains("self_audit_requests_per_minute=600");
    }

    @Test
    void zero_turns_it_off_and_a_budget_is_taken_as_given() {
        assertThat(load("self_audit_requests_per_minute = 0").sinks().get(0).sink().delivery()
                .selfAuditRequestsPerMinute()).isZero();
        assertThat(load("self_audit_requests_per_minute = 30").sinks().get(0).sink().delivery()
                .selfAuditRequestsPerMinute()).isEqualTo(30);
    }

    @Test
    void a_negative_budget_is_an_error_naming_the_key_beside_the_others() {
        ConfigResult result = load("self_audit_requests_per_minute = -1\nupload_concurrency = 0");
        assertThat(result.errors()).extracting(ConfigError::toString)
                .anySatisfy(e -> assertThat(e).contains("plugin_config.self_audit_requests_per_minute"))
                .anySatisfy(e -> assertThat(e).contains("plugin_config.upload_concurrency"));
    }
}
