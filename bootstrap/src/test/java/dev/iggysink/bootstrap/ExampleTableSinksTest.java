package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The example table-sink files the tarball ships (and docs/tables.md shows) pass {@code validate}: the file alone for
 * both, and the SQLite one against the real catalog it names, from a copy in a fresh folder, leaving nothing behind.
 */
class ExampleTableSinksTest {
    /** The tarball's config folder; surefire runs in the module's directory. */
    private static final Path CONFIG = Path.of("..", "distribution", "src", "dist", "config");
    private static final Path TABLES_MD = Path.of("..", "docs", "tables.md");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"iceberg_sink.sqlite.toml", "iceberg_sink.rest.toml"})
    void the_shipped_example_validates_without_errors_or_warnings(String name) {
        CliRun o = CliRun.execute("validate", "--offline", "--config", CONFIG.resolve(name).toString());

        assertThat(o.code()).as(o.err()).isZero();
        assertThat(o.err()).isEmpty();
        assertThat(o.out()).startsWith("OK: Iceberg table sink lake");
    }

    @Test
    void the_sqlite_example_validates_against_its_catalog_and_leaves_its_folder_as_it_was(@TempDir Path dir)
            throws IOException {
        Path file = Files.copy(CONFIG.resolve("iceberg_sink.sqlite.toml"), dir.resolve("iceberg_sink.sqlite.toml"));

        CliRun o = CliRun.execute("validate", "--config", file.toString());

        assertThat(o.code()).as(o.err()).isZero();
        assertThat(o.err()).isEmpty();
        assertThat(o.out()).contains("jdbc catalog jdbc:sqlite:" + dir.resolve("catalog.db"))
                .doesNotContain("--offline");
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactly("iceberg_sink.sqlite.toml");
        }
    }

    @Test
    void docs_tables_md_shows_the_shipped_examples_as_they_are() throws IOException {
        String doc = Files.readString(TABLES_MD, StandardCharsets.UTF_8);
        List<String> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("```toml\n(.*?)```", Pattern.DOTALL).matcher(doc);
        while (m.find()) blocks.add(m.group(1));
        for (String name : List.of("iceberg_sink.sqlite.toml", "iceberg_sink.rest.toml")) {
            assertThat(blocks).as("a toml block of docs/tables.md is %s", name)
                    .contains(Files.readString(CONFIG.resolve(name), StandardCharsets.UTF_8));
        }
    }
}
