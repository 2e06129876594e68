package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The table sink under the launcher's default heap (bin/iggy-s3-sink: -Xmx256m -Xms48m -Xmn24m, the serial
 * collector) and the table defaults (max_buffered_bytes, max_file_size, commit_interval): a backlog of records not
 * compressible to nothing goes into the table without an OutOfMemoryError, every offset exactly once and every value
 * whole: of 1 KiB (200,000 over 8 partitions), and of 4 MiB, whose pages Parquet would cut after 100 rows and whose
 * first poll would be sized by a guess.
 */
class TableSmallHeapIT extends E2eTest {
    private static final String TOPIC = "clicks";
    private static final String TABLE = "lake.clicks";
    private static final int PARTITIONS = 8;
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

    @Test
    @Timeout(420)
    void with_the_launchers_256_mib_heap_and_the_default_budget_200k_records_of_1_kib_land_exactly_once()
            throws Exception {
        backlogLandsExactlyOnce(PARTITIONS, 0, 25_000, 1000, 1000, List.of(), "table-small-heap");
    }

    @Test
    @Timeout(420)
    void with_the_launchers_256_mib_heap_records_of_4_mib_land_exactly_once_and_whole() throws Exception {
        backlogLandsExactlyOnce(PARTITIONS, 0, 12, 4 << 20, 2, List.of(), "table-small-heap-4mib");
    }

    @Test
    @Timeout(420)
    void a_first_poll_of_records_of_4_mib_does_not_run_the_launchers_heap_out() throws Exception {
        // a first poll sized by a guess of 64 KiB a record asks 256 of them: all 80 here, 320 MiB on a 256 MiB heap
        backlogLandsExactlyOnce(1, 0, 80, 4 << 20, 2, List.of(), "table-small-heap-first-poll");
    }

    @Test
    @Timeout(420)
    void records_that_grow_at_once_from_100_bytes_to_4_mib_are_read_on() throws Exception {
        // polls sized by 10 small records ask for batch_length records: of 4 MiB, more than the client's direct
        // memory takes in, refused alike on every retry unless the next poll asks for less (the direct memory capped
        // at 64 MiB, so that the broker in this JVM answers that poll with 100 MB, not 335 as at 256 MiB)
        backlogLandsExactlyOnce(1, 10, 24, 4 << 20, 2, List.of("-XX:MaxDirectMemorySize=64m"),
                "table-small-heap-grow");
    }

    /**
     * Sends to each partition {@code small} records of a page of 80 letters, then perPartition of a page of pageLength
     * letters, sendBatch a send; runs the sink and checks.
     */
    private void backlogLandsExactlyOnce(int partitions, int small, int perPartition, int pageLength, int sendBatch,
            List<String> jvmExtra, String logName) throws Exception {
        try (TableCatalog catalog = TableCatalog.sqlite(fx)) {
            catalog.createTable(TABLE, TableCatalog.clicksSchema());
            fx.topic(TOPIC, partitions);
            for (int p = 0; p < partitions; p++) {
                SplittableRandom random = new SplittableRandom(p);
                List<byte[]> batch = new ArrayList<>();
                for (int i = 0; i < small; i++) {
                    batch.add(("{\"round\":" + i + ",\"page\":\"" + text(random, 80) + "\"}")
                            .getBytes(StandardCharsets.US_ASCII));
                }
                if (!batch.isEmpty()) fx.producer.send(fx.stream, TOPIC, p, batch);
                batch.clear();
                for (int i = 0; i < perPartition; i++) {
                    batch.add(("{\"round\":" + i + ",\"page\":\"" + text(random, pageLength) + "\"}")
                            .getBytes(StandardCharsets.US_ASCII));
                    if (batch.size() == sendBatch || i == perPartition - 1) {
                        fx.producer.send(fx.stream, TOPIC, p, batch);
                        batch.clear();
                    }
                }
            }
            Path config = config(catalog);
            // the launcher's heap and collector (distribution/src/dist/bin/iggy-s3-sink); an OutOfMemoryError ends
            // the process at once, so that it cannot go unnoticed
            List<String> cmd = new ArrayList<>(List.of(SinkProcess.javaBinary(), "-Xmx256m", "-Xms48m", "-Xmn24m",
                    "-XX:+UseSerialGC", "-XX:PretenureSizeThreshold=60k", "-XX:MinHeapFreeRatio=20",
                    "-XX:+ExitOnOutOfMemoryError"));
            cmd.addAll(jvmExtra);
            cmd.addAll(List.of("-jar", SinkProcess.jar().toString(), "run", "--config", config.toString(),
                    "--status-interval", "5s"));
            long total = (long) partitions * (small + perPartition);
            try (SinkProcess sink = SinkProcess.start(cmd, fx.log(logName), Map.of())) {
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
            assertThat(copies.keySet()).hasSize(partitions);
            for (int p = 0; p < partitions; p++) {
                Map<Long, Integer> held = copies.get(p);
                assertThat(held).as("offsets of partition %d", p).hasSize(small + perPartition);
                assertThat(held.keySet()).as("partition %d", p).allMatch(o -> o >= 0 && o < small + perPartition);
                assertThat(held.values()).as("copies per offset of partition %d", p).allMatch(n -> n == 1);
            }
            assertThat(pageLengths(catalog)).as("lengths of the pages read back")
                    .isEqualTo(small > 0 ? Set.of(80, pageLength) : Set.of(pageLength));
        }
    }

    /** The length of every row's page, read by Iceberg's own reader. */
    private static Set<Integer> pageLengths(TableCatalog catalog) throws IOException {
        Set<Integer> lengths = new HashSet<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(catalog.table(TABLE)).select("page").build()) {
            for (Record r : rows) lengths.add(((CharSequence) r.getField("page")).length());
        }
        return lengths;
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

    private Path config(TableCatalog catalog) throws IOException {
        // every table key at its default but the catalog's
        return fx.tableSink(TOPIC, TABLE, "lake_sink").catalog(catalog).write("small_heap_iceberg_sink");
    }
}
