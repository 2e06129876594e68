package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code audit} of a table sink that routes by a record field: the sink ignores {@code tables} then, so the audit
 * checks the tables whose offset maps name the topic, their rows together, and not the table {@code tables} lists.
 */
class TableAuditRoutingIT extends SqliteTableTest {
    private static final String TOPIC = "routed";

    @Override
    void createTables(TableCatalog catalog) {
        for (String t : new String[] {"lake.left", "lake.right", "lake.listed"}) {
            catalog.createTable(t, TableCatalog.clicksSchema());
        }
    }

    @Test
    @Timeout(120)
    void audit_of_dynamic_routing_checks_the_tables_the_offset_maps_name_and_their_rows_together() throws Exception {
        fx.topic(TOPIC, 1);
        Path config = fx.tableSink(TOPIC, "lake.listed", "router").catalog(catalog).plugin("""
                commit_interval = "1s"
                dynamic_routing = true
                dynamic_route_field = "to"
                """).write("iceberg_routed");
        fx.producer.sendJson(fx.stream, TOPIC, 0, 30, i -> "{\"round\":0,\"page\":\"/p/" + i + "\",\"to\":\"lake."
                + (i % 3 == 0 ? "left" : "right") + "\"}");
        try (SinkProcess sink = SinkProcess.run(config, fx.log("table-routed"), Map.of())) {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> catalog.rows("lake.left") + catalog.rows("lake.right") >= 30
                            || sink.logText().contains("halted") || !sink.alive());
            assertThat(sink.alive()).as("the sink runs:\n%s", sink.logText()).isTrue();
            assertThat(sink.logText()).as("the sink's log").doesNotContain("halted");
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        assertThat(catalog.rows("lake.left")).isEqualTo(10);

        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("its tables are those whose offset map names it: [lake.left, lake.right]")
                .contains("/0 in lake.left+lake.right: committed=29 table=29 rows=30 gaps=[] overlaps=0")
                .doesNotContain("in lake.listed")
                .contains("AUDIT OK: every committed offset is in its tables exactly once");
    }
}
