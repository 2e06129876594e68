package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The table sink under the launcher's default heap (bin/iggy-s3-sink: -Xmx256m -Xms48m -Xmn24m, the serial
 * collector) and the table defaults (max_buffered_bytes, max_file_size, commit_interval): a backlog of 200,000 records
 * of 1 KiB over 8 partitions, not compressible to nothing, goes into the table without an OutOfMemoryError, every
 * offset exactly once.
 */
class TableSmallHeapIT extends E2eTest {
    private static final String TOPIC = "clicks";
    private static final String TABLE = "lake.clicks";
    private static final int PARTITIONS = 8;
    private static final int PER_PARTITION = 25_000;
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

    @Test
    @Timeout(420)
    void with_the_launchers_256_mib_heap_and_the_default_budget_200k_records_of_1_kib_land_exactly_once()
            throws Exception {
        try (TableCatalog catalog = TableCatalog.sqlite(fx)) {
            catalog.createTable(TABLE, TableCatalog.clicksSchema());
            fx.topic(TOPIC, PARTITIONS);
            for (int p = 0; p < PARTITIONS; p++) {
                SplittableRandom random = new SplittableRandom(p);
                fx.producer.sendJson(fx.stream, TOPIC, p, PER_PARTITION,
                        i -> "{\"round\":" + i + ",\"page\":\"" + text(random, 1000) + "\"}");
            }
            Path config = config(catalog);
            // the launcher's heap and collector (distribution/src/dist/bin/iggy-s3-sink); an OutOfMemoryError ends
            // the process at once, so that it cannot go unnoticed
            List<String> cmd = new ArrayList<>(List.of(SinkProcess.javaBinary(), "-Xmx256m", "-Xms48m", "-Xmn24m",
                    "-XX:+UseSerialGC", "-XX:PretenureSizeThreshold=60k", "-XX:+ExitOnOutOfMemoryError", "-jar",
                    SinkProcess.jar().toString(), "run", "--config", config.toString(), "--status-interval", "5s"));
            long total = (long) PARTITIONS * PER_PARTITION;
            try (SinkProcess sink = SinkProcess.start(cmd, fx.log("table-small-heap"), Map.of())) {
                await().atMost(Duration.ofSeconds(300)).pollInterval(Duration.ofSeconds(1))
                        .until(() -> !sink.alive() || catalog.totalRecords(TABLE) >= total);
                assertThat(sink.alive()).as("the sink runs; log:\n%s", tail(sink.logText())).isTrue();
                sink.terminate();
                assertThat(sink.waitFor(Duration.ofSeconds(60))).as(tail(sink.logText())).isZero();
                assertThat(sink.logText()).doesNotContain("OutOfMemoryError");
            }

            E2eFixture.AuditResult audit = fx.audit(config);
            assertThat(audit.exitCode()).as(audit.output()).isZero();
            Map<Integer, Map<Long, Integer>> copies = catalog.copies(TABLE);
            assertThat(copies.keySet()).hasSize(PARTITIONS);
            for (int p = 0; p < PARTITIONS; p++) {
                Map<Long, Integer> held = copies.get(p);
                assertThat(held).as("offsets of partition %d", p).hasSize(PER_PARTITION);
                assertThat(held.keySet()).as("partition %d", p).allMatch(o -> o >= 0 && o < PER_PARTITION);
                assertThat(held.values()).as("copies per offset of partition %d", p).allMatch(n -> n == 1);
            }
        }
    }

    /** Text of letters drawn at random: zstd makes little of it, as of real payloads. */
    private static String text(SplittableRandom random, int length) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) out[i] = (byte) ALPHABET.charAt(random.nextInt(ALPHABET.length()));
        return new String(out, StandardCharsets.US_ASCII);
    }

    private static String tail(String log) {
        return log.length() <= 20_000 ? log : log.substring(log.length() - 20_000);
    }

    private Path config(TableCatalog catalog) throws java.io.IOException {
        // every table key at its default but the catalog's
        return fx.tableSink(TOPIC, TABLE, "lake_sink").catalog(catalog).write("small_heap_iceberg_sink");
    }
}
