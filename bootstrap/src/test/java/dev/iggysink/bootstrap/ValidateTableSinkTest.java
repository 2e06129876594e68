package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.iceberg.CatalogSettings;
import dev.iggysink.adapters.iceberg.IcebergCatalogs;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code validate} of a table sink asks the catalog: here the zero-install one, JDBC on an SQLite file with its
 * warehouse in a local directory. What cannot work is refused with every problem at once and exit code 2; a catalog
 * that cannot be opened exits 3; {@code --offline} checks the file alone; no table is changed.
 */
class ValidateTableSinkTest {
    private static final String SINK = """
            type = "sink"
            key = "lake"
            enabled = true
            version = 0
            name = "Iceberg sink"
            path = "target/release/libiggy_connector_iceberg_sink"

            [[streams]]
            stream = "app"
            topics = ["events"]
            schema = "json"
            consumer_group = "sink"

            [plugin_config]
            tables = [%s]
            catalog_type = "jdbc"
            uri = 'jdbc:sqlite:file:%s'
            warehouse = '%s'
            """;

    @TempDir
    Path dir;
    private Catalog catalog;

    private record Outcome(int code, String out, String err) {
    }

    @BeforeEach
    void tables() {
        catalog = IcebergCatalogs.open(new CatalogSettings("jdbc", "iggy", "jdbc:sqlite:file:" + dir.resolve("c.db"),
                dir.resolve("warehouse").toString(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), false));
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("lake"));
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
        Files.writeString(file, SINK.formatted(tables, uriFile, dir.resolve("warehouse")), StandardCharsets.UTF_8);
        return file;
    }

    private static Outcome validate(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Outcome(code, out.toString(), err.toString());
    }

    @Test
    void a_table_the_sink_can_write_validates_and_is_left_unchanged() throws IOException {
        Outcome o = validate("validate", "--config", config("\"lake.good\"", dir.resolve("c.db").toString())
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

        Outcome o = validate("validate", "--config", file.toString());

        assertThat(o.code()).as(o.err()).isEqualTo(2);
        assertThat(o.err()).contains(file + ": 3 error(s):",
                "  plugin_config.tables: table lake.bad: column 'iggy_timestamp' holds Iggy metadata but is of type"
                        + " string",
                "  plugin_config.tables: table lake.bad: column tags is of type map<long, string>",
                "  plugin_config.tables: table lake.missing does not exist in the catalog at jdbc:sqlite:file:")
                .doesNotContain("lake.good");
        assertThat(o.out()).doesNotContain("OK");

        Outcome offline = validate("validate", "--offline", "--config", file.toString());
        assertThat(offline.code()).as(offline.err()).isZero();
        assertThat(offline.out()).contains("OK: Iceberg table sink lake", "(the catalog was not asked: --offline)");
    }

    @Test
    void a_catalog_that_cannot_be_opened_exits_3_naming_the_uri() throws IOException {
        String nowhere = dir.resolve("no-such-dir").resolve("c.db").toString();

        Outcome o = validate("validate", "--config", config("\"lake.good\"", nowhere).toString());

        assertThat(o.code()).as(o.err()).isEqualTo(3);
        assertThat(o.err()).contains("  plugin_config.uri: the jdbc catalog at jdbc:sqlite:file:" + nowhere
                + " cannot be used: ");
    }
}
