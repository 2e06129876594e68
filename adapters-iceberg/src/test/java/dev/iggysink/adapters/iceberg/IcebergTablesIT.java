package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.apache.iceberg.DataFile;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The table store against the real catalogs (REST server, JDBC on SQLite, JDBC on PostgreSQL) with data on MinIO:
 * rows from JSON payloads land as Parquet that Iceberg's own reader gives back, the offset map travels in the
 * snapshot summaries and survives other writers, and the commit check holds when two members race on a real catalog.
 */
class IcebergTablesIT extends AllCatalogs {
    private static final String GROUP = "sink";
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);
    private static final PartitionRef P1 = new PartitionRef("app", "events", 1);
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
            Types.NestedField.required(2, "iggy_timestamp", Types.TimestampType.withZone()),
            Types.NestedField.required(3, "user", Types.StringType.get()),
            Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)),
            Types.NestedField.optional(5, "tags", Types.ListType.ofOptional(6, Types.StringType.get())),
            Types.NestedField.optional(7, "address", Types.StructType.of(
                    Types.NestedField.optional(8, "city", Types.StringType.get()))));
    private static final long DAY_1 = OffsetDateTime.of(2026, 12, 1, 10, 0, 0, 0, ZoneOffset.UTC).toEpochSecond()
            * 1_000_000;
    private static final long DAY = 86_400_000_000L;

    private int tableNumber;

    @Override
    String purpose() {
        return "tables";
    }

    private record Decoded(SinkRecord source) implements DecodedRecord {
        @Override
        public Optional<String> fieldText(String dottedPath) {
            return Optional.empty();
        }
    }

    static DecodedRecord record(PartitionRef p, long offset, long timestampMicros, String json) {
        return new Decoded(new SinkRecord(p, offset, timestampMicros, timestampMicros, new MessageId(0, offset + 1),
                List.of(), json.getBytes(StandardCharsets.UTF_8)));
    }

    private String newTable(Catalog catalog, PartitionSpec spec) {
        Namespace ns = Namespace.of("lake");
        if (catalog instanceof SupportsNamespaces n && !n.namespaceExists(ns)) n.createNamespace(ns);
        String name = "lake.t" + (++tableNumber);
        catalog.createTable(TableIdentifier.parse(name), SCHEMA, spec);
        return name;
    }

    static TableStore.Staged stage(TableStore store, String table, PartitionRef p, long first, long last)
            throws Exception {
        TableStore.RowFile file = store.newFile(table);
        for (long o = first; o <= last; o++) {
            file.append(record(p, o, DAY_1 + o * 1_000_000, "{\"user\":\"u" + o + "\",\"amount\":" + o + ".5}"));
        }
        return file.stage();
    }

    static List<Record> rows(Catalog catalog, String table) throws IOException {
        Table t = catalog.loadTable(TableIdentifier.parse(table));
        try (CloseableIterable<Record> rows = IcebergGenerics.read(t).build()) {
            List<Record> out = new ArrayList<>();
            rows.forEach(out::add);
            out.sort(Comparator.comparing(r -> (Long) r.getField("iggy_offset")));
            return out;
        }
    }

    static List<Long> offsets(Catalog catalog, String table) throws IOException {
        return rows(catalog, table).stream().map(r -> (Long) r.getField("iggy_offset")).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void json_rows_land_in_the_table_with_the_offset_map_read_back_by_iceberg(CatalogFixture catalogs)
            throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = newTable(catalog, PartitionSpec.unpartitioned());
        try (IcebergTables store = new IcebergTables(catalogs.newClient(), GROUP)) {
            store.open(table);
            TableStore.RowFile file = store.newFile(table);
            file.append(record(P0, 0, DAY_1, "{\"user\":\"ann\",\"amount\":12.5,\"tags\":[\"a\",\"b\"],"
                    + "\"address\":{\"city\":\"Hyderabad\"},\"ignored\":true}"));
            file.append(record(P0, 1, DAY_1 + 1, "{\"user\":\"bob\"}"));
            TableStore.Staged staged = file.stage();
            assertThat(staged.dataFiles()).isEqualTo(1);
            assertThat(store.durableOffsets(table, List.of(P0))).isEmpty();

            TableStore.CommitResult result = store.commit(table,
                    List.of(new TableStore.Append(P0, -1, 1, List.of(staged))));
            assertThat(result.committed()).containsExactly(P0);
            assertThat(store.durableOffsets(table, List.of(P0, P1))).isEqualTo(Map.of(P0, 1L));
        }
        List<Record> rows = rows(catalog, table);
        assertThat(rows).hasSize(2);
        Record ann = rows.get(0);
        assertThat(ann.getField("user")).isEqualTo("ann");
        assertThat(ann.getField("amount")).hasToString("12.50");
        assertThat(ann.getField("tags")).isEqualTo(List.of("a", "b"));
        assertThat(((Record) ann.getField("address")).getField("city")).isEqualTo("Hyderabad");
        assertThat(ann.getField("iggy_timestamp")).isEqualTo(OffsetDateTime.of(2026, 12, 1, 10, 0, 0, 0,
                ZoneOffset.UTC));
        assertThat(rows.get(1).getField("amount")).isNull();
        Table t = catalog.loadTable(TableIdentifier.parse(table));
        assertThat(t.currentSnapshot().summary())
                .containsEntry("iggy.offsets.sink.app.events", "{\"0\":1}")
                .containsKey("iggy.commit-id");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_file_spanning_two_days_becomes_one_data_file_per_day(CatalogFixture catalogs) throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = newTable(catalog, PartitionSpec.builderFor(SCHEMA).day("iggy_timestamp").build());
        try (IcebergTables store = new IcebergTables(catalogs.newClient(), GROUP)) {
            TableStore.RowFile file = store.newFile(table);
            file.append(record(P0, 0, DAY_1, "{\"user\":\"a\"}"));
            file.append(record(P0, 1, DAY_1 + DAY, "{\"user\":\"b\"}"));
            file.append(record(P0, 2, DAY_1 + 10, "{\"user\":\"c\"}"));
            TableStore.Staged staged = file.stage();
            assertThat(staged.dataFiles()).isEqualTo(2);
            store.commit(table, List.of(new TableStore.Append(P0, -1, 2, List.of(staged))));
        }
        assertThat(offsets(catalog, table)).containsExactly(0L, 1L, 2L);
        Table t = catalog.loadTable(TableIdentifier.parse(table));
        try (var tasks = t.newScan().planFiles()) {
            List<String> days = StreamSupport.stream(tasks.spliterator(), false)
                    .map(task -> String.valueOf(task.file().partition().get(0, Integer.class))).sorted().toList();
            assertThat(days).hasSize(2).doesNotHaveDuplicates();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_member_racing_another_on_the_catalog_is_checked_again_and_never_commits_a_partition_twice(
            CatalogFixture catalogs) throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = newTable(catalog, PartitionSpec.unpartitioned());
        try (IcebergTables a = new IcebergTables(catalogs.newClient(), GROUP);
             IcebergTables b = new IcebergTables(catalogs.newClient(), GROUP)) {
            TableStore.Staged a0 = stage(a, table, P0, 0, 4);
            TableStore.Staged a1 = stage(a, table, P1, 0, 2);
            TableStore.Staged b0 = stage(b, table, P0, 0, 2);
            TableStore.Staged b1 = stage(b, table, P1, 3, 5);
            // B commits P1 (3-5, after its own earlier 0-2 commit) and P0 between A's read and A's swap
            b.commit(table, List.of(new TableStore.Append(P1, -1, 2, List.of(stage(b, table, P1, 0, 2)))));
            a.betweenReadAndSwap = () -> {
                a.betweenReadAndSwap = () -> { };
                try {
                    b.commit(table, List.of(new TableStore.Append(P0, -1, 2, List.of(b0)),
                            new TableStore.Append(P1, 2, 5, List.of(b1))));
                } catch (StoreException e) {
                    throw new IllegalStateException(e);
                }
            };
            TableStore.CommitResult result = a.commit(table, List.of(new TableStore.Append(P0, -1, 4, List.of(a0)),
                    new TableStore.Append(P1, -1, 2, List.of(a1))));
            assertThat(result.conflicts()).isEqualTo(1);
            assertThat(result.committed()).isEmpty();
            assertThat(result.refused()).isEqualTo(Map.of(P0, 2L, P1, 5L));
            a.discard(a0);
            a.discard(a1);
            assertThat(a.durableOffsets(table, List.of(P0, P1))).isEqualTo(Map.of(P0, 2L, P1, 5L));
        }
        assertThat(offsets(catalog, table)).containsExactly(0L, 0L, 1L, 1L, 2L, 2L, 3L, 4L, 5L);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_race_on_other_partitions_keeps_both_members_entries_in_the_map(CatalogFixture catalogs) throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = newTable(catalog, PartitionSpec.unpartitioned());
        try (IcebergTables a = new IcebergTables(catalogs.newClient(), GROUP);
             IcebergTables b = new IcebergTables(catalogs.newClient(), GROUP)) {
            TableStore.Staged a0 = stage(a, table, P0, 0, 1);
            TableStore.Staged b1 = stage(b, table, P1, 0, 2);
            a.betweenReadAndSwap = () -> {
                a.betweenReadAndSwap = () -> { };
                try {
                    b.commit(table, List.of(new TableStore.Append(P1, -1, 2, List.of(b1))));
                } catch (StoreException e) {
                    throw new IllegalStateException(e);
                }
            };
            TableStore.CommitResult result = a.commit(table, List.of(new TableStore.Append(P0, -1, 1, List.of(a0))));
            assertThat(result.committed()).containsExactly(P0);
            assertThat(result.conflicts()).isEqualTo(1);
            assertThat(a.durableOffsets(table, List.of(P0, P1))).isEqualTo(Map.of(P0, 1L, P1, 2L));
        }
        assertThat(offsets(catalog, table)).containsExactly(0L, 0L, 1L, 1L, 2L);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void the_map_is_found_behind_snapshots_of_other_writers_and_a_new_column_is_filled_after_the_next_commit(
            CatalogFixture catalogs) throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = newTable(catalog, PartitionSpec.unpartitioned());
        try (IcebergTables store = new IcebergTables(catalogs.newClient(), GROUP)) {
            store.commit(table, List.of(new TableStore.Append(P0, -1, 1, List.of(stage(store, table, P0, 0, 1)))));

            // another writer appends a file of its own, and adds a column, while the sink runs
            Table other = catalog.loadTable(TableIdentifier.parse(table));
            DataFile foreign = ((IcebergTables.StagedFiles) stage(new IcebergTables(catalogs.newClient(), "other"),
                    table, P1, 0, 0)).files.get(0);
            other.newAppend().appendFile(foreign).commit();
            other.updateSchema().addColumn("country", Types.StringType.get()).commit();
            assertThat(store.durableOffsets(table, List.of(P0))).isEqualTo(Map.of(P0, 1L));

            store.commit(table, List.of(new TableStore.Append(P0, 1, 2, List.of(stage(store, table, P0, 2, 2)))));
            TableStore.RowFile file = store.newFile(table);
            file.append(record(P0, 3, DAY_1, "{\"user\":\"x\",\"country\":\"IN\"}"));
            store.commit(table, List.of(new TableStore.Append(P0, 2, 3, List.of(file.stage()))));
            assertThat(store.durableOffsets(table, List.of(P0))).isEqualTo(Map.of(P0, 3L));
        }
        List<Record> rows = rows(catalog, table);
        assertThat(rows.stream().filter(r -> "x".equals(r.getField("user"))).findFirst().orElseThrow()
                .getField("country")).isEqualTo("IN");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void records_that_do_not_fit_are_bad_records_naming_the_field_and_discarded_files_leave_the_store(
            CatalogFixture catalogs) throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = newTable(catalog, PartitionSpec.unpartitioned());
        try (IcebergTables store = new IcebergTables(catalogs.newClient(), GROUP)) {
            TableStore.RowFile file = store.newFile(table);
            assertThatThrownBy(() -> file.append(record(P0, 0, DAY_1, "{\"amount\":1}")))
                    .isInstanceOf(BadRecordException.class).hasMessageContaining("'user' is missing");
            assertThatThrownBy(() -> file.append(record(P0, 0, DAY_1, "{\"user\":\"a\",\"amount\":\"lots\"}")))
                    .isInstanceOf(BadRecordException.class).hasMessageContaining("'amount' is \"lots\", not a decimal number");
            assertThatThrownBy(() -> file.append(record(P0, 0, DAY_1, "{\"user\":\"a\",\"tags\":\"x\"}")))
                    .isInstanceOf(BadRecordException.class).hasMessageContaining("'tags'");
            assertThatThrownBy(() -> file.append(record(P0, 0, DAY_1, "not json")))
                    .isInstanceOf(BadRecordException.class).hasMessageContaining("not JSON");
            assertThatThrownBy(() -> file.append(record(P0, 0, DAY_1, "[1,2]")))
                    .isInstanceOf(BadRecordException.class).hasMessageContaining("not a JSON object");
            assertThat(file.count()).isZero();

            TableStore.Staged staged = stage(store, table, P0, 0, 2);
            String location = ((IcebergTables.StagedFiles) staged).files.get(0).location();
            assertThat(catalogs.warehouse().keysUnder(location)).hasSize(1);
            store.discard(staged);
            assertThat(catalogs.warehouse().keysUnder(location)).isEmpty();
        }
        assertThat(offsets(catalog, table)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_missing_table_is_created_from_the_template_once_even_when_two_members_open_it(CatalogFixture catalogs)
            throws Exception {
        String name = "made" + catalogs.kind() + ".t" + (++tableNumber);
        TableTemplate template = new TableTemplate(List.of("user string required", "amount decimal(10,2)"),
                List.of("day(iggy_timestamp)", "bucket(4, user)"));
        try (IcebergTables a = new IcebergTables(catalogs.newClient(), GROUP, Optional.of(template));
             IcebergTables b = new IcebergTables(catalogs.newClient(), GROUP, Optional.of(template))) {
            a.open(name);
            b.open(name);
            a.commit(name, List.of(new TableStore.Append(P0, -1, 2, List.of(stage(a, name, P0, 0, 2)))));
        }
        Catalog catalog = catalogs.newClient();
        Table t = catalog.loadTable(TableIdentifier.parse(name));
        assertThat(t.schema().columns()).extracting(Types.NestedField::name)
                .containsExactly("iggy_offset", "iggy_partition_id", "iggy_timestamp", "user", "amount");
        assertThat(t.spec().fields()).hasSize(2);
        assertThat(rows(catalog, name)).extracting(r -> r.getField("user")).containsExactly("u0", "u1", "u2");
        assertThat(rows(catalog, name)).extracting(r -> r.getField("iggy_partition_id")).containsOnly(0);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_table_the_catalog_does_not_have_is_refused_by_name(CatalogFixture catalogs) {
        try (IcebergTables store = new IcebergTables(catalogs.newClient(), GROUP)) {
            assertThatThrownBy(() -> store.open("lake.nowhere"))
                    .isInstanceOf(StoreException.class).hasMessageContaining("lake.nowhere does not exist")
                    .matches(e -> !((StoreException) e).retryable());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void table_columns_an_existing_table_lacks_are_warned_of_and_added_with_evolve_tables(CatalogFixture catalogs)
            throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = newTable(catalog, PartitionSpec.unpartitioned());
        List<String> columns = List.of("user string required", "country string", "score long required");

        TableChecks.Report kept = TableChecks.check(catalogs.settings(), List.of(table),
                Optional.of(new TableTemplate(columns, List.of(), false)));
        assertThat(kept.problems()).isEmpty();
        assertThat(kept.warnings()).singleElement().asString().contains("table " + table)
                .contains("country string, score long").contains("left out of every row")
                .contains("evolve_tables = true");
        TableChecks.Report evolving = TableChecks.check(catalogs.settings(), List.of(table),
                Optional.of(new TableTemplate(columns, List.of(), true)));
        assertThat(evolving.warnings()).singleElement().asString().contains("country string, score long")
                .contains("the sink adds them");
        assertThat(catalog.loadTable(TableIdentifier.parse(table)).schema().findField("country"))
                .as("validate changes no table").isNull();

        try (IcebergTables store = new IcebergTables(catalogs.newClient(), GROUP,
                Optional.of(new TableTemplate(columns, List.of(), true)))) {
            store.open(table);
            TableStore.RowFile file = store.newFile(table);
            file.append(record(P0, 0, DAY_1, "{\"user\":\"ann\",\"country\":\"IN\",\"score\":7}"));
            store.commit(table, List.of(new TableStore.Append(P0, -1, 0, List.of(file.stage()))));
        }
        Schema evolved = catalog.loadTable(TableIdentifier.parse(table)).schema();
        assertThat(evolved.findField("country").type()).isEqualTo(Types.StringType.get());
        assertThat(evolved.findField("score").type()).isEqualTo(Types.LongType.get());
        assertThat(evolved.findField("score").isOptional()).as("the table's older rows have none").isTrue();
        Record row = rows(catalog, table).get(0);
        assertThat(row.getField("country")).isEqualTo("IN");
        assertThat(row.getField("score")).isEqualTo(7L);
        assertThat(TableChecks.check(catalogs.settings(), List.of(table),
                Optional.of(new TableTemplate(columns, List.of(), false))).warnings()).isEmpty();
    }
}
