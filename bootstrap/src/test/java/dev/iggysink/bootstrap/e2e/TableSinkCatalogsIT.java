package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Iceberg table sink end to end with the fat jar on the production catalogs: JDBC on a real PostgreSQL, and
 * Apache Iceberg's REST catalog server reached over HTTP; the warehouse on MinIO in both. Two members of one consumer
 * group share the table while records keep arriving; one is killed with -9 mid-stream, the other finishes. Read back
 * through Iceberg's own reader, every offset is in the table exactly once, {@code audit} agrees and the group's
 * offsets are at the end. (TableSinkIT runs the longer three-member scenario on SQLite.)
 */
class TableSinkCatalogsIT extends E2eTest {
    private static final String TOPIC = "clicks";
    private static final String TABLE = "lake.clicks";
    private static final int PARTITIONS = 4;
    private static final int PER_ROUND = 20;
    private static final int MAX_ROUNDS = 400;

    @Test
    @Timeout(300)
    void on_postgresql_two_members_and_a_kill_9_leave_every_offset_in_the_table_exactly_once() throws Exception {
        try (TableCatalog catalog = TableCatalog.postgres(fx)) {
            twoMembersAndAKill9(catalog, "pg");
        }
    }

    @Test
    @Timeout(300)
    void on_the_rest_catalog_two_members_and_a_kill_9_leave_every_offset_in_the_table_exactly_once()
            throws Exception {
        try (TableCatalog catalog = TableCatalog.rest(fx)) {
            twoMembersAndAKill9(catalog, "rest");
        }
    }

    private void twoMembersAndAKill9(TableCatalog catalog, String name) throws Exception {
        catalog.createTable(TABLE, TableCatalog.clicksSchema());
        fx.topic(TOPIC, PARTITIONS);
        Path config = config(catalog, name);
        long perPartition;
        try (SinkProcess a = SinkProcess.run(config, fx.log(name + "-a"), Map.of());
             SinkProcess b = SinkProcess.run(config, fx.log(name + "-b"), Map.of())) {
            Rounds rounds = Rounds.start(fx, TOPIC, PARTITIONS, PER_ROUND, MAX_ROUNDS, Rounds.PAGES);
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> catalog.rows(TABLE) > 0);
            rounds.awaitMore(10);
            a.kill9();
            rounds.awaitMore(10);
            perPartition = rounds.finish();
            long total = perPartition * PARTITIONS;
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                    .until(() -> catalog.rows(TABLE) >= total);
            b.terminate();
            assertThat(b.waitFor(Duration.ofSeconds(60))).as("graceful stop of b:\n%s", b.logText()).isZero();
        }

        fx.assertTableComplete(config, catalog, TABLE, TOPIC, "lake_sink", PARTITIONS, perPartition);
    }

    private Path config(TableCatalog catalog, String name) throws IOException {
        return fx.tableSink(TOPIC, TABLE, "lake_sink").catalog(catalog).batchLength(500).plugin("""
                commit_interval = "1s"
                max_messages_per_file = 60
                """).write(name + "_iceberg_sink");
    }
}
