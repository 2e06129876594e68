package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The three catalogs the table sink supports (REST, JDBC on SQLite, JDBC on PostgreSQL), each with its warehouse on
 * a real MinIO: a table is created, a Parquet file written by Iceberg's generic writer is appended with the offset
 * map in the snapshot summary and read back by Iceberg's own reader; and what a commit conflict between two clients
 * does, which the sink's commit protocol is built on.
 */
class CatalogsIT extends AllCatalogs {
    private static final String OFFSETS = "iggy.offsets";
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
            Types.NestedField.required(2, "iggy_timestamp", Types.TimestampType.withZone()),
            Types.NestedField.optional(3, "payload", Types.StringType.get()));
    private static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).day("iggy_timestamp").build();
    private static final OffsetDateTime DAY_1 = OffsetDateTime.of(2026, 12, 1, 10, 0, 0, 0, ZoneOffset.UTC);
    private static final OffsetDateTime DAY_2 = DAY_1.plusDays(1);

    @Override
    String purpose() {
        return "catalogs";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_parquet_file_on_minio_is_appended_with_the_offset_map_and_read_back_by_iceberg(CatalogFixture catalogs)
            throws IOException {
        Catalog catalog = catalogs.newClient();
        TableIdentifier id = newTable(catalog, "events", Map.of());
        Table table = catalog.loadTable(id);
        assertThat(table.location()).startsWith(catalogs.warehouse().location(""));

        List<Record> rows = List.of(row(0, DAY_1, "a"), row(1, DAY_1.plusHours(13), "b"), row(2, DAY_2, null));
        List<DataFile> files = ParquetDataFiles.write(table, rows);
        assertThat(files).as("one file per day(iggy_timestamp) partition").hasSize(2);
        String offsets = "{\"stream/topic/1\":2}";
        append(table, files, offsets);

        Table reloaded = catalogs.newClient().loadTable(id);
        Snapshot current = reloaded.currentSnapshot();
        assertThat(current.summary()).containsEntry(OFFSETS, offsets).containsEntry("added-data-files", "2")
                .containsEntry("added-records", "3");
        assertThat(readAll(reloaded)).containsExactlyInAnyOrderElementsOf(rows);
        // The bytes are on MinIO, in Hive-style day partitions under the table's location.
        assertThat(catalogs.warehouse().keysUnder(reloaded.location() + "/data/"))
                .filteredOn(key -> key.endsWith(".parquet"))
                .hasSize(2)
                .anyMatch(key -> key.contains("/iggy_timestamp_day=2026-12-01/"))
                .anyMatch(key -> key.contains("/iggy_timestamp_day=2026-12-02/"));
        assertThat(catalogs.warehouse().keysUnder(reloaded.location() + "/metadata/"))
                .anyMatch(key -> key.endsWith(".metadata.json"));
    }

    /**
     * Two sink instances read the same snapshot and both append. The second's handle is stale, yet nothing
     * conflicts, even with Iceberg's commit retries off: an append refreshes the table and applies itself to the
     * current metadata before it commits. Both files land, but the second snapshot carries the summary decided on
     * the old snapshot, so the first commit's offsets are missing from the current map. Checking the base snapshot is
     * the caller's job.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void an_append_on_a_stale_handle_is_rebased_silently_and_keeps_its_stale_summary(CatalogFixture catalogs)
            throws IOException {
        Catalog setup = catalogs.newClient();
        TableIdentifier id = newTable(setup, "stale_handle", Map.of(TableProperties.COMMIT_NUM_RETRIES, "0"));
        appendWithOffsets(setup.loadTable(id), List.of(row(0, DAY_1, "base")), "{\"p1\":0}");

        Table first = catalogs.newClient().loadTable(id);
        Table second = catalogs.newClient().loadTable(id);
        long basedOn = first.currentSnapshot().snapshotId();
        appendWithOffsets(first, List.of(row(1, DAY_1, "first")), "{\"p1\":1}");
        assertThat(second.currentSnapshot().snapshotId()).as("the second handle has not seen the first commit")
                .isEqualTo(basedOn);
        appendWithOffsets(second, List.of(row(2, DAY_1, "second")), "{\"p1\":0,\"p2\":2}");

        Table after = catalogs.newClient().loadTable(id);
        Snapshot last = after.currentSnapshot();
        Snapshot parent = after.snapshot(last.parentId());
        assertThat(parent.summary()).containsEntry(OFFSETS, "{\"p1\":1}");
        assertThat(parent.parentId()).isEqualTo(basedOn);
        assertThat(last.summary()).as("decided on the old snapshot").containsEntry(OFFSETS, "{\"p1\":0,\"p2\":2}");
        assertThat(payloads(after)).containsExactlyInAnyOrder("base", "first", "second");
    }

    /**
     * The catalog sees a conflict only when another commit lands between the append's refresh and its swap in the
     * catalog. Iceberg then retries by itself (commit.retry.num-retries, default 4): it refreshes and re-applies the
     * same append, summary included, so the stale map lands as above.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void an_append_that_loses_the_race_in_the_catalog_is_retried_by_iceberg_with_its_stale_summary(
            CatalogFixture catalogs) throws IOException {
        Catalog setup = catalogs.newClient();
        TableIdentifier id = newTable(setup, "race_retried", Map.of());
        appendWithOffsets(setup.loadTable(id), List.of(row(0, DAY_1, "base")), "{\"p1\":0}");
        Table first = catalogs.newClient().loadTable(id);
        List<DataFile> firstFiles = ParquetDataFiles.write(first, List.of(row(1, DAY_1, "first")));
        long basedOn = first.currentSnapshot().snapshotId();

        CommitRace race = CommitRace.losing(catalogs.newClient().loadTable(id),
                () -> append(first, firstFiles, "{\"p1\":1}"));
        appendWithOffsets(race.table(), List.of(row(2, DAY_1, "second")), "{\"p1\":0,\"p2\":2}");
        assertThat(race.attempts()).as("refused by the catalog once, then retried by Iceberg").isEqualTo(2);

        Table after = catalogs.newClient().loadTable(id);
        Snapshot last = after.currentSnapshot();
        Snapshot parent = after.snapshot(last.parentId());
        assertThat(parent.summary()).containsEntry(OFFSETS, "{\"p1\":1}");
        assertThat(parent.parentId()).isEqualTo(basedOn);
        assertThat(last.summary()).as("re-applied as it was").containsEntry(OFFSETS, "{\"p1\":0,\"p2\":2}");
        assertThat(payloads(after)).containsExactlyInAnyOrder("base", "first", "second");
    }

    /**
     * With commit.retry.num-retries=0 the append that lost the race fails with {@link CommitFailedException} and
     * changes nothing; the caller refreshes, merges its offsets into the current map and commits the same, already
     * written, files again.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void without_retries_an_append_that_loses_the_race_fails_and_is_merged_again_after_a_refresh(
            CatalogFixture catalogs) throws IOException {
        Catalog setup = catalogs.newClient();
        TableIdentifier id = newTable(setup, "race_no_retry", Map.of(TableProperties.COMMIT_NUM_RETRIES, "0"));
        appendWithOffsets(setup.loadTable(id), List.of(row(0, DAY_1, "base")), "{\"p1\":0}");
        Table first = catalogs.newClient().loadTable(id);
        List<DataFile> firstFiles = ParquetDataFiles.write(first, List.of(row(1, DAY_1, "first")));

        CommitRace race = CommitRace.losing(catalogs.newClient().loadTable(id),
                () -> append(first, firstFiles, "{\"p1\":1}"));
        Table second = race.table();
        List<DataFile> secondFiles = ParquetDataFiles.write(second, List.of(row(2, DAY_1, "second")));
        CommitFailedException conflict = catchThrowableOfType(CommitFailedException.class,
                () -> append(second, secondFiles, "{\"p1\":0,\"p2\":2}"));
        assertThat(conflict).as("the append that lost the race is refused").isNotNull();
        assertThat(race.attempts()).as("not retried").isEqualTo(1);
        Table unchanged = catalogs.newClient().loadTable(id);
        long afterFirst = unchanged.currentSnapshot().snapshotId();
        assertThat(unchanged.currentSnapshot().summary()).containsEntry(OFFSETS, "{\"p1\":1}");
        assertThat(payloads(unchanged)).containsExactlyInAnyOrder("base", "first");

        second.refresh();
        assertThat(second.currentSnapshot().snapshotId()).isEqualTo(afterFirst);
        append(second, secondFiles, "{\"p1\":1,\"p2\":2}");

        Table after = catalogs.newClient().loadTable(id);
        assertThat(after.currentSnapshot().parentId()).isEqualTo(afterFirst);
        assertThat(after.currentSnapshot().summary()).containsEntry(OFFSETS, "{\"p1\":1,\"p2\":2}");
        assertThat(payloads(after)).containsExactlyInAnyOrder("base", "first", "second");
    }

    private static TableIdentifier newTable(Catalog catalog, String name, Map<String, String> properties) {
        Namespace namespace = Namespace.of("it_" + Long.toHexString(System.nanoTime()));
        ((SupportsNamespaces) catalog).createNamespace(namespace);
        TableIdentifier id = TableIdentifier.of(namespace, name);
        catalog.createTable(id, SCHEMA, SPEC, properties);
        return id;
    }

    private static void appendWithOffsets(Table table, List<Record> rows, String offsets) {
        append(table, ParquetDataFiles.write(table, rows), offsets);
    }

    private static void append(Table table, List<DataFile> files, String offsets) {
        var append = table.newAppend();
        files.forEach(append::appendFile);
        append.set(OFFSETS, offsets).commit();
    }

    private static Record row(long offset, OffsetDateTime timestamp, String payload) {
        GenericRecord record = GenericRecord.create(SCHEMA);
        record.setField("iggy_offset", offset);
        record.setField("iggy_timestamp", timestamp);
        record.setField("payload", payload);
        return record;
    }

    private static List<Object> payloads(Table table) throws IOException {
        return readAll(table).stream().map(r -> r.getField("payload")).toList();
    }

    private static List<Record> readAll(Table table) throws IOException {
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            return StreamSupport.stream(records.spliterator(), false).map(Record::copy).toList();
        }
    }
}
