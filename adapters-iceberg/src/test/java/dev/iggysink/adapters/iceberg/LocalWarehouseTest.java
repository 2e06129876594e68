package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A warehouse on the local filesystem with the zero-install catalog (JDBC on SQLite): the sink creates the table,
 * writes and commits through {@link IcebergTables}, and Iceberg's own reader, on a catalog client of its own, reads
 * the rows back from the directory.
 */
class LocalWarehouseTest {
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);
    private static final long DAY_1 = OffsetDateTime.of(2026, 12, 1, 10, 0, 0, 0, ZoneOffset.UTC).toEpochSecond()
            * 1_000_000;

    @TempDir
    Path dir;

    private record Decoded(SinkRecord source) implements DecodedRecord {
        @Override
        public Optional<String> fieldText(String dottedPath) {
            return Optional.empty();
        }
    }

    static CatalogSettings sqlite(Path db, String warehouse) {
        return new CatalogSettings("jdbc", "local_" + System.nanoTime(), "jdbc:sqlite:file:" + db, warehouse,
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), false);
    }

    @ParameterizedTest(name = "warehouse = {0}")
    @ValueSource(strings = {"file-uri", "absolute-path"})
    void rows_committed_to_a_table_in_a_local_directory_are_read_back_by_iceberg(String form) throws Exception {
        Path warehouse = dir.resolve("warehouse dir");
        String location = form.equals("file-uri") ? warehouse.toUri().toString() : warehouse.toString();
        CatalogSettings settings = sqlite(dir.resolve("catalog.db"), location);
        TableTemplate template = new TableTemplate(List.of("user string required"), List.of("day(iggy_timestamp)"));
        String table = "lake.events";
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink",
                Optional.of(template))) {
            store.open(table);
            TableStore.RowFile file = store.newFile(table);
            for (long o = 0; o < 3; o++) {
                file.append(new Decoded(new SinkRecord(P0, o, DAY_1 + o * 86_400_000_000L, DAY_1,
                        new MessageId(0, o + 1), List.of(), ("{\"user\":\"u" + o + "\"}")
                        .getBytes(StandardCharsets.UTF_8))));
            }
            TableStore.Staged staged = file.stage();
            assertThat(staged.dataFiles()).as("one file per day").isEqualTo(3);
            TableStore.CommitResult result = store.commit(table,
                    List.of(new TableStore.Append(P0, -1, 2, List.of(staged))));
            assertThat(result.committed()).containsExactly(P0);
            assertThat(store.durableOffsets(table, List.of(P0))).isEqualTo(Map.of(P0, 2L));
        }

        Catalog reader = IcebergCatalogs.open(settings);
        try {
            Table t = reader.loadTable(TableIdentifier.parse(table));
            assertThat(t.location()).startsWith("file:").contains("/warehouse%20dir/lake/events");
            assertThat(t.io()).isInstanceOf(LocalFileIO.class);
            List<Record> rows = new ArrayList<>();
            try (CloseableIterable<Record> read = IcebergGenerics.read(t).build()) {
                read.forEach(r -> rows.add(r.copy()));
            }
            rows.sort(Comparator.comparing(r -> (Long) r.getField("iggy_offset")));
            assertThat(rows).extracting(r -> r.getField("user")).containsExactly("u0", "u1", "u2");
            assertThat(t.currentSnapshot().summary()).containsEntry("iggy.offsets.sink.app.events", "{\"0\":2}");
        } finally {
            ((AutoCloseable) reader).close();
        }
        try (Stream<Path> files = Files.walk(warehouse)) {
            List<String> names = files.filter(Files::isRegularFile).map(p -> warehouse.relativize(p).toString())
                    .toList();
            assertThat(names).filteredOn(n -> n.endsWith(".parquet")).hasSize(3)
                    .allMatch(n -> n.startsWith("lake/events/data/iggy_timestamp_day=2026-12-0"));
            assertThat(names).anyMatch(n -> n.startsWith("lake/events/metadata/") && n.endsWith(".metadata.json"))
                    .noneMatch(n -> n.endsWith(".crc"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"file:///data/lake", "/data/lake", "data/lake"})
    void a_jdbc_catalog_with_a_local_warehouse_uses_the_local_file_io(String warehouse) throws IOException {
        Map<String, String> p = IcebergCatalogs.properties(sqlite(dir.resolve("c.db"), warehouse));
        assertThat(p).containsEntry("io-impl", LocalFileIO.class.getName());
        assertThat(p.get("warehouse")).startsWith("file:/").endsWith("/data/lake");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"s3://bucket/lake", "s3a://bucket/lake"})
    void a_warehouse_on_s3_uses_s3_file_io(String warehouse) {
        Map<String, String> p = IcebergCatalogs.properties(sqlite(dir.resolve("c.db"), warehouse));
        assertThat(p).containsEntry("io-impl", "org.apache.iceberg.aws.s3.S3FileIO").containsEntry("warehouse",
                warehouse);
    }

    private static Decoded row(long offset) {
        return new Decoded(new SinkRecord(P0, offset, DAY_1, DAY_1, new MessageId(0, offset + 1), List.of(),
                ("{\"user\":\"u" + offset + "\"}").getBytes(StandardCharsets.UTF_8)));
    }

    @org.junit.jupiter.api.Test
    void a_redrive_commit_adds_rows_and_names_its_dead_letters_but_leaves_the_offset_map() throws Exception {
        CatalogSettings settings = sqlite(dir.resolve("catalog.db"), dir.resolve("warehouse").toString());
        TableTemplate template = new TableTemplate(List.of("user string required"), List.of());
        String table = "lake.events";
        String letter = "_dlq/app/events/00000-00000000000000000001.json";
        try (IcebergTables store = IcebergTables.open(settings, "sink", Optional.of(template), "_dlq")) {
            store.open(table);
            TableStore.RowFile file = store.newFile(table);
            file.append(row(0));
            file.append(row(2));
            store.commit(table, List.of(new TableStore.Append(P0, -1, 2, List.of(file.stage()))));
            store.writeDeadLetter(letter, "{}".getBytes(StandardCharsets.UTF_8));
            assertThat(store.readDeadLetter(letter)).hasValueSatisfying(c -> assertThat(c).isEqualTo("{}".getBytes(
                    StandardCharsets.UTF_8)));
            assertThat(store.redriven(table)).isEmpty();

            TableStore.RowFile redriven = store.newFile(table);
            redriven.append(row(1));
            store.commitRedriven(table, List.of(redriven.stage()), List.of(letter, "_dlq/app/events/x.json"));
            store.deleteDeadLetter(letter);
            store.deleteDeadLetter(letter);

            assertThat(store.readDeadLetter(letter)).isEmpty();
            assertThat(store.redriven(table)).containsExactlyInAnyOrder(letter, "_dlq/app/events/x.json");
            assertThat(store.durableOffsets(table, List.of(P0))).isEqualTo(Map.of(P0, 2L));
            assertThat(store.rowOffsets(table, List.of(P0)).orElseThrow().get(P0)).containsExactlyInAnyOrder(0L, 1L,
                    2L);
            // the sink's next commit finds the map through the redrive snapshot and moves it on
            TableStore.RowFile next = store.newFile(table);
            next.append(row(3));
            assertThat(store.commit(table, List.of(new TableStore.Append(P0, 2, 3, List.of(next.stage()))))
                    .committed()).containsExactly(P0);
            assertThat(store.durableOffsets(table, List.of(P0))).isEqualTo(Map.of(P0, 3L));
            assertThat(store.redriven(table)).contains(letter);
        }
        Catalog reader = IcebergCatalogs.open(settings);
        try {
            List<Object> users = new ArrayList<>();
            try (CloseableIterable<Record> read = IcebergGenerics.read(reader.loadTable(TableIdentifier.parse(table)))
                    .build()) {
                read.forEach(r -> users.add(r.getField("user")));
            }
            assertThat(users).containsExactlyInAnyOrder("u0", "u1", "u2", "u3");
        } finally {
            ((AutoCloseable) reader).close();
        }
    }
}
