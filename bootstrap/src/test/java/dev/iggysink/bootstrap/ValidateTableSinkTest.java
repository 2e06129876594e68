package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} of a table sink asks the catalog: here the zero-install one, JDBC on an SQLite file with its
 * warehouse in a local directory. What cannot work is refused with every problem at once and exit code 2; a catalog
 * that cannot be opened exits 3; {@code --offline} checks the file alone; no table is changed.
 */
class ValidateTableSinkTest {
    @TempDir
    Path dir;
    private Catalog catalog;

    @BeforeEach
    void tables() {
        catalog = TableSinkFiles.openSqlite(dir.resolve("c.db"), dir.resolve("warehouse"));
        catalog.createTable(TableIdentifier.parse("lake.good"), new Schema(
                Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
                Types.NestedField.optional(2, "user", Types.StringType.get())), PartitionSpec.unpartitioned());
        catalog.createTable(TableIdentifier.parse("lake.bad"), new Schema(
                Types.NestedField.required(1, "iggy_timestamp", Types.StringType.get()),
                Types.NestedField.required(2, "tags", Types.MapType.ofRequired(3, 4, Types.LongType.get(),
                        Types.StringType.get()))), PartitionSpec.unpartitioned());
    }

    @AfterEach
    void close() throws Exception {
        ((AutoCloseable) catalog).close();
    }

    private Path config(String tables, String uriFile) throws IOException {
        Path file = dir.resolve("sink-" + System.nanoTime() + ".toml");
        Files.writeString(file, sink(tables, uriFile), StandardCharsets.UTF_8);
        return file;
    }

    private String sink(String tables, String uriFile) {
        return TableSinkFiles.text(TableSinkFiles.stream("app", List.of("events"), "sink"), tables,
                TableSinkFiles.sqliteCatalog(uriFile, dir.resolve("warehouse")), "");
    }

    @Test
    void a_table_the_sink_can_write_validates_and_is_left_unchanged() throws IOException {
        CliRun o = CliRun.execute("validate", "--config", config("\"lake.good\"", dir.resolve("c.db").toString())
                .toString());

        assertThat(o.code()).as(o.err()).isZero();
        assertThat(o.out()).contains("OK: Iceberg table sink lake").doesNotContain("--offline");
        var table = catalog.loadTable(TableIdentifier.parse("lake.good"));
        table.refresh();
        assertThat(table.snapshots()).as("no snapshot written").isEmpty();
        try (var files = Files.walk(dir.resolve("warehouse"))) {
            assertThat(files.map(Path::toString)).as("the probe file is gone").noneMatch(f -> f.contains("probe"));
        }
    }

    @Test
    void what_cannot_work_is_refused_with_every_problem_at_once() throws IOException {
        Path file = config("\"lake.bad\", \"lake.missing\", \"lake.good\"", dir.resolve("c.db").toString());

        CliRun o = CliRun.execute("validate", "--config", file.toString());

        assertThat(o.code()).as(o.err()).isEqualTo(2);
        assertThat(o.err()).contains(file + ": 3 error(s):",
                "  plugin_config.tables: table lake.bad: column 'iggy_timestamp' holds Iggy metadata but is of type"
                        + " string",
                "  plugin_config.tables: table lake.bad: column tags is of type map<long, string>",
                "  plugin_config.tables: table lake.missing does not exist in the catalog at jdbc:sqlite:file:")
                .doesNotContain("lake.good");
        assertThat(o.out()).doesNotContain("OK");

        CliRun offline = CliRun.execute("validate", "--offline", "--config", file.toString());
        assertThat(offline.code()).as(offline.err()).isZero();
        assertThat(offline.out()).contains("OK: Iceberg table sink lake", "(the catalog was not asked: --offline)");
    }

