package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsPrinterTest {

    @Test
    void prints_the_seed_configuration_in_the_files_own_terms() {
        ConnectorConfig s = ConnectorConfigLoader.load(TestFiles.resource("seed/s3_minio.toml"), Map.of()).sinks()
                .get(0);
        String printed = SettingsPrinter.redacted(s);
        assertThat(printed.lines()).first().isEqualTo("sink s3 \"S3 sink\" version 0");
        assertThat(printed)
                .contains("  iggy: address=127.0.0.1:8090 username=iggy password=**** token=- tls=off")
                .contains("  streams[0]: stream=application_logs topics=[api_requests, errors] schema=json "
                        + "batch_length=1000 poll_interval=100ms consumer_group=s3_sink avro_schema=-")
                .contains("  storage: bucket=my-bucket region=us-east-1 endpoint=http://localhost:9000 "
                        + "path_style=true storage_client=aws access_key_id=minioadmin secret_access_key=****")
                .contains("  rotation: file_rotation=messages max_file_size=8MiB max_messages_per_file=1 ")
                .contains("  retry: max_attempts=3 retry_delay=1s retry_max_delay=10s")
                .contains("  delivery: max_buffered_bytes=72MiB errors_tolerance=none dlq_prefix=_dlq "
                        + "shutdown_timeout=30s buffer_directory=")
                .contains("  admin: address=127.0.0.1:8098 token=-")
                .contains("  transforms: none")
                .doesNotContain("secret_access_key=minioadmin");
    }

    @Test
    void prints_transforms_in_order_and_an_off_admin_server() {
        ConnectorConfig s = ConnectorConfigLoader.load(TestFiles.resource("full.toml"),
                Map.of("IGGY_CONNECTORS_SINK_LAKE_ADMIN_ADDRESS", "off")).sinks().get(0);
        String printed = SettingsPrinter.redacted(s);
        assertThat(printed).contains("  admin: address=off token=****")
                .contains("  transforms: add_fields(source,ingested_at), delete_fields(password,ssn), "
                        + "update_fields(status), filter_fields(keep=id patterns=3 include_matching=false), "
                        + "unwrap_envelope(data) (applied in this order)")
                .contains("iggy: address=[::1]:9090")
                .contains("rotate_interval=1h 30m");
    }

    @Test
    void the_line_form_is_every_section_on_one_line() {
        ConnectorConfig s = ConnectorConfigLoader.load(TestFiles.resource("seed/s3_minio.toml"), Map.of()).sinks()
                .get(0);
        String line = SettingsPrinter.redactedLine(s);
        assertThat(line).doesNotContain("\n").doesNotContain("\r")
                .startsWith("sink s3 \"S3 sink\" version 0; iggy: address=127.0.0.1:8090 ")
                .contains("; storage: bucket=my-bucket ").contains("; retry: max_attempts=3 ")
                .contains("secret_access_key=****").doesNotContain("secret_access_key=minioadmin")
                .endsWith("; transforms: none");
        assertThat(line.split("; (?=[a-z_\\[\\]0-9]+: )")).as("one section per line of the multi-line form")
                .hasSize((int) SettingsPrinter.redacted(s).lines().count());
    }
}
