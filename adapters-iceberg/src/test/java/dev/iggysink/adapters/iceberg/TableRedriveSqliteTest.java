package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.application.service.Redrive;
import dev.iggysink.application.service.TableRedrive;
import dev.iggysink.application.table.TableRouting;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A redriven record is the record it was (issue 48), on a real catalog (JDBC on SQLite, a local warehouse): the row a
 * dead letter becomes holds the record's origin timestamp, as the row written the first time would have. The table
 * sink has no column for headers.
 */
class TableRedriveSqliteTest {
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);
    private static final String TABLE = "lake.redriven";
    /** 2026-12-05T10:15:00Z */
    private static final long MICROS = 1_796_465_700_000_000L;
    /** Set by the producer, an hour and a half before Iggy stamped the record. */
    private static final long ORIGIN = MICROS - 5_400_000_000L;

    @TempDir
    Path dir;

    /** The payload as the row's JSON, with no transform: what the table sink's codec gives for a JSON stream. */
    private static final RecordCodec JSON = new RecordCodec() {
        @Override
        public DecodedRecord decode(SinkRecord record) {
            return new DecodedRecord() {
                @Override
                public SinkRecord source() {
                    return record;
                }

                @Override
                public Optional<String> fieldText(String dottedPath) {
                    return Optional.empty();
                }
            };
        }

        @Override
        public FileEncoder newFile() {
            throw new UnsupportedOperationException("a table sink writes no objects");
        }

        @Override
        public String extension() {
            return "json";
        }

        @Override
        public String contentType() {
            return "application/json";
        }
    };

    private static SinkRecord record(long offset, long origin) {
        return new SinkRecord(P0, offset, MICROS + offset, origin, new MessageId(0, offset + 1),
                List.of(RecordHeader.ofStrings("tenant", "acme")),
                ("{\"user\":\"u" + offset + "\"}").getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void a_redriven_row_holds_the_records_origin_timestamp() throws Exception {
        CatalogSettings settings = LocalWarehouseTest.sqlite(dir.resolve("redrive.db"),
                dir.resolve("warehouse").toString());
        try (IcebergTables store = IcebergTables.open(settings, "sink", Optional.of(
                new TableTemplate(List.of("user string", "iggy_origin_timestamp timestamptz"), List.of())), "_dlq")) {
            store.open(TABLE);
            TableStore.RowFile file = store.newFile(TABLE);
            file.append(JSON.decode(record(0, ORIGIN)));
            file.append(JSON.decode(record(2, ORIGIN + 2)));
            store.commit(TABLE, List.of(new TableStore.Append(P0, -1, 2, List.of(file.stage()))));
            SinkRecord bad = record(1, ORIGIN + 1);
            store.writeDeadLetter(DeadLetters.key("", "_dlq", bad),
                    DeadLetters.content(bad, "table lake.redriven: field 'user' is not a string"));

            List<Redrive.Outcome> outcomes = new TableRedrive(store, JSON, TableRouting.fixed(TABLE), "_dlq",
                    P0.stream(), P0.topic(), InstantSource.fixed(Instant.parse("2026-12-05T11:00:00Z")))
                    .run(p -> OptionalLong.of(2), Redrive.Filter.ALL, false);

            assertThat(outcomes).singleElement().extracting(Redrive.Outcome::action)
                    .isEqualTo(Redrive.Action.REDRIVEN);
        }
        Map<Long, OffsetDateTime> origins = new TreeMap<>();
        Catalog catalog = IcebergCatalogs.open(settings);
        try (CloseableIterable<Record> rows = IcebergGenerics.read(
                catalog.loadTable(TableIdentifier.parse(TABLE))).build()) {
            rows.forEach(r -> origins.put((Long) r.getField("iggy_offset"),
                    (OffsetDateTime) r.getField("iggy_origin_timestamp")));
        } finally {
            ((AutoCloseable) catalog).close();
        }
        assertThat(origins).containsExactlyEntriesOf(new TreeMap<>(Map.of(0L, at(ORIGIN), 1L, at(ORIGIN + 1),
                2L, at(ORIGIN + 2))));
    }

    private static OffsetDateTime at(long micros) {
        return Instant.EPOCH.plusNanos(micros * 1000).atOffset(ZoneOffset.UTC);
    }
}