    /** A runtime config whose connector directory holds an S3 sink file and the table sink file. */
    private Path runtimeConfig(String tables, String s3Extra) throws IOException {
        Path conf = dir.resolve("runtime-" + System.nanoTime());
        Files.createDirectories(conf.resolve("connectors"));
        Files.writeString(conf.resolve("config.toml"), """
                [iggy]
                address = "iggy-host:8090"

                [connectors]
                config_type = "local"
                config_dir = "connectors"
                """, StandardCharsets.UTF_8);
        Files.writeString(conf.resolve("connectors/s3.toml"), """
                type = "sink"
                key = "archive"
                enabled = true
                version = 0
                name = "S3 sink"
                path = "target/release/libiggy_connector_s3_sink"

                [[streams]]
                stream = "app"
                topics = ["events"]
                schema = "json"

                [plugin_config]
                bucket = "archive"
                region = "us-east-1"
                """ + s3Extra, StandardCharsets.UTF_8);
        Files.writeString(conf.resolve("connectors/lake.toml"), sink(tables, dir.resolve("c.db").toString()),
                StandardCharsets.UTF_8);
        return conf.resolve("config.toml");
    }

    @Test
    void a_runtime_config_checks_the_catalog_of_every_table_sink_in_its_connector_directory() throws IOException {
        Path file = runtimeConfig("\"lake.bad\", \"lake.missing\"", "");

        CliRun o = CliRun.execute("validate", "--config", file.toString());

        assertThat(o.code()).as(o.err()).isEqualTo(2);
        assertThat(o.err()).contains(file + ": 3 error(s):",
                "  sink lake: plugin_config.tables: table lake.bad: column 'iggy_timestamp' holds Iggy metadata but"
                        + " is of type string",
                "  sink lake: plugin_config.tables: table lake.missing does not exist in the catalog at"
                        + " jdbc:sqlite:file:");
        assertThat(o.out()).doesNotContain("OK");

        CliRun offline = CliRun.execute("validate", "--offline", "--config", file.toString());
        assertThat(offline.code()).as(offline.err()).isZero();
        assertThat(offline.out()).contains("OK: 2 sink(s) in " + file, "  archive (S3 sink) -> ",
                "  lake (Iceberg sink) -> Iceberg table sink, jdbc catalog jdbc:sqlite:file:",
                "(the catalog was not asked: --offline)");

        CliRun good = CliRun.execute("validate", "--config", runtimeConfig("\"lake.good\"", "").toString());
        assertThat(good.code()).as(good.err()).isZero();
        assertThat(good.out()).contains("  lake (Iceberg sink) -> Iceberg table sink").doesNotContain("--offline");
    }

    @Test
    void a_runtime_config_lists_the_file_errors_of_table_and_s3_sinks_at_once() throws IOException {
        Path file = runtimeConfig("\"good\"", "max_file_size = \"big\"\n");

        CliRun o = CliRun.execute("validate", "--offline", "--config", file.toString());

        assertThat(o.code()).as(o.err()).isEqualTo(2);
        assertThat(o.err()).contains(file + ": 2 error(s):",
                "  [lake.toml] plugin_config.tables[0]: \"good\" is not <namespace>.<table>",
                "  [s3.toml] plugin_config.max_file_size: \"big\" is not a size");
    }

    @Test
    void a_catalog_that_cannot_be_opened_exits_3_naming_the_uri() throws IOException {
        String nowhere = dir.resolve("no-such-dir").resolve("c.db").toString();

        CliRun o = CliRun.execute("validate", "--config", config("\"lake.good\"", nowhere).toString());

        assertThat(o.code()).as(o.err()).isEqualTo(3);
        assertThat(o.err()).contains("  plugin_config.uri: the jdbc catalog at jdbc:sqlite:file:" + nowhere
                + " cannot be used: ");
    }

    @Test
    void validate_leaves_no_file_behind_not_even_the_sqlite_file_or_warehouse_folders_it_opened(@TempDir Path fresh)
            throws IOException {
        Path file = fresh.resolve("sink.toml");
        Files.writeString(file, TableSinkFiles.text(TableSinkFiles.stream("app", List.of("events"), "sink"),
                "\"lake.new\"", """
                        catalog_type = "jdbc"
                        uri = "jdbc:sqlite:lake.db"
                        warehouse = "data/warehouse"
                        create_tables = true
                        table_columns = ["user string"]
                        """, ""), StandardCharsets.UTF_8);

        CliRun o = CliRun.execute("validate", "--config", file.toString());

        assertThat(o.code()).as(o.err()).isZero();
        try (var files = Files.walk(fresh)) {
            assertThat(files.map(f -> fresh.relativize(f).toString())).containsExactlyInAnyOrder("", "sink.toml");
        }
    }

