package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.application.status.TableStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The table sink's periodic status line, as the object sink has one: the rate since the previous line, its commits,
 * rows, data files, backlog, failed and conflicting commits, and the group's committed offset per partition it owns;
 * logged every {@code --status-interval} once its start checks passed.
 */
class TableStatusLineTest {
    private static PartitionStatus partition(int p, boolean owned, long committed, long end) {
        return new PartitionStatus("app", "events", p, owned, committed + 1, committed, end, 0, 0, 1, 0,
                Optional.empty(), Optional.empty(), 0, Optional.empty(), false);
    }

    private static StatusSnapshot status(long records, List<PartitionStatus> partitions) {
        return new StatusSnapshot(Health.OK, List.of(), partitions, new StatusSnapshot.Totals(records, records * 100,
                3, 3_000_000, 0, 0, 0, 64L << 20, false));
    }

    private static TableStatus.Totals totals(long commits, long failed, long conflicts, long files, long rows) {
        return new TableStatus.Totals(commits, failed, 0, Optional.empty(), conflicts, 0, Optional.empty(),
                Duration.ZERO, Duration.ZERO, files, 2_500_000, rows, 4);
    }

    @Test
    void the_line_tells_the_rate_the_commits_the_backlog_and_the_committed_offsets() {
        TableStatusLine line = new TableStatusLine("lake", 0);
        List<PartitionStatus> partitions = List.of(partition(0, true, 41, 50), partition(1, true, 99, 99),
                partition(2, false, 7, 12));

        String first = line.next(status(200, partitions), totals(5, 2, 3, 6, 180), TimeUnit.SECONDS.toNanos(2));
        String second = line.next(status(500, partitions), totals(6, 2, 3, 7, 480), TimeUnit.SECONDS.toNanos(5));

        assertThat(first).isEqualTo("status: table sink lake: 100 records/s, 5 commits, 180 rows, 6 data files"
                + " (2.50 MB), lag 14, 2 failed commits, 3 conflicts, 4 bad records, committed: app/events/0=41"
                + " app/events/1=99");
        assertThat(second).as("the rate is over the time since the previous line")
                .startsWith("status: table sink lake: 100 records/s, 6 commits, 480 rows, 7 data files");
    }

    @Test
    void a_member_that_owns_no_partition_tells_no_lag_instead_of_0() {
        List<PartitionStatus> none = List.of(partition(0, false, -1, -1), partition(1, false, -1, -1));

        assertThat(TableStatusLine.line("lake", 0, status(0, none), totals(0, 0, 0, 0, 0)))
                .contains(", lag n/a (no partition owned), ");
        assertThat(TableStatusLine.line("lake", 0, status(0, List.of(partition(0, true, -1, -1))),
                totals(0, 0, 0, 0, 0))).as("an owned partition that is empty is caught up").contains(", lag 0, ");
        assertThat(LagText.of(0, 0)).as("the object sink's line").isEqualTo("n/a (no partition owned)");
        assertThat(LagText.of(12, 3)).isEqualTo("12");
    }

    @Test
    @Timeout(120)
    void run_logs_it_every_status_interval_once_the_start_checks_passed(@TempDir Path dir) throws Exception {
        String db = dir.resolve("c.db").toString();
        Catalog catalog = TableSinkFiles.openSqlite(db, dir.resolve("warehouse"));
        catalog.createTable(TableIdentifier.parse("lake.events"), new Schema(
                Types.NestedField.required(1, "iggy_offset", Types.LongType.get())), PartitionSpec.unpartitioned());
        Path file = dir.resolve("lake.toml");
        // Iggy cannot be reached: the loops retry it while the status line goes on.
        Files.writeString(file, TableSinkFiles.text(TableSinkFiles.stream("app", List.of("events"), "sink"),
                "\"lake.events\"", TableSinkFiles.sqliteCatalog(db, dir.resolve("warehouse")),
                "[iggy]\naddress = \"127.0.0.1:1\"\n"), StandardCharsets.UTF_8);
        TableConnectorConfig config = TableConnectorReader.load(file, Map.of()).connector().orElseThrow();
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger logger = (Logger) LoggerFactory.getLogger(TableSinkRunner.class);
        logger.addAppender(logs);
        TableSinkRunner runner = new TableSinkRunner(config);
        StartupProgress progress = new StartupProgress(List.of("lake"));
        try {
            CompletableFuture<Integer> running = CompletableFuture.supplyAsync(() -> {
                try {
                    return runner.start(new StartupChecks(true, Duration.ofSeconds(10), runner::stopRequested,
                            progress), progress, Duration.ofMillis(200));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(60)).until(() -> logs.list.stream()
                    .filter(e -> e.getFormattedMessage().startsWith("status: table sink lake: ")).count() >= 2);
            assertThat(runner.started()).isTrue();
            assertThat(progress.reasons()).as("started: nothing is waited for").isEmpty();
            runner.requestStop();
            running.get(60, TimeUnit.SECONDS);
        } finally {
            logger.detachAppender(logs);
            ((AutoCloseable) catalog).close();
        }
        assertThat(logs.list).map(ILoggingEvent::getFormattedMessage)
                .filteredOn(m -> m.startsWith("status: "))
                .allMatch(m -> m.startsWith("status: table sink lake: 0 records/s, 0 commits, 0 rows, 0 data files"))
                .as("no poll answered: no partition is this member's, so its lag is not known")
                .allMatch(m -> m.contains(", lag n/a (no partition owned), "));
    }
}
