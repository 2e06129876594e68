package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.table.TableSelfAudit;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table sink's self-audit (issue 48) on a real catalog (JDBC on SQLite, a local warehouse): rows another writer
 * deleted or appended a second time are found by reading the recent window of the table's rows, and a table as the
 * sink committed it raises nothing.
 */
class TableSelfAuditSqliteTest {
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);
    private static final String TABLE = "lake.audited";

    @TempDir
    Path dir;

    private CatalogSettings settings;
    private IcebergTables store;
    private TableSelfAudit audit;

    @org.junit.jupiter.api.AfterEach
    void close() {
        if (store != null) store.close();
    }

    /** Offsets 0-99 and 100-199 of partition 0 committed by the sink as two files, the self-audit told of both. */
    private void committed() throws Exception {
        committed(List.of("user string"));
    }

    /** As {@link #committed()}, the table created with {@code columns}. */
    private void committed(List<String> columns) throws Exception {
        settings = LocalWarehouseTest.sqlite(dir.resolve("audit.db"), dir.resolve("warehouse").toString());
        store = new IcebergTables(IcebergCatalogs.open(settings), "sink",
                Optional.of(new TableTemplate(columns, List.of())));
        store.open(TABLE);
        audit = new TableSelfAudit(store, 600, InstantSource.system(), d -> Thread.sleep(d.toMillis()), () -> false);
        store.commit(TABLE, List.of(new TableStore.Append(P0, -1, 99, List.of(rows(0, 100).stage()))));
        store.commit(TABLE, List.of(new TableStore.Append(P0, 99, 199, List.of(rows(100, 100).stage()))));
        audit.committed(List.of(new TableSelfAudit.Commit(TABLE, P0, 99, List.of(new TableSelfAudit.Span(0, 99, 100))),
                new TableSelfAudit.Commit(TABLE, P0, 199, List.of(new TableSelfAudit.Span(100, 199, 100)))));
    }

    private TableStore.RowFile rows(long first, int n) throws Exception {
        TableStore.RowFile file = store.newFile(TABLE);
        for (long o = first; o < first + n; o++) {
            SinkRecord r = new SinkRecord(P0, o, 1_000_000L, 1_000_000L, new MessageId(0, o + 1), List.of(),
                    ("{\"user\":\"u" + o + "\"}").getBytes(StandardCharsets.UTF_8));
            file.append(new DecodedRecord() {
                @Override
                public SinkRecord source() {
                    return r;
                }

                @Override
                public Optional<String> fieldText(String dottedPath) {
                    return Optional.empty();
                }
            });
        }
        return file;
    }

    /** Runs {@code change} on the table through a catalog client of another writer. */
    private void anotherWriter(java.util.function.Consumer<Table> change) throws Exception {
        Catalog other = IcebergCatalogs.open(settings);
        try {
            change.accept(other.loadTable(TableIdentifier.parse(TABLE)));
        } finally {
            ((AutoCloseable) other).close();
        }
    }

    /** The data file holding offset 100 (the sink's second commit). */
    private static DataFile secondFile(Table t) {
        List<DataFile> files = new ArrayList<>();
        try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks = t.newScan()
                .filter(org.apache.iceberg.expressions.Expressions.greaterThanOrEqual("iggy_offset", 100L))
                .planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThat(files).hasSize(1);
        return files.get(0);
    }

    @Test
    void a_clean_table_raises_nothing_and_only_the_window_is_read() throws Exception {
        committed();
        assertThat(store.rowOffsets(TABLE, List.of(P0), 150).orElseThrow().get(P0))
                .hasSize(50).allMatch(o -> o >= 150);
        audit.round();
        AuditStatus s = audit.status();
        assertThat(s.problems()).isEmpty();
        assertThat(s.objectsVerified()).isEqualTo(1); // one map entry, the later commit's
        assertThat(s.covered()).singleElement().satisfies(c -> {
            assertThat(c.from()).isZero();
            assertThat(c.to()).isEqualTo(199);
        });
    }

    @Test
    void a_data_file_another_writer_deleted_is_a_gap_naming_table_partition_and_offsets() throws Exception {
        committed();
        anotherWriter(t -> t.newDelete().deleteFile(secondFile(t)).commit());
        audit.round();
        assertThat(audit.status().problems()).singleElement().asString().contains(TABLE)
                .contains(P0.toString()).contains("100 committed row(s) of offsets 100-199 are not in the table");
        assertThat(audit.status().counts().gaps()).isEqualTo(1);
    }

    @Test
    void a_copy_another_writer_appended_is_an_overlap() throws Exception {
        committed();
        anotherWriter(t -> t.newAppend().appendFile(secondFile(t)).commit());
        audit.round();
        assertThat(audit.status().problems()).singleElement().asString().contains(TABLE)
                .contains(P0.toString()).contains("[100, 101, 102").contains("held by more than one row");
        assertThat(audit.status().counts().overlaps()).isEqualTo(1);
    }

    @Test
    void a_round_over_the_files_the_sink_wrote_reads_their_statistics_and_no_data_file() throws Exception {
        committed();
        audit.round();
        TableStore.FileListing whole = store.dataFiles(TABLE, 0, java.util.OptionalLong.empty()).orElseThrow();
        assertThat(audit.status().requests()).as("the map and the listing, no data file")
                .isEqualTo(1 + whole.reads());
        assertThat(whole.files()).extracting(f -> f.stats().orElseThrow()).containsExactlyInAnyOrder(
                new TableStore.FileStats(100, 0, 99, 0, 0, Optional.empty(), Optional.empty()),
                new TableStore.FileStats(100, 100, 199, 0, 0, Optional.empty(), Optional.empty()));
        assertThat(audit.status().problems()).isEmpty();
        assertThat(audit.status().covered()).singleElement().satisfies(c -> assertThat(c.to()).isEqualTo(199));
    }

    @Test
    void a_table_naming_stream_and_topic_lists_them_with_the_statistics_and_reads_no_data_file() throws Exception {
        committed(List.of("user string", "iggy_stream string", "iggy_topic string"));
        audit.round();
        TableStore.FileListing whole = store.dataFiles(TABLE, 0, java.util.OptionalLong.empty()).orElseThrow();
        assertThat(audit.status().requests()).as("the map and the listing, no data file")
                .isEqualTo(1 + whole.reads());
        assertThat(whole.files()).extracting(f -> f.stats().orElseThrow()).containsExactlyInAnyOrder(
                new TableStore.FileStats(100, 0, 99, 0, 0, Optional.of("app"), Optional.of("events")),
                new TableStore.FileStats(100, 100, 199, 0, 0, Optional.of("app"), Optional.of("events")));
        assertThat(audit.status().problems()).isEmpty();
    }

    @Test
    void a_round_after_nothing_changed_reads_the_listing_and_no_data_file() throws Exception {
        committed();
        audit.round();
        long first = audit.status().requests();
        assertThat(first).as("map, listing: table metadata, manifest list, two manifests").isGreaterThanOrEqualTo(5);
        audit.round();
        assertThat(audit.status().requests() - first).as("requests of a round with nothing new: the table's metadata")
                .isEqualTo(1);
        assertThat(audit.status().problems()).isEmpty();
    }

    @Test
    void a_row_another_writer_deleted_with_a_delete_file_is_a_gap_once_the_file_was_read_before() throws Exception {
        committed();
        audit.round();
        anotherWriter(t -> {
            DataFile second = secondFile(t);
            org.apache.iceberg.io.OutputFile out = t.io().newOutputFile(
                    t.locationProvider().newDataLocation("position-deletes-" + java.util.UUID.randomUUID()
                            + ".parquet"));
            try {
                org.apache.iceberg.deletes.PositionDeleteWriter<org.apache.iceberg.data.Record> w =
                        org.apache.iceberg.parquet.Parquet.writeDeletes(out).forTable(t).withSpec(t.spec()).rowSchema(null)
                                .overwrite().buildPositionWriter();
                try (w) {
                    w.write(org.apache.iceberg.deletes.PositionDelete.<org.apache.iceberg.data.Record>create()
                            .set(second.location(), 50L)); // row 50 holds offset 150
                }
                t.newRowDelta().addDeletes(w.toDeleteFile()).commit();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        audit.round();
        assertThat(audit.status().problems()).singleElement().asString().contains(TABLE).contains(P0.toString())
                .contains("1 committed row(s) of offsets 100-199 are not in the table (no row at [150])");
    }

    @Test
    void what_another_writer_changes_after_a_round_is_found_in_the_snapshots_since() throws Exception {
        committed();
        audit.round();
        TableStore.FileListing whole = store.dataFiles(TABLE, 0, java.util.OptionalLong.empty()).orElseThrow();
        assertThat(whole.files()).extracting(TableStore.DataFileRef::upper).containsExactlyInAnyOrder(99L, 199L);
        String second = whole.files().stream().filter(f -> f.upper() == 199).findFirst().orElseThrow().path();
        anotherWriter(t -> t.newAppend().appendFile(secondFile(t)).commit());
        TableStore.FileListing changes = store.dataFiles(TABLE, 0, java.util.OptionalLong.of(whole.snapshot()))
                .orElseThrow();
        assertThat(changes.whole()).isFalse();
        assertThat(changes.files()).extracting(TableStore.DataFileRef::path).containsExactly(second);
        audit.round();
        assertThat(audit.status().problems()).singleElement().asString().contains("held by more than one row");

        anotherWriter(t -> t.newDelete().deleteFile(second).commit()); // both copies: one path
        audit.round();
        assertThat(audit.status().problems()).singleElement().asString()
                .contains("100 committed row(s) of offsets 100-199 are not in the table");
    }

    @Test
    void the_offset_column_of_a_data_file_the_sink_wrote_is_read_as_runs() throws Exception {
        committed();
        anotherWriter(t -> {
            try {
                OffsetColumn column = OffsetColumn.read(t.io().newInputFile(secondFile(t).location()),
                        t.schema().select("iggy_offset"), 150);
                assertThat(column).isNotNull();
                assertThat(column.count()).isEqualTo(50);
                assertThat(column.runs().firsts()).containsExactly(150L);
                assertThat(column.runs().lasts()).containsExactly(199L);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }
}