    @Test
    void print_shows_the_effective_configuration_as_short_lines_in_the_files_terms_secrets_masked() throws IOException {
        Path file = dir.resolve("printed.toml");
        Files.writeString(file, TableSinkFiles.text(TableSinkFiles.stream("app", List.of("events"), "sink"),
                "\"lake.good\"", """
                        catalog_type = "jdbc"
                        uri = "jdbc:postgresql://db:5432/lake"
                        warehouse = "s3://lake/warehouse"
                        catalog_user = "iceberg"
                        catalog_password = "pg-secret-1"
                        store_url = "http://minio:9000"
                        store_access_key_id = "minio"
                        store_secret_access_key = "store-secret-2"
                        commit_interval = "10s"
                        """, ""), StandardCharsets.UTF_8);

        CliRun o = CliRun.execute("validate", "--offline", "--print", "--config", file.toString());

        assertThat(o.code()).as(o.err()).isZero();
        assertThat(o.out()).contains("  catalog: catalog_type=jdbc uri=jdbc:postgresql://db:5432/lake"
                        + " warehouse=s3://lake/warehouse catalog_name=iggy")
                .contains("catalog_user=iceberg catalog_password=****")
                .contains("store_access_key_id=minio store_secret_access_key=****")
                .contains("commit_interval=10s")
                .doesNotContain("pg-secret-1").doesNotContain("store-secret-2");
        assertThat(o.out().lines()).allSatisfy(l -> assertThat(l.length()).as(l).isLessThan(220));
    }

    /** As run's start (RunTableSinkStartTest): a store that does not answer is a service down, not a bad config. */
    @Test
    @org.junit.jupiter.api.Timeout(120)
    void a_warehouse_store_that_does_not_answer_exits_3_not_2() throws IOException {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path file = dir.resolve("store-down.toml");
        Files.writeString(file, TableSinkFiles.text(TableSinkFiles.stream("app", List.of("events"), "sink"),
                "\"lake.good\"", TableSinkFiles.sqliteCatalog(dir.resolve("c.db"), "s3://lake/warehouse")
                        + "store_url = \"http://127.0.0.1:" + port + "\"\nstore_access_key_id = \"k\"\n"
                        + "store_secret_access_key = \"s\"\nstore_region = \"us-east-1\"\n", ""),
                StandardCharsets.UTF_8);

        CliRun o = CliRun.execute("validate", "--config", file.toString());

        assertThat(o.code()).as(o.err()).isEqualTo(3);
        assertThat(o.err()).contains("plugin_config.warehouse: cannot write under s3://lake/warehouse");
    }

    @Test
    void a_partition_transform_the_column_does_not_take_is_reported_with_the_files_other_errors() throws IOException {
        Path file = dir.resolve("spec.toml");
        Files.writeString(file, TableSinkFiles.text(TableSinkFiles.stream("app", List.of("events"), "sink"),
                "\"lake.new\"", TableSinkFiles.sqliteCatalog(dir.resolve("c.db"), dir.resolve("warehouse")) + """
                        commit_interval = "0s"
                        create_tables = true
                        table_columns = ["ts_millis long"]
                        partition_spec = ["day(ts_millis)"]
                        """, ""), StandardCharsets.UTF_8);

        for (String command : List.of("validate", "run")) {
            CliRun o = CliRun.execute(command, "--config", file.toString());

            assertThat(o.code()).as(o.err()).isEqualTo(2);
            assertThat(o.err()).as(command).contains(": 2 error(s):").contains("plugin_config.commit_interval")
                    .contains("plugin_config.partition_spec[0]: day(ts_millis): column ts_millis is long")
                    .doesNotContain("ValidationException").doesNotContain("\tat ");
        }
    }
}
