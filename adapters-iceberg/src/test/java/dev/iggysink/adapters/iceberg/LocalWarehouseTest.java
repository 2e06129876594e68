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

    /** Rows are written into Parquet as they arrive; a staging that failed puts the same rows again. */
    @org.junit.jupiter.api.Test
    void a_staging_that_failed_puts_every_row_appended_before_it_again() throws Exception {
        CatalogSettings settings = sqlite(dir.resolve("retry.db"), dir.resolve("retry").toString());
        TableTemplate template = new TableTemplate(List.of("user string"), List.of());
        String table = "lake.retry";
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink",
                Optional.of(template))) {
            store.open(table);
            TableStore.RowFile file = users(store.newFile(table), 1000, o -> "u" + o);
            assertThat(file.count()).isEqualTo(1000);
            Path data = dir.resolve("retry").resolve("lake").resolve("retry").resolve("data");
            // a file where the data directory goes: no data file can be written under it
            Files.createDirectories(data.getParent());
            Files.writeString(data, "in the way");
            org.assertj.core.api.Assertions.assertThatThrownBy(file::stage)
                    .isInstanceOf(dev.iggysink.application.port.out.StoreException.class);
            Files.delete(data);
            TableStore.Staged staged = file.stage();
            store.commit(table, List.of(new TableStore.Append(P0, -1, 999, List.of(staged))));
        }
        Catalog reader = IcebergCatalogs.open(settings);
        try {
            List<Long> offsets = new ArrayList<>();
            try (CloseableIterable<Record> read = IcebergGenerics.read(reader.loadTable(TableIdentifier.parse(table)))
                    .build()) {
                read.forEach(r -> offsets.add((Long) r.getField("iggy_offset")));
            }
            offsets.sort(Comparator.naturalOrder());
            assertThat(offsets).hasSize(1000).doesNotHaveDuplicates();
            assertThat(offsets.get(999)).isEqualTo(999L);
        } finally {
            ((AutoCloseable) reader).close();
        }
    }

    /**
     * A row is made from the payload as the connector file's transforms left it (what the codec decoded), not from
     * the bytes Iggy delivered: a field the transforms deleted is not in the table, one they added is.
     */
    @org.junit.jupiter.api.Test
    void a_row_is_made_from_the_transformed_payload_not_the_delivered_bytes() throws Exception {
        CatalogSettings settings = sqlite(dir.resolve("transformed.db"), dir.resolve("transformed").toString());
        TableTemplate template = new TableTemplate(List.of("user string", "secret string"), List.of());
        String table = "lake.transformed";
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink",
                Optional.of(template))) {
            store.open(table);
            TableStore.RowFile file = store.newFile(table);
            SinkRecord delivered = new SinkRecord(P0, 0, DAY_1, DAY_1, new MessageId(0, 1), List.of(),
                    "{\"user\":\"u0\",\"secret\":\"hunter2\"}".getBytes(StandardCharsets.UTF_8));
            file.append(new DecodedRecord() {
                @Override
                public SinkRecord source() {
                    return delivered;
                }

                @Override
                public Optional<String> fieldText(String dottedPath) {
                    return Optional.empty();
                }

                @Override
                public byte[] json() {
                    return "{\"user\":\"U0\"}".getBytes(StandardCharsets.UTF_8);
                }
            });
            store.commit(table, List.of(new TableStore.Append(P0, -1, 0, List.of(file.stage()))));
        }
        Catalog reader = IcebergCatalogs.open(settings);
        try (CloseableIterable<Record> read = IcebergGenerics.read(reader.loadTable(TableIdentifier.parse(table)))
                .build()) {
            List<Record> rows = new ArrayList<>();
            read.forEach(rows::add);
            assertThat(rows).hasSize(1);
            assertThat(rows.get(0).getField("user")).isEqualTo("U0");
            assertThat(rows.get(0).getField("secret")).as("a field the transforms deleted").isNull();
        } finally {
            ((AutoCloseable) reader).close();
        }
    }

    /** Appends {@code n} records of offsets 0.. whose payload names {@code user.apply(offset)}. */
    private static TableStore.RowFile users(TableStore.RowFile file, int n,
                                            java.util.function.LongFunction<String> user) throws Exception {
        for (long o = 0; o < n; o++) {
            file.append(new Decoded(new SinkRecord(P0, o, DAY_1, DAY_1, new MessageId(0, o + 1), List.of(),
                    ("{\"user\":\"" + user.apply(o) + "\"}").getBytes(StandardCharsets.UTF_8))));
        }
        return file;
    }

    /** A writer the table's properties refuse fails the staging, as writing the whole file at once did. */
    @org.junit.jupiter.api.Test
    void a_table_property_the_parquet_writer_refuses_fails_the_staging_for_good_naming_it() throws Exception {
        CatalogSettings settings = sqlite(dir.resolve("refused.db"), dir.resolve("refused").toString());
        Catalog catalog = IcebergCatalogs.open(settings);
        try {
            catalog.createTable(TableIdentifier.parse("lake.refused"), new org.apache.iceberg.Schema(
                    org.apache.iceberg.types.Types.NestedField.required(1, "iggy_offset",
                            org.apache.iceberg.types.Types.LongType.get())), org.apache.iceberg.PartitionSpec
                    .unpartitioned(), Map.of("write.parquet.page-size-bytes", "0"));
        } finally {
            ((AutoCloseable) catalog).close();
        }
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink")) {
            TableStore.RowFile file = store.newFile("lake.refused");
            file.append(new Decoded(new SinkRecord(P0, 0, DAY_1, DAY_1, new MessageId(0, 1), List.of(),
                    "{}".getBytes(StandardCharsets.UTF_8))));
            assertThat(file.count()).isEqualTo(1);
            org.assertj.core.api.Assertions.assertThatThrownBy(file::stage)
                    .isInstanceOfSatisfying(dev.iggysink.application.port.out.StoreException.class,
                            e -> assertThat(e.retryable()).isFalse())
                    .hasMessageContaining("writing a data file of lake.refused")
                    .hasMessageContaining("Page size must be > 0");
        }
    }

    /** The write properties measured for the sink's own tables (docs/performance.md), and the files they make. */
    @org.junit.jupiter.api.Test
    void a_table_the_sink_creates_is_written_without_dictionaries_in_zstd_level_1() throws Exception {
        CatalogSettings settings = sqlite(dir.resolve("props.db"), dir.resolve("props").toString());
        TableTemplate template = new TableTemplate(List.of("user string"), List.of());
        String table = "lake.plain";
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink",
                Optional.of(template))) {
            store.open(table);
            TableStore.RowFile file = users(store.newFile(table), 100, o -> "the same user");
            store.commit(table, List.of(new TableStore.Append(P0, -1, 99, List.of(file.stage()))));
        }
        Catalog reader = IcebergCatalogs.open(settings);
        try {
            Table t = reader.loadTable(TableIdentifier.parse(table));
            assertThat(t.properties()).containsEntry("parquet.enable.dictionary", "false")
                    .containsEntry("write.parquet.compression-level", "1");
            List<String> chunks = new ArrayList<>();
            List<Path> dataFiles;
            try (Stream<Path> files = Files.walk(dir.resolve("props"))) {
                dataFiles = files.filter(f -> f.toString().endsWith(".parquet")).toList();
            }
            assertThat(dataFiles).hasSize(1);
            for (Path f : dataFiles) {
                try (org.apache.parquet.hadoop.ParquetFileReader parquet = org.apache.parquet.hadoop.ParquetFileReader
                        .open(new org.apache.parquet.io.LocalInputFile(f))) {
                    for (var block : parquet.getFooter().getBlocks()) {
                        for (var column : block.getColumns()) {
                            chunks.add(column.getPath().toDotString() + " " + column.getCodec()
                                    + (column.hasDictionaryPage() ? " dictionary" : ""));
                        }
                    }
                }
            }
            assertThat(chunks).contains("user ZSTD", "iggy_offset ZSTD", "iggy_partition_id ZSTD")
                    .noneMatch(c -> c.endsWith("dictionary"));
        } finally {
            ((AutoCloseable) reader).close();
        }
    }

    /**
     * Pages of 128 KiB: their column buffers stay small enough for the young generation, where Iceberg's default
     * 1 MiB pages filled the old one (docs/performance.md).
     */
    @org.junit.jupiter.api.Test
    void a_table_the_sink_creates_is_written_in_pages_of_128_kib() throws Exception {
        CatalogSettings settings = sqlite(dir.resolve("pages.db"), dir.resolve("pages").toString());
        TableTemplate template = new TableTemplate(List.of("user string"), List.of());
        String table = "lake.pages";
        String kilobyte = "x".repeat(1024);
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink",
                Optional.of(template))) {
            store.open(table);
            TableStore.RowFile file = users(store.newFile(table), 1024, o -> o + kilobyte);
            store.commit(table, List.of(new TableStore.Append(P0, -1, 1023, List.of(file.stage()))));
        }
        Catalog reader = IcebergCatalogs.open(settings);
        try {
            Table t = reader.loadTable(TableIdentifier.parse(table));
            assertThat(t.properties()).containsEntry("write.parquet.page-size-bytes", "131072");
            List<Path> dataFiles;
            try (Stream<Path> files = Files.walk(dir.resolve("pages"))) {
                dataFiles = files.filter(f -> f.toString().endsWith(".parquet")).toList();
            }
            assertThat(dataFiles).hasSize(1);
            try (org.apache.parquet.hadoop.ParquetFileReader parquet = org.apache.parquet.hadoop.ParquetFileReader
                    .open(new org.apache.parquet.io.LocalInputFile(dataFiles.get(0)))) {
                var block = parquet.getFooter().getBlocks().get(0);
                var user = block.getColumns().stream()
                        .filter(c -> c.getPath().toDotString().equals("user")).findFirst().orElseThrow();
                // A MiB and more of values. Parquet checks a page's size after 100 rows and then as it estimates,
                // so a page can outgrow its limit: two pages of over 500 KiB in Iceberg's 1 MiB, about 170 KiB in 128.
                assertThat(user.getTotalUncompressedSize()).isGreaterThan(1024L * 1024);
                assertThat(user.getTotalUncompressedSize() / parquet.readOffsetIndex(user).getPageCount())
                        .as("average uncompressed page size").isLessThan(256L * 1024);
            }
        } finally {
            ((AutoCloseable) reader).close();
        }
    }

    /**
     * Rows in runs and alternating between two days, over two files of one writer: each data file holds exactly
     * the rows of its own day, read back from that file by Iceberg's Parquet reader.
     */
    @org.junit.jupiter.api.Test
    void rows_alternating_between_partitions_land_in_their_own_partitions_files() throws Exception {
        CatalogSettings settings = sqlite(dir.resolve("days.db"), dir.resolve("days").toString());
        TableTemplate template = new TableTemplate(List.of("user string required"), List.of("day(iggy_timestamp)"));
        String table = "lake.days";
        // day 1 or day 2 per offset: runs of one, two and three, then strict alternation
        int[] days = {1, 1, 2, 1, 2, 2, 2, 1, 1, 2, 1, 2, 1, 2, 2, 1};
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink",
                Optional.of(template))) {
            store.open(table);
            List<TableStore.Staged> staged = new ArrayList<>();
            TableStore.RowFile file = store.newFile(table);
            for (int o = 0; o < days.length; o++) {
                if (o == days.length / 2) {
                    staged.add(file.stage());
                    file = store.newFile(table);
                }
                file.append(new Decoded(new SinkRecord(P0, o, DAY_1 + (days[o] - 1) * 86_400_000_000L + o, DAY_1,
                        new MessageId(0, o + 1), List.of(), ("{\"user\":\"u" + o + "\"}")
                        .getBytes(StandardCharsets.UTF_8))));
            }
            staged.add(file.stage());
            assertThat(staged).extracting(TableStore.Staged::dataFiles).containsExactly(2, 2);
            store.commit(table, List.of(new TableStore.Append(P0, -1, days.length - 1, staged)));
        }
        Catalog reader = IcebergCatalogs.open(settings);
        try {
            Table t = reader.loadTable(TableIdentifier.parse(table));
            Map<Integer, List<Long>> byDay = new java.util.TreeMap<>();
            try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = t.newScan().planFiles()) {
                for (org.apache.iceberg.FileScanTask task : tasks) {
                    int day = task.file().partition().get(0, Integer.class)
                            - (int) java.time.LocalDate.of(2026, 12, 1).toEpochDay() + 1;
                    try (CloseableIterable<Record> rows = org.apache.iceberg.parquet.Parquet
                            .read(t.io().newInputFile(task.file().location())).project(t.schema())
                            .createReaderFunc(fs -> org.apache.iceberg.data.parquet.GenericParquetReaders
                                    .buildReader(t.schema(), fs))
                            .build()) {
                        for (Record r : rows) {
                            long o = (Long) r.getField("iggy_offset");
                            assertThat(days[(int) o]).as("the day of offset %d in a file of day %d", o, day)
                                    .isEqualTo(day);
                            assertThat(r.getField("user")).isEqualTo("u" + o);
                            byDay.computeIfAbsent(day, d -> new ArrayList<>()).add(o);
                        }
                    }
                }
            }
            List<Long> day1 = new ArrayList<>();
            List<Long> day2 = new ArrayList<>();
            for (int o = 0; o < days.length; o++) (days[o] == 1 ? day1 : day2).add((long) o);
            byDay.values().forEach(l -> l.sort(Comparator.naturalOrder()));
            assertThat(byDay).isEqualTo(Map.of(1, day1, 2, day2));
        } finally {
            ((AutoCloseable) reader).close();
        }
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
        assertThat(p).containsEntry("io-impl", StoreFileIO.class.getName()).containsEntry("warehouse",
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
