package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.iggysink.application.port.out.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WarehouseFilesTest {
    @TempDir
    Path dir;

    private static CatalogSettings catalog(String type, String uri, String warehouse) {
        return new CatalogSettings(type, "wf_" + System.nanoTime(), uri, warehouse, Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), false);
    }

    @Test
    void dead_letters_of_a_local_warehouse_are_files_below_it_and_listed_by_key() throws Exception {
        Path warehouse = dir.resolve("wh");
        WarehouseFiles files = WarehouseFiles.of(catalog("jdbc", "jdbc:sqlite:file:" + dir.resolve("c.db"),
                warehouse.toString())).orElseThrow();
        try (files) {
            String key = "_dlq/app/events/00001-00000000000000000005.json";
            files.write(key, "{\"a\":1}".getBytes(StandardCharsets.UTF_8));
            files.write(key, "{\"a\":2}".getBytes(StandardCharsets.UTF_8));
            files.write("_dlq/app/other/00001-00000000000000000006.json", "{}".getBytes(StandardCharsets.UTF_8));
            assertThat(Files.readString(warehouse.resolve(key))).isEqualTo("{\"a\":2}");
            assertThat(files.keys("_dlq/app/events/")).containsExactly(key);
            assertThat(files.keys("_dlq/app/none/")).isEmpty();
        }
    }

    @Test
    void a_rest_warehouse_given_by_name_has_no_place_for_dead_letters_and_says_so() {
        CatalogSettings rest = catalog("rest", "http://127.0.0.1:1/", "warehouse");
        assertThat(WarehouseFiles.of(rest)).isEmpty();
        assertThat(WarehouseFiles.of(catalog("rest", "http://127.0.0.1:1/", "s3://lake/wh"))).isPresent();
        try (IcebergTables store = new IcebergTables(null, "g", Optional.empty(), Optional.empty())) {
            StoreException e = catchThrowableOfType(StoreException.class,
                    () -> store.writeDeadLetter("_dlq/a/b/00000-00000000000000000000.json", new byte[0]));
            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).contains("warehouse is a name, not a location");
        }
    }

    @Test
    void a_dlq_location_holds_the_dead_letters_of_a_named_rest_warehouse_without_the_dlq_prefix() throws Exception {
        Path letters = dir.resolve("letters");
        CatalogSettings rest = new CatalogSettings("rest", "r", "http://127.0.0.1:1/", "warehouse", Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), false, Optional.of("file:" + letters));
        try (WarehouseFiles files = WarehouseFiles.of(rest, "_dlq").orElseThrow()) {
            String key = "_dlq/app/events/00001-00000000000000000005.json";
            assertThat(files.write(key, "{\"a\":1}".getBytes(StandardCharsets.UTF_8)))
                    .as("where the log line and /status say it is").startsWith("file:/").doesNotContain("_dlq")
                    .endsWith("/letters/app/events/00001-00000000000000000005.json");
            assertThat(Files.readString(letters.resolve("app/events/00001-00000000000000000005.json")))
                    .isEqualTo("{\"a\":1}");
            assertThat(files.keys("_dlq/app/events/")).containsExactly(key);
            assertThat(files.keys("_dlq/app/none/")).isEmpty();
        }
        CatalogSettings absolute = new CatalogSettings("rest", "r", "http://127.0.0.1:1/", "warehouse",
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), false,
                Optional.of(letters.toString()));
        try (WarehouseFiles files = WarehouseFiles.of(absolute, "_dlq").orElseThrow()) {
            assertThat(files.keys("_dlq/app/")).containsExactly("_dlq/app/events/00001-00000000000000000005.json");
        }
    }
}
