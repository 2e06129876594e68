package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

class EnvOverridesTest {

    @Test
    void infers_types_like_the_runtime() {
        assertThat(EnvOverrides.infer("true").isBoolean()).isTrue();
        assertThat(EnvOverrides.infer("False").booleanValue()).isFalse();
        assertThat(EnvOverrides.infer("42").longValue()).isEqualTo(42);
        assertThat(EnvOverrides.infer("-1.5").doubleValue()).isEqualTo(-1.5);
        assertThat(EnvOverrides.infer("8MiB").stringValue()).isEqualTo("8MiB");
        assertThat(EnvOverrides.infer("[a, \"b,c\", 3]").toString()).isEqualTo("[\"a\",\"b,c\",3]");
        assertThat(EnvOverrides.infer("[]").size()).isZero();
        assertThat(EnvOverrides.infer("99999999999999999999").isString()).isTrue();
    }

    @Test
    void routes_variables_to_top_level_streams_plugin_config_and_admin() {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.putObject("plugin_config").put("bucket", "from-file");
        Map<String, String> origins = new HashMap<>();
        EnvOverrides.applyToConnector(root, "my-s3", Map.of(
                "IGGY_CONNECTORS_SINK_MY_S3_PLUGIN_CONFIG_BUCKET", "from-env",
                "IGGY_CONNECTORS_SINK_MY_S3_STREAMS_1_TOPICS", "[a,b]",
                "IGGY_CONNECTORS_SINK_MY_S3_ENABLED", "false",
                "IGGY_CONNECTORS_SINK_MY_S3_ADMIN_ADDRESS", "off",
                "IGGY_CONNECTORS_SINK_OTHER_ENABLED", "true"), origins);
        assertThat(root.get("plugin_config").get("bucket").stringValue()).isEqualTo("from-env");
        assertThat(root.get("streams").get(1).get("topics").toString()).isEqualTo("[\"a\",\"b\"]");
        assertThat(root.get("streams").get(0).isEmpty()).isTrue();
        assertThat(root.get("enabled").booleanValue()).isFalse();
        assertThat(root.get("admin").get("address").stringValue()).isEqualTo("off");
        assertThat(origins).containsEntry("streams[1].topics", "IGGY_CONNECTORS_SINK_MY_S3_STREAMS_1_TOPICS")
                .hasSize(4);
    }

    @Test
    void section_variables_reach_sub_tables() {
        Map<String, String> origins = new HashMap<>();
        ObjectNode iggy = EnvOverrides.applyToSection(null, "iggy", List.of("tls"), Map.of(
                "IGGY_CONNECTORS_IGGY_TLS_CA_FILE", "ca.pem", "IGGY_CONNECTORS_IGGY_ADDRESS", "h:1"), origins);
        assertThat(iggy.get("tls").get("ca_file").stringValue()).isEqualTo("ca.pem");
        assertThat(iggy.get("address").stringValue()).isEqualTo("h:1");
        assertThat(origins).containsKeys("iggy.tls.ca_file", "iggy.address");
    }
}
