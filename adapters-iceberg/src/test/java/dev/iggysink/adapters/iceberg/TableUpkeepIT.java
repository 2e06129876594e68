package dev.iggysink.adapters.iceberg;

import static dev.iggysink.adapters.iceberg.IcebergTablesIT.offsets;
import static dev.iggysink.adapters.iceberg.IcebergTablesIT.stage;
import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.PartitionRef;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table upkeep on the REST catalog server and JDBC on SQLite, data on MinIO, beside a sink that keeps committing:
 * expiry and compaction never lose the offset map nor make a sink that starts again read or skip an offset, races
 * with the sink are lost by the upkeep, no file is rewritten twice, and an uncommitted data file is found and
 * deleted while no committed one ever is. The races run on both catalogs (each catalog swaps a table's metadata its
 * own way); what happens inside one table's metadata and files runs on the REST catalog alone.
 */
class TableUpkeepIT extends AllCatalogs {
    private static final String GROUP = "sink";
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);
    private static final PartitionRef P1 = new PartitionRef("app", "events", 1);
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
            Types.NestedField.required(2, "iggy_timestamp", Types.TimestampType.withZone()),
            Types.NestedField.required(3, "iggy_partition_id", Types.IntegerType.get()),
            Types.NestedField.required(4, "user", Types.StringType.get()),
            Types.NestedField.optional(5, "amount", Types.DecimalType.of(10, 2)));
    private static final long MINUTE = 60_000L;

    private int tableNumber;

    @Override
    String purpose() {
        return "upkeep";
    }

    @Override
    List<CatalogFixture> fixtures(MinioWarehouse warehouse, Path dir) {
        return List.of(CatalogFixture.rest(warehouse, dir), CatalogFixture.sqlite(warehouse, dir));
    }

    private String newTable(Catalog catalog) {
        Namespace ns = Namespace.of("upkeep");
        if (catalog instanceof SupportsNamespaces n && !n.namespaceExists(ns)) n.createNamespace(ns);
        String name = "upkeep.t" + (++tableNumber);
        catalog.createTable(TableIdentifier.parse(name), SCHEMA,
                PartitionSpec.builderFor(SCHEMA).identity("iggy_partition_id").build());
        return name;
    }

    private interface Commits {
        void to(IcebergTables sink, String table) throws Exception;
    }

    /** A new table that a sink (closed again) committed to as {@code commits} says. */
    private String committedTable(CatalogFixture catalogs, Catalog catalog, Commits commits) throws Exception {
        String table = newTable(catalog);
        try (IcebergTables sink = new IcebergTables(catalogs.newClient(), GROUP)) {
            commits.to(sink, table);
        }
        return table;
    }

    /** The REST catalog alone, for what does not depend on how a catalog swaps metadata. */
    Stream<CatalogFixture> restCatalog() {
        return catalogs().limit(1);
    }

    /** Commits offsets first..last of {@code p} as {@code files} small files, as a sink's commit does. */
    private static TableStore.CommitResult commit(IcebergTables sink, String table, PartitionRef p, long first, long last, int files)
            throws Exception {
        long expected = sink.durableOffsets(table, List.of(p)).getOrDefault(p, -1L);
        assertThat(expected).isEqualTo(first - 1);
        List<TableStore.Staged> staged = new ArrayList<>();
        long per = (last - first + 1) / files;
        for (int i = 0; i < files; i++) {
            long from = first + i * per;
            staged.add(stage(sink, table, p, from, i == files - 1 ? last : from + per - 1));
        }
        TableStore.CommitResult r = sink.commit(table, List.of(new TableStore.Append(p, expected, last, staged)));
        assertThat(r.committed()).containsExactly(p);
        return r;
    }

    private static List<DataFile> dataFiles(Table t) throws Exception {
        t.refresh();
        List<DataFile> out = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
            tasks.forEach(task -> out.add(task.file().copy()));
        }
        return out;
    }

    private static List<Long> range(long first, long last) {
        return LongStream.rangeClosed(first, last).boxed().toList();
    }

    /** Offsets 0..last of both partitions, each once, sorted as {@link IcebergTablesIT#offsets} gives them. */
    private static List<Long> both(long last) {
        List<Long> out = new ArrayList<>(range(0, last));
        out.addAll(range(0, last));
        out.sort(Long::compare);
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void the_sink_commits_through_compaction_and_expiry_and_after_a_restart_holds_every_offset_once(
            CatalogFixture catalogs) throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = newTable(catalog);
        Table t = catalog.loadTable(TableIdentifier.parse(table));
        try (IcebergTables sink = new IcebergTables(catalogs.newClient(), GROUP)) {
            for (int round = 0; round < 4; round++) {
                commit(sink, table, P0, round * 10L, round * 10L + 9, 2);
                commit(sink, table, P1, round * 10L, round * 10L + 9, 2);
            }
            assertThat(dataFiles(t)).hasSize(16);
            TableUpkeep upkeep = new TableUpkeep(catalogs.newClient().loadTable(TableIdentifier.parse(table)));
            // the sink commits between the compaction's read and its swap: the compaction reads again, carries the
            // sink's newer map forward and commits on top
            upkeep.atSwap = () -> {
                upkeep.atSwap = () -> { };
                try {
                    commit(sink, table, P0, 40, 49, 1);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            TableUpkeep.Compaction compaction = upkeep.compact(64L << 20, false);
            assertThat(compaction.outcome()).isEqualTo("committed");
            assertThat(compaction.conflicts()).isEqualTo(1);
            assertThat(compaction.filesBefore()).isEqualTo(16);
            assertThat(compaction.filesAfter()).isEqualTo(2);
            assertThat(compaction.rows()).isEqualTo(80);
            // the compaction commits between the sink's read and its swap: the sink reads again and commits on top
            commit(sink, table, P0, 50, 59, 1);
            TableUpkeep second = new TableUpkeep(catalogs.newClient().loadTable(TableIdentifier.parse(table)));
            List<TableUpkeep.Compaction> seconds = new ArrayList<>();
            sink.betweenReadAndSwap = () -> {
                sink.betweenReadAndSwap = () -> { };
                seconds.add(second.compact(64L << 20, false));
            };
            TableStore.CommitResult raced = commit(sink, table, P1, 40, 49, 1);
            assertThat(raced.conflicts()).isEqualTo(1);
            assertThat(seconds).singleElement().satisfies(c -> {
                assertThat(c.outcome()).isEqualTo("committed");
                assertThat(c.filesBefore()).isEqualTo(2);
            });
            t.refresh();
            assertThat(t.currentSnapshot().summary()).containsKey("iggy.commit-id");

            TableUpkeep.Expiry expiry = upkeep.expire(Instant.now().plusSeconds(60), 1, false);
            assertThat(expiry.after()).isEqualTo(1);
            assertThat(expiry.before()).isGreaterThan(10);
        }
        // a sink started again reads the map from what expiry left, and goes on from there
        try (IcebergTables restarted = new IcebergTables(catalogs.newClient(), GROUP)) {
            assertThat(restarted.durableOffsets(table, List.of(P0, P1))).isEqualTo(Map.of(P0, 59L, P1, 49L));
            commit(restarted, table, P0, 60, 69, 1);
            commit(restarted, table, P1, 50, 69, 1);
        }
        assertThat(offsets(catalog, table)).isEqualTo(both(69));
        // the files the compactions replaced went with the snapshots that held them; every file the table holds is there
        for (DataFile f : dataFiles(t)) assertThat(t.io().newInputFile(f.location()).exists()).isTrue();
        assertThat(new TableUpkeep(t).deleteOrphans(Instant.now().plusSeconds(60), true).found()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("restCatalog")
    void expiry_keeps_the_map_when_another_writer_committed_after_the_sink(CatalogFixture catalogs)
            throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = committedTable(catalogs, catalog, (sink, name) -> {
            commit(sink, name, P0, 0, 9, 1);
            commit(sink, name, P0, 10, 19, 1);
        });
        Table t = catalog.loadTable(TableIdentifier.parse(table));
        DataFile theirs = dataFiles(t).get(0);
        // another writer's snapshot, without the sink's map (an append of a file the table already has a copy of is
        // enough: only the snapshot matters here)
        t.newAppend().appendFile(theirs).commit();
        TableUpkeep.Expiry expiry = new TableUpkeep(t).expire(Instant.now().plusSeconds(60), 1, false);
        try (IcebergTables restarted = new IcebergTables(catalogs.newClient(), GROUP)) {
            assertThat(restarted.durableOffsets(table, List.of(P0))).isEqualTo(Map.of(P0, 19L));
        }
        assertThat(expiry.keptForMap()).isEqualTo(2);
        t.refresh();
        assertThat(t.snapshots()).hasSize(2);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("restCatalog")
    void a_compaction_snapshot_holds_the_map_itself_so_any_expiry_keeps_it(CatalogFixture catalogs)
            throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = committedTable(catalogs, catalog, (sink, name) -> {
            commit(sink, name, P0, 0, 9, 3);
            commit(sink, name, P1, 0, 4, 2);
        });
        Table t = catalog.loadTable(TableIdentifier.parse(table));
        assertThat(new TableUpkeep(t).compact(64L << 20, false).outcome()).isEqualTo("committed");
        // the sink reads it there, from the current snapshot alone
        t.refresh();
        assertThat(t.currentSnapshot().summary()).containsEntry("iggy.offsets.sink.app.events", "{\"0\":9,\"1\":4}")
                .hasEntrySatisfying("iggy.commit-id", id -> assertThat(id).startsWith("maintain-"));
        // an expiry by any other tool (Spark's expire_snapshots with retain_last 1) keeps the current one only
        t.expireSnapshots().expireOlderThan(System.currentTimeMillis() + MINUTE).retainLast(1).commit();
        t.refresh();
        assertThat(t.snapshots()).hasSize(1);
        try (IcebergTables restarted = new IcebergTables(catalogs.newClient(), GROUP)) {
            assertThat(restarted.durableOffsets(table, List.of(P0, P1))).isEqualTo(Map.of(P0, 9L, P1, 4L));
        }
        assertThat(offsets(catalog, table)).isEqualTo(List.of(0L, 0L, 1L, 1L, 2L, 2L, 3L, 3L, 4L, 4L, 5L, 6L, 7L,
                8L, 9L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void no_file_is_rewritten_twice(CatalogFixture catalogs) throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = committedTable(catalogs, catalog, (sink, name) -> commit(sink, name, P0, 0, 29, 3));
        TableUpkeep a = new TableUpkeep(catalogs.newClient().loadTable(TableIdentifier.parse(table)));
        TableUpkeep b = new TableUpkeep(catalogs.newClient().loadTable(TableIdentifier.parse(table)));
        // b plans on the same snapshot as a and commits first: a is refused the files b already rewrote
        List<TableUpkeep.Compaction> bs = new ArrayList<>();
        a.atSwap = () -> {
            a.atSwap = () -> { };
            bs.add(b.compact(64L << 20, false));
        };
        TableUpkeep.Compaction lost = a.compact(64L << 20, false);
        assertThat(bs.get(0).outcome()).isEqualTo("committed");
        assertThat(lost.outcome()).startsWith("gave up, nothing changed: another writer changed the files");
        // a's own new file was deleted, not left as an orphan
        Table t = catalog.loadTable(TableIdentifier.parse(table));
        assertThat(new TableUpkeep(t).deleteOrphans(Instant.now().plusSeconds(60), true).found()).isEmpty();
        // and what a compaction wrote is not taken again
        assertThat(a.compact(64L << 20, false).outcome()).startsWith("nothing to compact");
        assertThat(dataFiles(t)).singleElement()
                .satisfies(f -> assertThat(f.location()).contains("/" + TableUpkeep.COMPACTED));
        assertThat(offsets(catalog, table)).isEqualTo(range(0, 29));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("restCatalog")
    void an_uncommitted_data_file_is_found_and_deleted_and_no_committed_file_ever_is(CatalogFixture catalogs)
            throws Exception {
        Catalog catalog = catalogs.newClient();
        String table = newTable(catalog);
        String orphan;
        Instant beforeOrphan;
        try (IcebergTables sink = new IcebergTables(catalogs.newClient(), GROUP)) {
            commit(sink, table, P0, 0, 9, 2);
            commit(sink, table, P1, 0, 9, 2);
            // what a kill -9 between the write and the commit leaves: a data file the table never took
            beforeOrphan = Instant.now().minusSeconds(5);
            IcebergTables.StagedFiles staged = (IcebergTables.StagedFiles) stage(sink, table, P0, 10, 19);
            orphan = staged.files.get(0).location();
        }
        Table t = catalog.loadTable(TableIdentifier.parse(table));
        new TableUpkeep(t).compact(64L << 20, false);
        List<DataFile> committed = dataFiles(t);
        TableUpkeep upkeep = new TableUpkeep(t);

        // a file younger than the grace period is left alone (a running sink's file waiting for its commit)
        assertThat(upkeep.deleteOrphans(beforeOrphan, false).found()).isEmpty();
        TableUpkeep.Orphans dry = upkeep.deleteOrphans(Instant.now().plusSeconds(60), true);
        assertThat(dry.found()).extracting(FileInfo::location).map(TableUpkeep::comparable)
                .containsExactly(TableUpkeep.comparable(orphan));
        assertThat(t.io().newInputFile(orphan).exists()).isTrue();
        // the files the compaction replaced are still in the snapshots before it, hence no orphans either
        assertThat(dry.listed()).isEqualTo(committed.size() + 4 + 1);

        TableUpkeep.Orphans done = upkeep.deleteOrphans(Instant.now().plusSeconds(60), false);
        assertThat(done.deleted()).isEqualTo(1);
        assertThat(t.io().newInputFile(orphan).exists()).isFalse();
        for (DataFile f : committed) assertThat(t.io().newInputFile(f.location()).exists()).isTrue();
        assertThat(offsets(catalog, table)).isEqualTo(both(9));
        assertThat(upkeep.deleteOrphans(Instant.now().plusSeconds(60), true).found()).isEmpty();
    }
}
