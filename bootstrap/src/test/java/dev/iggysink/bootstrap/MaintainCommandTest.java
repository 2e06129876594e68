package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.iceberg.IcebergTables;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code maintain} on the zero-install catalog (JDBC on SQLite, a local warehouse) of a table a sink committed to in
 * many small files and where a crash left a data file it never committed: one run compacts the files, expires the old
 * snapshots and deletes the orphan, and the table still holds every offset once with its map intact. The tests that
 * only read the table (a dry run, the grace period, command-line errors) share one table; each checks it is unchanged
 * where a change could hide.
 */
class MaintainCommandTest {
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
            Types.NestedField.required(2, "iggy_partition_id", Types.IntegerType.get()),
            Types.NestedField.optional(3, "user", Types.StringType.get()));
    private static final int COMMITS = 20;
    private static final int PER_COMMIT = 10;

    /** The table of the tests that only read it, made once; the test that changes it makes its own. */
    @TempDir
    static Path sharedDir;
    private static Lake shared;

    @TempDir
    Path dir;

    private record Decoded(SinkRecord source) implements DecodedRecord {
        @Override
        public Optional<String> fieldText(String dottedPath) {
            return Optional.empty();
        }
    }

    /** The catalog's database, its warehouse, the sink's connector file and the orphan a crash left. */
    private record Lake(Path db, Path warehouse, Path file, Path orphan) {
        List<Path> dataFiles() throws Exception {
            try (Stream<Path> files = Files.walk(warehouse)) {
                return files.filter(f -> f.toString().endsWith(".parquet")).sorted().toList();
            }
        }

        Table table() {
            return TableSinkFiles.openCatalog(db, warehouse).loadTable(TableIdentifier.parse("lake.events"));
        }
    }

    private static TableStore.Staged stage(IcebergTables store, long first, long last) throws Exception {
        TableStore.RowFile rows = store.newFile("lake.events");
        for (long o = first; o <= last; o++) {
            rows.append(new Decoded(new SinkRecord(P0, o, 0, 0, new MessageId(0, o + 1), List.of(),
                    ("{\"user\":\"u" + o + "\"}").getBytes(StandardCharsets.UTF_8))));
        }
        return rows.stage();
    }

    /** A table a sink committed to in many small files, and the orphan a crash left, in {@code dir}. */
    private static Lake aTableOfManySmallFilesAndAnOrphan(Path dir) throws Exception {
        Path db = dir.resolve("catalog.db");
        Path warehouse = dir.resolve("warehouse");
        Lake lake = new Lake(db, warehouse, dir.resolve("lake.toml"), null);
        Catalog catalog = TableSinkFiles.openSqlite(db, warehouse);
        catalog.createTable(TableIdentifier.parse("lake.events"), SCHEMA, PartitionSpec.unpartitioned());
        Path orphan;
        try (IcebergTables sink = new IcebergTables(catalog, "sink")) {
            for (int c = 0; c < COMMITS; c++) {
                long first = (long) c * PER_COMMIT;
                sink.commit("lake.events", List.of(new TableStore.Append(P0, first - 1, first + PER_COMMIT - 1,
                        List.of(stage(sink, first, first + PER_COMMIT - 1)))));
            }
            List<Path> before = lake.dataFiles();
            // what a kill -9 between the write and the commit leaves behind
            stage(sink, COMMITS * PER_COMMIT, COMMITS * PER_COMMIT + 9);
            List<Path> after = new ArrayList<>(lake.dataFiles());
            after.removeAll(before);
            orphan = after.get(0);
        }
        Files.writeString(lake.file(), TableSinkFiles.text(TableSinkFiles.stream("app", List.of("events"), "sink"),
                "\"lake.events\"", TableSinkFiles.sqliteCatalog(db, warehouse), ""));
        return new Lake(db, warehouse, lake.file(), orphan);
    }

    @BeforeAll
    static void aSharedTable() throws Exception {
        shared = aTableOfManySmallFilesAndAnOrphan(sharedDir);
    }

    private static CliRun maintain(String... args) {
        List<String> all = new ArrayList<>(List.of("maintain"));
        all.addAll(List.of(args));
        return CliRun.execute(all.toArray(String[]::new));
    }

    private List<Long> offsets(Table t) throws Exception {
        List<Long> out = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(t).build()) {
            rows.forEach(r -> out.add((Long) r.getField("iggy_offset")));
        }
        out.sort(Long::compare);
        return out;
    }

    @Test
    void one_run_compacts_expires_and_deletes_the_orphan_and_the_table_keeps_every_offset_once() throws Exception {
        Lake lake = aTableOfManySmallFilesAndAnOrphan(dir);
        CliRun run = maintain("--config", lake.file().toString(), "--expire-older-than", "1ms", "--orphans-older-than",
                "1ms");

        assertThat(run.err()).isEmpty();
        assertThat(run.code()).isEqualTo(0);
        assertThat(run.out()).contains("lake.events: compaction: committed: " + COMMITS + " file(s) of 1 partition(s)",
                "-> 1 file(s)", "lake.events: expired " + COMMITS + " of " + (COMMITS + 1) + " snapshot(s), 1 left",
                // the files the compaction replaced are in no snapshot once the ones before it expired
                "lake.events: orphan files: " + (COMMITS + 1) + " of " + (COMMITS + 2) + " file(s)",
                ", " + (COMMITS + 1) + " deleted");
        assertThat(lake.orphan()).doesNotExist();
        assertThat(lake.dataFiles()).hasSize(1);
        try (IcebergTables restarted = new IcebergTables(TableSinkFiles.openCatalog(lake.db(), lake.warehouse()),
                "sink")) {
            assertThat(restarted.durableOffsets("lake.events", List.of(P0)))
                    .isEqualTo(Map.of(P0, (long) COMMITS * PER_COMMIT - 1));
        }
        Table t = lake.table();
        assertThat(offsets(t)).isEqualTo(LongStream.range(0, COMMITS * PER_COMMIT).boxed().toList());

        assertThat(maintain("--config", lake.file().toString(), "--orphans-older-than", "1ms").out())
                .contains("compaction: nothing to compact", "expired 0 of 1 snapshot(s)", "orphan files: 0 of 1");
    }

    @Test
    void a_dry_run_says_what_it_would_do_and_changes_nothing() throws Exception {
        List<Path> before = shared.dataFiles();
        CliRun run = maintain("--config", shared.file().toString(), "--dry-run", "--expire-older-than", "1ms",
                "--orphans-older-than", "1ms");

        assertThat(run.code()).isEqualTo(0);
        assertThat(run.out()).contains("compaction: would compact: " + COMMITS + " file(s)",
                "would expire " + (COMMITS - 1) + " of " + COMMITS + " snapshot(s), 1 left",
                "orphan files: 1 of " + (COMMITS + 1) + " file(s)", "not deleted (dry run)");
        assertThat(shared.dataFiles()).isEqualTo(before);
        assertThat(shared.table().snapshots()).hasSize(COMMITS);
    }

    @Test
    void a_fresh_orphan_is_left_alone_within_the_grace_period() {
        CliRun run = maintain("--config", shared.file().toString(), "--no-compact", "--no-expire");

        assertThat(run.code()).isEqualTo(0);
        assertThat(run.out()).contains("orphan files: 0 of " + (COMMITS + 1) + " file(s)").doesNotContain("compaction");
        assertThat(shared.orphan()).exists();
    }

    @Test
    void a_wrong_size_or_retention_is_a_command_line_error() {
        assertThat(maintain("--config", shared.file().toString(), "--target-file-size", "big").code()).isEqualTo(2);
        CliRun zero = maintain("--config", shared.file().toString(), "--retain-last", "0");
        assertThat(zero.code()).isEqualTo(2);
        assertThat(zero.out()).contains("--retain-last must be at least 1");
    }
}
