package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
        AtomicInteger rounds = new AtomicInteger();
        AtomicBoolean enough = new AtomicBoolean();
        long perPartition;
        try (SinkProcess a = SinkProcess.run(config, fx.log(name + "-a"), Map.of());
             SinkProcess b = SinkProcess.run(config, fx.log(name + "-b"), Map.of())) {
            CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> produce(rounds, enough));
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> catalog.rows(TABLE) > 0);
            awaitRounds(rounds, rounds.get() + 10);
            a.kill9();
            awaitRounds(rounds, rounds.get() + 10);
            enough.set(true);
            producing.get(60, TimeUnit.SECONDS);
            perPartition = (long) rounds.get() * PER_ROUND;
            long total = perPartition * PARTITIONS;
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                    .until(() -> catalog.rows(TABLE) >= total);
            b.terminate();
            assertThat(b.waitFor(Duration.ofSeconds(60))).as("graceful stop of b:\n%s", b.logText()).isZero();
        }

        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).contains("AUDIT OK: every committed offset is in its tables exactly once");

        Map<Integer, Map<Long, Integer>> copies = catalog.copies(TABLE);
        assertThat(copies.keySet()).as("partitions in the table").containsExactly(0, 1, 2, 3);
        List<Long> expected = new ArrayList<>();
        for (long o = 0; o < perPartition; o++) expected.add(o);
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(copies.get(p).keySet()).as("offsets of partition %d", p).containsExactlyElementsOf(expected);
            int partition = p;
            assertThat(copies.get(p)).as("copies per offset of partition %d", p)
                    .allSatisfy((offset, n) -> assertThat(n).as("copies of %d/%d", partition, offset).isOne());
        }
        // the group's offsets as `audit` reads them, through an S3 sink file naming the same group
        Path s3 = fx.config(List.of(TOPIC), "json", "");
        Files.writeString(s3, Files.readString(s3).replace("consumer_group = \"s3_sink\"",
                "consumer_group = \"lake_sink\""));
        Map<Integer, Long> committed = fx.committedOffsets(s3);
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(committed.get(p)).as("group offset of partition %d", p).isEqualTo(perPartition - 1);
        }
    }

    private Path config(TableCatalog catalog, String name) throws IOException {
        String toml = """
                type = "sink"
                key = "lake"
                enabled = true
                version = 0
                name = "Iceberg sink"
                path = "target/release/libiggy_connector_iceberg_sink"

                [iggy]
                address = "%s"
                username = "iggy"
                password = "iggy"

                [[streams]]
                stream = "%s"
                topics = ["%s"]
                schema = "json"
                batch_length = 500
                poll_interval = "5ms"
                consumer_group = "lake_sink"

                [plugin_config]
                tables = ["%s"]
                %scommit_interval = "1s"
                max_messages_per_file = 60

                [admin]
                address = "off"
                """.formatted(fx.iggy.address(), fx.stream, TOPIC, TABLE, catalog.pluginLines());
        Path file = fx.dir.resolve(name + "_iceberg_sink.toml");
        Files.writeString(file, toml, StandardCharsets.UTF_8);
        return file;
    }

    private void produce(AtomicInteger rounds, AtomicBoolean enough) {
        try {
            for (int r = 0; r < MAX_ROUNDS && !enough.get(); r++) {
                int round = r;
                for (int p = 0; p < PARTITIONS; p++) {
                    fx.producer.sendJson(fx.stream, TOPIC, p, PER_ROUND,
                            i -> "{\"round\":" + round + ",\"page\":\"/p/" + i + "\"}");
                }
                rounds.incrementAndGet();
                Thread.sleep(150);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void awaitRounds(AtomicInteger rounds, int n) {
        await().atMost(Duration.ofSeconds(60)).until(() -> rounds.get() >= n);
    }
}
