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

    @Test
    void prints_a_table_sink_in_the_files_own_terms_secrets_masked() {
        TableConnectorConfig c = TableConnectorReader.load(TestFiles.resource("iceberg/rust_iceberg_sink.toml"),
                Map.of()).connector().orElseThrow();
        String printed = SettingsPrinter.redacted(c);
        assertThat(printed.lines()).first().isEqualTo("table sink iceberg \"Iceberg sink\"");
        assertThat(printed)
                .contains("  streams[0]: stream=test_stream topics=[test_topic] schema=json batch_length=100 "
                        + "poll_interval=5ms consumer_group=iceberg_sink_connector")
                .contains("  catalog: catalog_type=rest uri=http://localhost:8181 warehouse=warehouse "
                        + "catalog_name=iggy\n")
                .contains("  catalog credentials: catalog_token=- catalog_credential=- catalog_oauth2_server_uri=- "
                        + "catalog_user=- catalog_password=-\n")
                .contains("  store: store_url=http://localhost:9000 store_access_key_id=admin "
                        + "store_secret_access_key=**** store_region=us-east-1 store_path_style=true\n")
                .contains("  tables: tables=[nyc.users] dynamic_routing=true dynamic_route_field=db_table "
                        + "create_tables=false table_columns=- partition_spec=- evolve_tables=false\n")
                .contains("  commits: commit_interval=30s max_files_per_commit=64 max_file_size=128MiB "
                        + "max_messages_per_file=- max_buffered_bytes=64MiB\n")
                .contains("  delivery: errors_tolerance=none dlq_prefix=_dlq dlq_location=- "
                        + "self_audit_requests_per_minute=600\n")
                .contains("  transforms: none")
                .doesNotContain("password\"").doesNotContain("=password");
        assertThat(SettingsPrinter.redactedLine(c)).doesNotContain("\n")
                .startsWith("table sink iceberg \"Iceberg sink\"; iggy: ").contains("; store: store_url=");
    }
}
