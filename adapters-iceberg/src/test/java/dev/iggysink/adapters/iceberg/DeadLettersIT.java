package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.application.table.TableAudit;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.testkit.s3.MinioServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table sink's dead letters on a real MinIO: written below the warehouse through the catalog's S3FileIO, where
 * the object sink would put them, read back with MinIO's own client, rewritten in place by a replay and listed for
 * {@code audit}.
 */
class DeadLettersIT {
    private static final PartitionRef P3 = new PartitionRef("app", "events", 3);

    @TempDir
    Path dir;

    private static SinkRecord record(long offset, String payload) {
        return new SinkRecord(P3, offset, 1_765_000_000_000_000L, 0, new MessageId(0, offset + 1), List.of(),
                payload.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void a_dead_letter_lands_below_the_warehouse_and_a_replay_rewrites_the_same_object() throws Exception {
        MinioWarehouse warehouse = MinioWarehouse.create("deadletters");
        Map<String, String> s3 = warehouse.fileIoProperties();
        CatalogSettings settings = new CatalogSettings("jdbc", "dlq_" + System.nanoTime(),
                "jdbc:sqlite:file:" + dir.resolve("catalog.db"), warehouse.location("wh"), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(s3.get("s3.endpoint")), Optional.of(s3.get("s3.access-key-id")),
                Optional.of(Secret.of(s3.get("s3.secret-access-key"))), Optional.of(s3.get("client.region")), true);
        SinkRecord bad = record(42, "{\"n\":\"x\"}");
        String key = DeadLetters.key("", "_dlq", bad);
        try (IcebergTables store = IcebergTables.open(settings, "g", Optional.empty())) {
            store.writeDeadLetter(key, DeadLetters.content(bad, "table lake.events: field 'n' is not a long"));
            store.writeDeadLetter(key, DeadLetters.content(bad, "table lake.events: field 'n' is not a long (again)"));
            store.writeDeadLetter(DeadLetters.key("", "_dlq", record(7, "{}")), DeadLetters.content(record(7, "{}"),
                    "no table"));

            assertThat(warehouse.keysUnder(warehouse.location("wh/_dlq/"))).containsExactlyInAnyOrder(
                    "wh/_dlq/app/events/00003-00000000000000000042.json",
                    "wh/_dlq/app/events/00003-00000000000000000007.json");
            String body = MinioServer.shared().client().getObjectAsBytes(b -> b.bucket(warehouse.bucket())
                    .key("wh/" + key)).asUtf8String();
            assertThat(body).contains("\"offset\":42").contains("is not a long (again)")
                    .contains("\"payload_base64\":\"eyJuIjoieCJ9\"");

            String prefix = TableAudit.deadLetterPrefix("_dlq", "app", "events");
            List<String> keys = store.deadLetterKeys(prefix);
            assertThat(TableAudit.deadLettered(keys, prefix, 3)).containsExactly(7L, 42L);
            assertThat(store.deadLetterKeys(TableAudit.deadLetterPrefix("_dlq", "app", "other"))).isEmpty();
        }
    }

    @Test
    void a_rest_catalog_named_warehouse_keeps_dead_letters_at_its_dlq_location_on_minio() throws Exception {
        MinioWarehouse warehouse = MinioWarehouse.create("dlqlocation");
        Map<String, String> s3 = warehouse.fileIoProperties();
        // the warehouse is a REST catalog's name: no location, only dlq_location gives dead letters a place
        CatalogSettings settings = new CatalogSettings("rest", "rest", "http://127.0.0.1:1/", "warehouse",
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(s3.get("s3.endpoint")), Optional.of(s3.get("s3.access-key-id")),
                Optional.of(Secret.of(s3.get("s3.secret-access-key"))), Optional.of(s3.get("client.region")), true,
                Optional.of(warehouse.location("dead-letters") + "/"));
        SinkRecord bad = record(42, "{\"n\":\"x\"}");
        String key = DeadLetters.key("", "errs", bad);
        try (IcebergTables store = new IcebergTables(null, "g", Optional.empty(),
                WarehouseFiles.of(settings, "errs"))) {
            store.writeDeadLetter(key, DeadLetters.content(bad, "table lake.events: field 'n' is not a long"));

            // dlq_prefix is not added below the dlq_location
            assertThat(warehouse.keysUnder(warehouse.location("dead-letters/"))).containsExactly(
                    "dead-letters/app/events/00003-00000000000000000042.json");
            String body = MinioServer.shared().client().getObjectAsBytes(b -> b.bucket(warehouse.bucket())
                    .key("dead-letters/app/events/00003-00000000000000000042.json")).asUtf8String();
            assertThat(body).contains("\"offset\":42").contains("is not a long");

            String prefix = TableAudit.deadLetterPrefix("errs", "app", "events");
            assertThat(store.deadLetterKeys(prefix)).containsExactly(key);
            assertThat(TableAudit.deadLettered(store.deadLetterKeys(prefix), prefix, 3)).containsExactly(42L);
        }
    }
}
