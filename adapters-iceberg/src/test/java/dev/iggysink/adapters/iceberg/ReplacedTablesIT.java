package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The table store when the table changes under a running sink, on the REST catalog server and JDBC on SQLite with
 * data on MinIO, rows read back by Iceberg's own reader: a table dropped and created again (by someone else, or by
 * the store itself under {@code create_tables}) is loaded again and its empty map read; one dropped for good is
 * refused by name; a partition field on a column added while a file is open does not break that file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplacedTablesIT {
    private static final String GROUP = "sink";
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
            Types.NestedField.required(2, "iggy_partition_id", Types.IntegerType.get()),
            Types.NestedField.required(3, "iggy_timestamp", Types.TimestampType.withZone()),
            Types.NestedField.required(4, "user", Types.StringType.get()));
    private static final long DAY_1 = OffsetDateTime.of(2026, 12, 1, 10, 0, 0, 0, ZoneOffset.UTC).toEpochSecond()
            * 1_000_000;

    private final List<CatalogFixture> fixtures = new ArrayList<>();
    private int tableNumber;

    @BeforeAll
    void startCatalogs(@TempDir Path dir) {
        MinioWarehouse warehouse = MinioWarehouse.create("replaced");
        fixtures.add(CatalogFixture.rest(warehouse, dir));
        fixtures.add(CatalogFixture.sqlite(warehouse, dir));
    }

    @AfterAll
    void closeCatalogs() {
        fixtures.forEach(CatalogFixture::close);
    }

    Stream<CatalogFixture> catalogs() {
        return fixtures.stream();
    }

    private record Decoded(SinkRecord source) implements DecodedRecord {
        @Override
        public Optional<String> fieldText(String dottedPath) {
            return Optional.empty();
        }
    }

    private static DecodedRecord record(long offset, String json) {
        long ts = DAY_1 + offset * 1_000_000;
        return new Decoded(new SinkRecord(P0, offset, ts, ts, new MessageId(0, offset + 1), List.of(),
                json.getBytes(StandardCharsets.UTF_8)));
    }

    private static TableStore.Staged stage(TableStore store, String table, long first, long last) throws Exception {
        TableStore.RowFile file = store.newFile(table);
        for (long o = first; o <= last; o++) file.append(record(o, "{\"user\":\"u" + o + "\"}"));
        return file.stage();
    }

    private String newTable(Catalog catalog) {
        Namespace ns = Namespace.of("lake");
        if (catalog instanceof SupportsNamespaces n && !n.namespaceExists(ns)) n.createNamespace(ns);
        String name = "lake.r" + (++tableNumber);
        catalog.createTable(TableIdentifier.parse(name), SCHEMA, PartitionSpec.unpartitioned());
        return name;
    }

    private static List<Record> rows(Catalog catalog, String table) throws IOException {
        Table t = catalog.loadTable(TableIdentifier.parse(table));
        try (CloseableIterable<Record> rows = IcebergGenerics.read(t).build()) {
            List<Record> out = new ArrayList<>();
            rows.forEach(out::add);
            out.sort(Comparator.comparing(r -> (Long) r.getField("iggy_offset")));
            return out;
        }
    }

    private static List<Long> offsets(Catalog catalog, String table) throws IOException {
        return rows(catalog, table).stream().map(r -> (Long) r.getField("iggy_offset")).toList();
    }

    private static String uuid(Catalog catalog, String table) {
        return catalog.loadTable(TableIdentifier.parse(table)).uuid().toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_table_dropped_and_created_again_is_loaded_again_with_its_empty_map(CatalogFixture catalogs)
            throws Exception {
        Catalog operator = catalogs.newClient();
        String table = newTable(operator);
        String before = uuid(operator, table);
        try (IcebergTables store = new IcebergTables(catalogs.newClient(), GROUP)) {
            store.commit(table, List.of(new TableStore.Append(P0, -1, 4, List.of(stage(store, table, 0, 4)))));
            TableStore.Staged forOldTable = stage(store, table, 5, 7);

            operator.dropTable(TableIdentifier.parse(table), true);
            operator.createTable(TableIdentifier.parse(table), SCHEMA, PartitionSpec.unpartitioned());
            String after = uuid(operator, table);

            // the commit built on the old table finds it replaced: nothing of it is committed
            assertThatThrownBy(() -> store.commit(table,
                    List.of(new TableStore.Append(P0, 4, 7, List.of(forOldTable)))))
                    .isInstanceOf(StoreException.class).hasMessageContaining("was replaced")
                    .matches(e -> ((StoreException) e).retryable());
            assertThat(store.replacement(table)).contains(new TableStore.Replacement(table, before, after, 1));
            store.discard(forOldTable);
            assertThat(store.durableOffsets(table, List.of(P0))).isEmpty();

            // reading resumes from the group's offset (say 4): the new table takes rows again
            store.commit(table, List.of(new TableStore.Append(P0, 4, 7, List.of(stage(store, table, 5, 7)))));
            assertThat(store.durableOffsets(table, List.of(P0))).isEqualTo(Map.of(P0, 7L));
        }
        assertThat(offsets(operator, table)).containsExactly(5L, 6L, 7L);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_table_dropped_while_create_tables_is_on_is_created_again(CatalogFixture catalogs) throws Exception {
        Catalog operator = catalogs.newClient();
        String table = "lake.made" + (++tableNumber);
        TableTemplate template = new TableTemplate(List.of("user string required"), List.of());
        try (IcebergTables store = new IcebergTables(catalogs.newClient(), GROUP, Optional.of(template))) {
            store.open(table);
            String before = uuid(operator, table);
            store.commit(table, List.of(new TableStore.Append(P0, -1, 2, List.of(stage(store, table, 0, 2)))));

            operator.dropTable(TableIdentifier.parse(table), true);
            assertThat(store.durableOffsets(table, List.of(P0))).isEmpty();
            String after = uuid(operator, table);
            assertThat(after).isNotEqualTo(before);
            assertThat(store.replacement(table)).contains(new TableStore.Replacement(table, before, after, 1));

            store.commit(table, List.of(new TableStore.Append(P0, 2, 4, List.of(stage(store, table, 3, 4)))));
        }
        assertThat(offsets(operator, table)).containsExactly(3L, 4L);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_table_dropped_for_good_is_refused_by_name_not_retried(CatalogFixture catalogs) throws Exception {
        Catalog operator = catalogs.newClient();
        String table = newTable(operator);
        try (IcebergTables store = new IcebergTables(catalogs.newClient(), GROUP)) {
            store.commit(table, List.of(new TableStore.Append(P0, -1, 1, List.of(stage(store, table, 0, 1)))));
            TableStore.Staged staged = stage(store, table, 2, 3);
            operator.dropTable(TableIdentifier.parse(table), true);

            assertThatThrownBy(() -> store.commit(table, List.of(new TableStore.Append(P0, 1, 3, List.of(staged)))))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("table " + table + " was dropped from the catalog")
                    .hasMessageContaining("create_tables")
                    .matches(e -> !((StoreException) e).retryable());
            assertThatThrownBy(() -> store.durableOffsets(table, List.of(P0)))
                    .isInstanceOf(StoreException.class).matches(e -> !((StoreException) e).retryable());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_partition_field_on_a_column_added_while_a_file_is_open_leaves_that_file_whole(CatalogFixture catalogs)
            throws Exception {
        Catalog operator = catalogs.newClient();
        String table = newTable(operator);
        try (IcebergTables store = new IcebergTables(catalogs.newClient(), GROUP)) {
            TableStore.RowFile open = store.newFile(table);
            open.append(record(0, "{\"user\":\"a\"}"));
            open.append(record(1, "{\"user\":\"b\"}"));

            // someone adds a column and partitions the table by it while the file is open
            Table t = operator.loadTable(TableIdentifier.parse(table));
            t.updateSchema().addColumn("country", Types.StringType.get()).commit();
            t.updateSpec().addField("country").commit();
            assertThat(store.durableOffsets(table, List.of(P0))).isEmpty(); // the store reads the table again

            store.commit(table, List.of(new TableStore.Append(P0, -1, 1, List.of(open.stage()))));
            TableStore.RowFile next = store.newFile(table);
            next.append(record(2, "{\"user\":\"c\",\"country\":\"IN\"}"));
            next.append(record(3, "{\"user\":\"d\",\"country\":\"FR\"}"));
            TableStore.Staged staged = next.stage();
            assertThat(staged.dataFiles()).isEqualTo(2);
            store.commit(table, List.of(new TableStore.Append(P0, 1, 3, List.of(staged))));
        }
        assertThat(offsets(operator, table)).containsExactly(0L, 1L, 2L, 3L);
        assertThat(rows(operator, table)).extracting(r -> r.getField("country")).containsExactly(null, null, "IN",
                "FR");
        Table t = operator.loadTable(TableIdentifier.parse(table));
        try (var tasks = t.newScan().planFiles()) {
            assertThat(StreamSupport.stream(tasks.spliterator(), false).map(task -> task.file().specId()).distinct())
                    .hasSize(2);
        }
    }
}
