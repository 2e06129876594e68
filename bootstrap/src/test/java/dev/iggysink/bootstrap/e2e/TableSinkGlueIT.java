package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Iceberg table sink end to end with the fat jar on a Glue catalog: Iceberg's GlueCatalog against moto's server,
 * the warehouse on MinIO. The sink is killed with -9 mid-stream while records keep arriving and started again; read
 * back through Iceberg's own reader every offset is in the table exactly once, {@code audit} agrees and the group's
 * offsets are at the end. One member at a time: moto does not check Glue's {@code VersionId} on UpdateTable, so two
 * members committing at the same instant could overwrite each other there, which AWS Glue refuses (the refusal of a
 * commit made on stale metadata, which moto does check, is proven in GlueTablesIT and GlueCatalogsIT).
 */
class TableSinkGlueIT extends E2eTest {
    private static final String TOPIC = "views";
    private static final String TABLE = "lake.views";
    private static final int PARTITIONS = 3;

    @Test
    @Timeout(300)
    void on_glue_a_kill_9_and_a_restart_leave_every_offset_in_the_table_exactly_once() throws Exception {
        try (TableCatalog catalog = TableCatalog.glue(fx)) {
            catalog.createTable(TABLE, TableCatalog.clicksSchema());
            fx.topic(TOPIC, PARTITIONS);
            Path config = fx.tableSink(TOPIC, TABLE, "glue_sink").catalog(catalog).batchLength(500).plugin("""
                    commit_interval = "1s"
                    max_messages_per_file = 60
                    """).write("glue_iceberg_sink");
            long perPartition;
            Rounds rounds = Rounds.start(fx, TOPIC, PARTITIONS, 20, 400, Rounds.PAGES);
            try (SinkProcess first = SinkProcess.run(config, fx.log("glue-first"), Map.of())) {
                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                        .until(() -> catalog.rows(TABLE) > 0);
                rounds.awaitMore(10);
                first.kill9();
            }
            rounds.awaitMore(5);
            try (SinkProcess second = SinkProcess.run(config, fx.log("glue-second"), Map.of())) {
                rounds.awaitMore(10);
                perPartition = rounds.finish();
                long total = perPartition * PARTITIONS;
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                        .until(() -> catalog.rows(TABLE) >= total);
                second.terminate();
                assertThat(second.waitFor(Duration.ofSeconds(60))).as("graceful stop:\n%s", second.logText())
                        .isZero();
            }
            fx.assertTableComplete(config, catalog, TABLE, TOPIC, "glue_sink", PARTITIONS, perPartition);
        }
    }
}
