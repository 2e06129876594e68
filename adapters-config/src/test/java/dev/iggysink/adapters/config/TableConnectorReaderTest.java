package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.settings.ErrorTolerance;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableConnectorReaderTest {

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(TableConnectorReaderTest.class.getResource("/iceberg/" + name).toURI());
    }

    private static Path tableSink(Path file, String pluginConfig) {
        return TestFiles.tableSink(file, pluginConfig);
    }

    /** {@link #tableSink} on a REST catalog, bad records to dead letters, then {@code lines}. */
    private static Path restSinkWithDeadLetters(Path file, String lines) throws IOException {
        return tableSink(file, """
                catalog_type = "rest"
                uri = "http://catalog:8181"
                errors_tolerance = "all"
                """ + lines);
    }

    @Test
    void the_rust_iceberg_sink_file_is_read_unchanged() throws Exception {
        Path file = resource("rust_iceberg_sink.toml");
        assertThat(TableConnectorReader.isTableSink(file)).isTrue();
        TableConnectorReader.Result result = TableConnectorReader.load(file, Map.of());
        assertThat(result.errors()).isEmpty();
        TableConnectorConfig c = result.connector().orElseThrow();
        assertThat(c.streams()).singleElement().satisfies(s -> {
            assertThat(s.stream()).isEqualTo("test_stream");
            assertThat(s.consumerGroup()).isEqualTo("iceberg_sink_connector");
        });
        assertThat(c.table().routing().routeField()).contains("db_table");
        assertThat(c.table().routing().tables()).containsExactly("nyc.users");
        assertThat(c.table().commitInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.table().errors()).isEqualTo(ErrorTolerance.NONE);
        assertThat(c.table().dlqPrefix()).isEqualTo("_dlq"); // the S3 sink's default
        assertThat(c.catalog().type()).isEqualTo("rest");
        assertThat(c.catalog().uri()).isEqualTo("http://localhost:8181");
        assertThat(c.catalog().storeUrl()).contains("http://localhost:9000");
        assertThat(c.catalog().storeSecretAccessKey().orElseThrow().reveal()).isEqualTo("password");
        assertThat(c.catalog().pathStyle()).isTrue();
        assertThat(c.toString()).contains("storeSecretAccessKey=Optional[****]").doesNotContain("=password")
                .doesNotContain("[password]");
    }

    @Test
    void every_problem_is_reported_at_once_with_its_key() throws Exception {
        TableConnectorReader.Result result = TableConnectorReader.load(resource("bad_iceberg_sink.toml"), Map.of());
        assertThat(result.connector()).isEmpty();
        List<String> paths = result.errors().stream().map(ConfigError::path).toList();
        assertThat(paths).contains("streams", "plugin_config.tables[0]", "plugin_config.catalog_type",
                "plugin_config.warehouse", "plugin_config.store_secret_access_key", "plugin_config.commit_interval",
                "plugin_config.max_files_per_commit", "plugin_config.errors_tolerance", "plugin_config.dlq_prefix");
        assertThat(result.errors()).anySatisfy(e -> assertThat(e.message()).contains("schema = \"json\""));
    }

    @Test
    void a_jdbc_catalog_takes_a_sqlite_or_postgresql_url_and_its_password_is_a_secret(@TempDir Path dir)
            throws Exception {
        Path file = tableSink(dir.resolve("iceberg.toml"), """
                catalog_type = "jdbc"
                uri = "jdbc:postgresql://db:5432/catalog"
                warehouse = "s3://lake/warehouse"
                catalog_user = "sink"
                catalog_password = "s3cr3t"
                commit_interval = "10s"
                max_messages_per_file = 1000
                errors_tolerance = "all"
                dlq_prefix = "/dead/letters/"
                """);
        TableConnectorReader.Result result = TableConnectorReader.load(file, Map.of());
        assertThat(result.errors()).isEmpty();
        TableConnectorConfig c = result.connector().orElseThrow();
        assertThat(c.catalog().user()).contains("sink");
        assertThat(c.catalog().password().orElseThrow().reveal()).isEqualTo("s3cr3t");
        assertThat(c.catalog().pathStyle()).isFalse();
        assertThat(c.table().rotation().maxRecords()).hasValue(1000);
        assertThat(c.table().errors()).isEqualTo(ErrorTolerance.ALL);
        assertThat(c.table().dlqPrefix()).isEqualTo("dead/letters");
        assertThat(c.table().routing().routeField()).isEqualTo(Optional.empty());
        assertThat(c.toString()).doesNotContain("s3cr3t");
    }

    /** The Rust runtime applies `[transforms]` before any sink sees a message, the Iceberg sink's included. */
    @Test
    void transforms_are_read_for_the_table_sink_and_a_bad_one_is_an_error(@TempDir Path dir) throws Exception {
        String catalog = "catalog_type = \"rest\"\nuri = \"http://catalog:8181\"\n"
                + "warehouse = \"s3://lake/warehouse\"\n";
        Path good = tableSink(dir.resolve("good.toml"), catalog + """
                [transforms.delete_fields]
                enabled = true
                fields = ["password", "card"]
                [transforms.add_fields]
                enabled = true
                fields = [{ key = "sink", value = { static = "lake" } }]
                """);
        TableConnectorReader.Result read = TableConnectorReader.load(good, Map.of());
        assertThat(read.errors()).isEmpty();
        assertThat(read.warnings()).noneMatch(w -> w.contains("transforms"));
        assertThat(read.connector().orElseThrow().transforms()).hasSize(2);

        Path bad = tableSink(dir.resolve("bad.toml"), catalog + "[transforms.delete_feilds]\nenabled = true\n");
        assertThat(TableConnectorReader.load(bad, Map.of()).errors()).singleElement().asString()
                .contains("transforms.delete_feilds").contains("did you mean delete_fields");
    }

    @Test
    void retry_delay_and_retry_max_delay_pace_the_calls_to_a_failing_catalog(@TempDir Path dir) throws Exception {
        String catalog = "catalog_type = \"rest\"\nuri = \"http://catalog:8181\"\n"
                + "warehouse = \"s3://lake/warehouse\"\n";
        TableConnectorReader.Result read = TableConnectorReader.load(tableSink(dir.resolve("retry.toml"), catalog
                + "retry_delay = \"200ms\"\nretry_max_delay = \"5s\"\n"), Map.of());
        assertThat(read.errors()).isEmpty();
        assertThat(read.connector().orElseThrow().table().retry().base()).isEqualTo(Duration.ofMillis(200));
        assertThat(read.connector().orElseThrow().table().retry().cap()).isEqualTo(Duration.ofSeconds(5));

        TableConnectorReader.Result defaults = TableConnectorReader.load(tableSink(dir.resolve("plain.toml"),
                catalog), Map.of());
        assertThat(defaults.connector().orElseThrow().table().retry().cap()).isEqualTo(Duration.ofSeconds(10));

        TableConnectorReader.Result bad = TableConnectorReader.load(tableSink(dir.resolve("bad.toml"), catalog
                + "retry_delay = \"2s\"\nretry_max_delay = \"1s\"\n"), Map.of());
        assertThat(bad.errors()).anySatisfy(e -> {
            assertThat(e.path()).isEqualTo("plugin_config.retry_max_delay");
            assertThat(e.message()).contains("shorter than plugin_config.retry_delay");
        });
    }

    @Test
    void an_s3_sink_file_is_not_a_table_sink() throws Exception {
        assertThat(TableConnectorReader.isTableSink(resource("../full.toml"))).isFalse();
    }

    @Test
    void dead_letters_without_a_warehouse_location_are_warned_of(@TempDir Path dir) throws Exception {
        Path named = restSinkWithDeadLetters(dir.resolve("named.toml"), "warehouse = \"lakehouse\"");
        TableConnectorReader.Result result = TableConnectorReader.load(named, Map.of());
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).anySatisfy(w -> assertThat(w).startsWith("plugin_config.warehouse")
                .contains("dead letters").contains("halts").contains("set dlq_location"));
        Path located = restSinkWithDeadLetters(dir.resolve("located.toml"), "warehouse = \"s3://lake/warehouse\"");
        assertThat(TableConnectorReader.load(located, Map.of()).warnings()).noneMatch(w -> w.contains("dead letters"));
    }

    @Test
    void a_dlq_location_gives_dead_letters_of_a_named_rest_warehouse_a_place(@TempDir Path dir) throws Exception {
        String plugin = """
                warehouse = "warehouse"
                dlq_location = "%s"
                """;
        for (String good : List.of("s3://bucket/dead-letters", "s3a://bucket/x/", "file:///var/dlq", "/var/dlq")) {
            Path f = restSinkWithDeadLetters(dir.resolve("good.toml"), plugin.formatted(good));
            TableConnectorReader.Result result = TableConnectorReader.load(f, Map.of());
            assertThat(result.errors()).as(good).isEmpty();
            assertThat(result.warnings()).as(good).noneMatch(w -> w.contains("dead letters"));
            assertThat(result.connector().orElseThrow().catalog().dlqLocation()).contains(good);
        }
        for (String bad : List.of("bucket/dead-letters", "http://host/dlq", "")) {
            Path f = restSinkWithDeadLetters(dir.resolve("bad.toml"), plugin.formatted(bad));
            TableConnectorReader.Result result = TableConnectorReader.load(f, Map.of());
            assertThat(result.connector()).as(bad).isEmpty();
            assertThat(result.errors()).as(bad).anySatisfy(e -> assertThat(e.toString())
                    .contains("plugin_config.dlq_location"));
        }
    }

    @Test
    void evolve_tables_adds_table_columns_to_existing_tables_only_with_create_tables(@TempDir Path dir)
            throws Exception {
        String jdbc = """
                catalog_type = "jdbc"
                uri = "jdbc:sqlite:lake.db"
                warehouse = "s3://lake/warehouse"
                table_columns = ["user string", "country string"]
                """;
        Path evolving = tableSink(dir.resolve("evolving.toml"), jdbc + "create_tables = true\nevolve_tables = true\n");
        TableConnectorReader.Result result = TableConnectorReader.load(evolving, Map.of());
        assertThat(result.errors()).isEmpty();
        assertThat(result.connector().orElseThrow().creation()).hasValueSatisfying(c -> {
            assertThat(c.evolve()).isTrue();
            assertThat(c.columns()).containsExactly("user string", "country string");
        });
        Path kept = tableSink(dir.resolve("kept.toml"), jdbc + "create_tables = true\n");
        assertThat(TableConnectorReader.load(kept, Map.of()).connector().orElseThrow().creation())
                .hasValueSatisfying(c -> assertThat(c.evolve()).isFalse());
        Path alone = tableSink(dir.resolve("alone.toml"), jdbc + "evolve_tables = true\n");
        TableConnectorReader.Result without = TableConnectorReader.load(alone, Map.of());
        assertThat(without.errors()).isEmpty();
        assertThat(without.warnings()).anySatisfy(w -> assertThat(w).startsWith("plugin_config.evolve_tables")
                .contains("create_tables = true"));
    }

    @Test
    void relative_sqlite_and_warehouse_paths_are_the_config_files_folders_not_the_working_directorys(
            @TempDir Path dir) throws Exception {
        Path folder = Files.createDirectories(dir.resolve("conf"));
        String plugin = """
                catalog_type = "jdbc"
                uri = "%s"
                warehouse = "%s"
                """;
        CatalogConfig relative = TableConnectorReader.load(tableSink(folder.resolve("r.toml"),
                plugin.formatted("jdbc:sqlite:lake.db", "data/warehouse")), Map.of()).connector().orElseThrow()
                .catalog();
        assertThat(relative.uri()).isEqualTo("jdbc:sqlite:" + folder.resolve("lake.db"));
        assertThat(relative.warehouse()).isEqualTo(folder.resolve("data/warehouse").toString());

        Path elsewhere = dir.resolve("elsewhere");
        for (List<String> kept : List.of(List.of("jdbc:sqlite:" + elsewhere.resolve("a.db"), elsewhere.toString()),
                List.of("jdbc:sqlite::memory:", "file:///var/lake"), List.of("jdbc:sqlite:file:/var/a.db",
                        "s3://bucket/lake"), List.of("jdbc:postgresql://db/lake", "s3a://bucket/lake"))) {
            CatalogConfig c = TableConnectorReader.load(tableSink(folder.resolve("k.toml"),
                    plugin.formatted(kept.get(0), kept.get(1))), Map.of()).connector().orElseThrow().catalog();
            assertThat(List.of(c.uri(), c.warehouse())).as("left as written").isEqualTo(kept);
        }
        CatalogConfig rest = TableConnectorReader.load(tableSink(folder.resolve("rest.toml"), """
                catalog_type = "rest"
                uri = "http://catalog:8181"
                warehouse = "warehouse"
                """), Map.of()).connector().orElseThrow().catalog();
        assertThat(rest.warehouse()).as("a REST warehouse is a name the server knows").isEqualTo("warehouse");
    }

    @Test
    void the_self_audit_budget_is_on_by_default_zero_turns_it_off_and_a_negative_one_is_named(@TempDir Path dir)
            throws Exception {
        String warehouse = "warehouse = \"s3://lake/warehouse\"\n";
        TableConnectorConfig unset = TableConnectorReader.load(
                restSinkWithDeadLetters(dir.resolve("a.toml"), warehouse), Map.of()).connector().orElseThrow();
        assertThat(unset.selfAuditRequestsPerMinute()).isEqualTo(600);
        assertThat(SettingsPrinter.redacted(unset)).contains("self_audit_requests_per_minute=600");
        assertThat(TableConnectorReader.load(restSinkWithDeadLetters(dir.resolve("b.toml"),
                warehouse + "self_audit_requests_per_minute = 0\n"), Map.of()).connector().orElseThrow()
                .selfAuditRequestsPerMinute()).isZero();
        TableConnectorReader.Result bad = TableConnectorReader.load(restSinkWithDeadLetters(dir.resolve("c.toml"),
                warehouse + "self_audit_requests_per_minute = -1\nmax_files_per_commit = 0\n"), Map.of());
        assertThat(bad.errors()).extracting(ConfigError::path)
                .contains("plugin_config.self_audit_requests_per_minute", "plugin_config.max_files_per_commit");
    }
}
