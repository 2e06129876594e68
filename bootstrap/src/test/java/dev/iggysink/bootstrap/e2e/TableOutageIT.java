package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.testkit.s3.MinioServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The table sink with the fat jar through a 30 s outage of its REST catalog and then of MinIO (its warehouse store):
 * a few log lines per outage, not one per poll; {@code /health} degraded naming what fails within the documented
 * time, ok again after; every record in the table exactly once at the end (Iceberg's own reader).
 */
class TableOutageIT {
    private static final String TOPIC = "clicks";
    private static final String TABLE = "lake.clicks";
    private static final int PARTITIONS = 2;
    private static final int PER_ROUND = 100;
    private static final Duration OUTAGE = Duration.ofSeconds(30);
    /** The longest a sink may take to tell /health of an outage: docs/tables.md ("Outages"). */
    private static final Duration HEALTH_WITHIN = Duration.ofSeconds(15);

    private E2eFixture fx;
    private TableCatalog catalog;

    @BeforeEach
    void setUp() throws Exception {
        // A MinIO of its own: this test stops and restarts it.
        fx = new E2eFixture(MinioServer.start(), true);
        catalog = TableCatalog.rest(fx);
        catalog.createTable(TABLE, TableCatalog.clicksSchema());
    }

    @AfterEach
    void tearDown() throws Exception {
        if (catalog != null) catalog.close();
        fx.close();
    }

    private void send(int round) {
        for (int p = 0; p < PARTITIONS; p++) {
            fx.producer.sendJson(fx.stream, TOPIC, p, PER_ROUND, i -> "{\"round\":" + round + ",\"page\":\"/p/" + i
                    + "\"}");
        }
    }

    private static String health(int port) {
        HttpResponse<String> r = E2eFixture.admin(port, "/health");
        return r == null ? "no answer" : r.statusCode() + " " + r.body();
    }

    private static long lines(SinkProcess sink) {
        return sink.logText().lines().count();
    }

    /** Holds the outage for {@link #OUTAGE}; returns the sink's log lines written meanwhile. */
    private long outage(SinkProcess sink, int port, String naming) throws InterruptedException {
        long before = lines(sink);
        long started = System.nanoTime();
        await().atMost(HEALTH_WITHIN).pollInterval(Duration.ofMillis(500))
                .until(() -> health(port).startsWith("503") && health(port).contains(naming));
        Thread.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - started) / 1_000_000));
        assertThat(sink.alive()).isTrue();
        return lines(sink) - before;
    }

    @Test
    @Timeout(400)
    void a_30_s_catalog_outage_and_a_30_s_store_outage_are_a_few_log_lines_a_degraded_health_and_lose_nothing()
            throws Exception {
        Assumptions.assumeTrue(fx.minio.managed(), "needs a MinIO this test can stop (not S3_TEST_ENDPOINT)");
        fx.topic(TOPIC, PARTITIONS);
        int port = E2eFixture.freePort();
        Path config = fx.tableSink(TOPIC, TABLE, "lake_sink").catalog(catalog).admin(port).plugin("""
                commit_interval = "1s"
                """).write("iceberg_outage");
        try (SinkProcess sink = SinkProcess.run(config, fx.log("table-outage"), Map.of())) {
            send(0);
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> catalog.rows(TABLE) >= PER_ROUND * PARTITIONS);
            assertThat(health(port)).startsWith("200");

            catalog.stopServer();
            send(1);
            long catalogLines = outage(sink, port, "catalog http://127.0.0.1:");
            catalog.restartServer();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> catalog.rows(TABLE) >= 2L * PER_ROUND * PARTITIONS && health(port).startsWith("200"));

            fx.minio.stop();
            send(2);
            long storeLines = outage(sink, port, "warehouse store");
            fx.minio.restart();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> catalog.rows(TABLE) >= 3L * PER_ROUND * PARTITIONS && health(port).startsWith("200"));

            // a few a second at most: the outage's first and last line, one summary per status interval, the
            // status lines themselves, and the commits it retries
            assertThat(catalogLines).as("log lines in the catalog outage:\n%s", sink.logText())
                    .isLessThanOrEqualTo(OUTAGE.toSeconds() * 2);
            assertThat(storeLines).as("log lines in the store outage:\n%s", sink.logText())
                    .isLessThanOrEqualTo(OUTAGE.toSeconds() * 2);
            assertThat(sink.logText()).contains("catalog http://127.0.0.1:").contains("recovered")
                    .contains("still failing after");
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        fx.assertTableComplete(config, catalog, TABLE, TOPIC, "lake_sink", PARTITIONS, 3L * PER_ROUND);
    }
}
