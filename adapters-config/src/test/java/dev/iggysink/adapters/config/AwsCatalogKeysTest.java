package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The keys of catalogs on AWS: the Glue catalog, and a REST catalog whose requests are signed with SigV4. */
class AwsCatalogKeysTest {

    /** The REST catalog of S3 Tables, signing for its service. */
    private static final String S3_TABLES = """
            catalog_type = "rest"
            uri = "https://s3tables.us-east-1.amazonaws.com/iceberg"
            warehouse = "arn:aws:s3tables:us-east-1:111122223333:bucket/lake"
            catalog_sigv4 = true
            catalog_signing_name = "s3tables"
            """;

    private static TableConnectorReader.Result read(Path dir, String pluginConfig) {
        return TableConnectorReader.load(TestFiles.tableSink(dir.resolve("lake.toml"), pluginConfig), Map.of());
    }

    @Test
    void a_glue_catalog_needs_no_uri_and_takes_the_store_keys_and_a_region_of_its_own(@TempDir Path dir)
            throws Exception {
        TableConnectorReader.Result result = read(dir, """
                catalog_type = "Glue"
                warehouse = "s3://lake/warehouse"
                store_access_key_id = "AKIA"
                store_secret_access_key = "glue-secret"
                store_region = "eu-west-1"
                catalog_region = "eu-central-1"
                """);
        assertThat(result.errors()).isEmpty();
        CatalogConfig c = result.connector().orElseThrow().catalog();
        assertThat(c.type()).isEqualTo("glue");
        assertThat(c.uri()).isEmpty();
        assertThat(c.aws().region()).contains("eu-central-1");
        assertThat(c.aws().sigv4()).isFalse();
        assertThat(c.toString()).doesNotContain("glue-secret");
    }

    @Test
    void a_glue_catalogs_uri_is_a_glue_compatible_endpoint(@TempDir Path dir) throws Exception {
        TableConnectorReader.Result result = read(dir, """
                catalog_type = "glue"
                uri = "http://127.0.0.1:5000"
                warehouse = "s3://lake/warehouse"
                """);
        assertThat(result.errors()).isEmpty();
        assertThat(result.connector().orElseThrow().catalog().uri()).isEqualTo("http://127.0.0.1:5000");
    }

    @Test
    void a_glue_catalog_refuses_what_it_cannot_use_naming_each_key(@TempDir Path dir) throws Exception {
        TableConnectorReader.Result result = read(dir, """
                catalog_type = "glue"
                uri = "glue.example.com"
                warehouse = "lake"
                catalog_token = "t"
                catalog_sigv4 = true
                """);
        assertThat(result.connector()).isEmpty();
        assertThat(result.errors()).extracting(ConfigError::path).containsExactlyInAnyOrder("plugin_config.uri",
                "plugin_config.warehouse", "plugin_config.catalog_token", "plugin_config.catalog_sigv4");
        assertThat(result.errors()).extracting(ConfigError::message).anySatisfy(m -> assertThat(m)
                .contains("s3://"));
    }

    @Test
    void a_rest_catalog_on_aws_signs_with_sigv4_for_the_named_service_and_region(@TempDir Path dir) throws Exception {
        TableConnectorReader.Result result = read(dir, S3_TABLES + "catalog_region = \"us-east-1\"\n");
        assertThat(result.errors()).isEmpty();
        CatalogConfig c = result.connector().orElseThrow().catalog();
        assertThat(c.aws().sigv4()).isTrue();
        assertThat(c.aws().signingName()).contains("s3tables");
        assertThat(c.aws().region()).contains("us-east-1");
    }

    @Test
    void signing_keys_belong_to_a_rest_catalog_that_signs(@TempDir Path dir) throws Exception {
        TableConnectorReader.Result jdbc = read(dir, """
                catalog_type = "jdbc"
                uri = "jdbc:sqlite:catalog.db"
                warehouse = "s3://lake/warehouse"
                catalog_sigv4 = true
                """);
        assertThat(jdbc.errors()).extracting(ConfigError::path).containsExactly("plugin_config.catalog_sigv4");

        TableConnectorReader.Result unsigned = read(dir, """
                catalog_type = "rest"
                uri = "http://catalog:8181"
                warehouse = "lake"
                catalog_signing_name = "glue"
                """);
        assertThat(unsigned.errors()).isEmpty();
        assertThat(unsigned.warnings()).anySatisfy(w -> assertThat(w).contains("plugin_config.catalog_signing_name")
                .contains("catalog_sigv4 = true"));
    }

    @Test
    void an_s3_tables_bucket_arn_is_a_warehouse_name_so_dead_letters_are_warned_of(@TempDir Path dir)
            throws Exception {
        TableConnectorReader.Result result = read(dir, S3_TABLES + "errors_tolerance = \"all\"\n");
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).anySatisfy(w -> assertThat(w).startsWith("plugin_config.warehouse")
                .contains("is a REST catalog's warehouse name, not a location").contains("dlq_location"));
    }
}
