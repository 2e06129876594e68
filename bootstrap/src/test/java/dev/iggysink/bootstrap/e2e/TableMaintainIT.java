package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code maintain} beside the running fat jar (JDBC on SQLite, warehouse on MinIO): compactions and expiries while
 * the sink commits, a {@code kill -9}, an orphan data file planted as a crash between write and commit leaves one,
 * deleted while no sink runs, and a restart. Every offset ends up in the table exactly once (Iceberg's reader),
 * {@code audit} is OK, and every file the table references is still there.
 */
class TableMaintainIT extends SqliteTableTest {
    private static final String TOPIC = "views";
    private static final String TABLE = "lake.views";
    private static final int PARTITIONS = 2;
    private static final int PER_ROUND = 10;
    private static final int MAX_ROUNDS = 400;

    @Override
    void createTables(TableCatalog catalog) {
        catalog.createTable(TABLE, TableCatalog.clicksSchema());
    }

    private static CliResult maintain(Path config, String... args) {
        return CliResult.run("maintain", config, args);
    }

    private List<DataFile> dataFiles() throws IOException {
        Table t = catalog.table(TABLE);
        List<DataFile> out = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
            tasks.forEach(task -> out.add(task.file().copy()));
        }
        return out;
    }

    /** A copy of a committed data file under a name of the sink's kind, never committed: a crash's debris. */
    private String plantOrphan() throws IOException {
        Table t = catalog.table(TABLE);
        String committed = dataFiles().get(0).location();
        String orphan = committed.substring(0, committed.lastIndexOf('/') + 1) + UUID.randomUUID() + ".parquet";
        try (InputStream in = t.io().newInputFile(committed).newStream();
             OutputStream out = t.io().newOutputFile(orphan).create()) {
            in.transferTo(out);
        }
        return orphan;
    }

    @Test
    @Timeout(240)
    void the_sink_runs_through_compaction_expiry_a_kill_9_and_orphan_deletion_and_holds_every_offset_once()
            throws Exception {
        fx.topic(TOPIC, PARTITIONS);
        Path config = fx.tableSink(TOPIC, TABLE, "maintain_sink").catalog(catalog).batchLength(200).plugin("""
                commit_interval = "1s"
                max_messages_per_file = 100
                """).write("maintain_sink");
        Rounds rounds = Rounds.start(fx, TOPIC, PARTITIONS, PER_ROUND, MAX_ROUNDS, Rounds.PAGES);
        String orphan;
        try (SinkProcess a = SinkProcess.run(config, fx.log("maintain-a"), Map.of())) {
            for (int i = 0; i < 2; i++) {
                // until the sink has committed two more small files of one partition
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
                        maintain(config, "--dry-run", "--no-expire", "--no-orphans").output()
                                .contains("would compact"));
                // the grace period keeps the running sink's files that wait for their commit out of reach
                CliResult run = maintain(config, "--expire-older-than", "1ms", "--orphans-older-than", "1h");
                assertThat(run.code()).as(run.output()).isZero();
                assertThat(run.output()).contains("lake.views: compaction: committed: ", "lake.views: expired ",
                        "lake.views: orphan files: 0 of ");
            }
            a.kill9();
            orphan = plantOrphan();
        }
        // with no sink running, no grace period is needed: the planted file and whatever the kill left go
        CliResult orphans = maintain(config, "--no-compact", "--no-expire", "--orphans-older-than", "1ms");
        assertThat(orphans.code()).as(orphans.output()).isZero();
        assertThat(orphans.output()).containsPattern("orphan files: [1-9]\\d* of \\d+ file\\(s\\)");
        Table t = catalog.table(TABLE);
        assertThat(t.io().newInputFile(orphan).exists()).isFalse();

        try (SinkProcess b = SinkProcess.run(config, fx.log("maintain-b"), Map.of())) {
            rounds.awaitMore(5);
            long perPartition = rounds.finish();
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                    .until(() -> catalog.rows(TABLE) >= perPartition * PARTITIONS);
            CliResult last = maintain(config, "--expire-older-than", "1ms", "--orphans-older-than", "1h");
            assertThat(last.code()).as(last.output()).isZero();
            b.terminate();
            assertThat(b.waitFor(Duration.ofSeconds(60))).as("graceful stop of b:\n%s", b.logText()).isZero();
            fx.assertTableComplete(config, catalog, TABLE, TOPIC, "maintain_sink", PARTITIONS, perPartition);
        }
        for (DataFile f : dataFiles()) assertThat(t.io().newInputFile(f.location()).exists()).isTrue();
    }
}
