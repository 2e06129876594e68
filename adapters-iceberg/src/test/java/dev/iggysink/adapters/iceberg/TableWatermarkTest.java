package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watermark a commit leaves in the snapshot summary (issue 44 item 2), on a real catalog (JDBC on SQLite, a local
 * warehouse), read back with Iceberg's own API and compared with the {@code iggy_timestamp} of the rows Iceberg's
 * reader returns: every record stamped before the watermark is a row of the table.
 */
class TableWatermarkTest {
    private static final String TABLE = "lake.events";
    private static final String WATERMARK = "iggy.watermark.sink.app.events";
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);
    private static final PartitionRef P1 = new PartitionRef("app", "events", 1);
    private static final long TEN = at("2026-12-05T10:00:00Z");
    private static final long MINUTE = 60_000_000L;

    @TempDir
    Path dir;

    private record Decoded(SinkRecord source) implements DecodedRecord {
        @Override
        public Optional<String> fieldText(String dottedPath) {
            return Optional.empty();
        }
    }

    private static long at(String iso) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse(iso));
    }

    /** The topic as Iggy holds it: partition 0 stamped every 10 minutes from 10:00, partition 1 from 10:05. */
    private static SinkRecord record(PartitionRef p, long offset) {
        long time = TEN + (p.partitionId() * 5 + offset * 10) * MINUTE;
        return new SinkRecord(p, offset, time, time, new MessageId(0, offset + 1), List.of(),
                ("{\"user\":\"u" + offset + "\"}").getBytes(StandardCharsets.UTF_8));
    }

    private static TableStore.Append append(IcebergTables store, PartitionRef p, long expected, long last)
            throws Exception {
        TableStore.RowFile file = store.newFile(TABLE);
        for (long o = expected + 1; o <= last; o++) file.append(new Decoded(record(p, o)));
        return new TableStore.Append(p, expected, last, List.of(file.stage()));
    }

    private static TableStore.Times times(Map<Integer, Long> completeBefore) {
        return new TableStore.Times("app", "events", 2, completeBefore);
    }

    @Test
    void the_watermark_in_the_snapshot_is_the_least_partition_time_and_every_row_before_it_is_in_the_table()
            throws Exception {
        CatalogSettings settings = LocalWarehouseTest.sqlite(dir.resolve("catalog.db"), dir.resolve("wh").toString());
        TableTemplate template = new TableTemplate(List.of("user string required"), List.of());
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink", Optional.of(template))) {
            store.open(TABLE);
            // partition 0 up to offset 2 (10:20); nothing known of partition 1 yet: no watermark
            TableStore.CommitResult first = store.commit(TABLE, List.of(append(store, P0, -1, 2)),
                    times(Map.of(0, record(P0, 2).timestampMicros())));
            assertThat(first.watermarkMicros()).isEmpty();
            assertThat(store.watermark(TABLE, "app", "events")).isEmpty();

            // partition 1 up to offset 3 (10:05 to 10:35), idle when its end was read at 10:40
            long idle = TEN + 40 * MINUTE - 5_000_000L;
            TableStore.CommitResult second = store.commit(TABLE, List.of(append(store, P1, -1, 3)),
                    times(Map.of(1, idle)));
            assertThat(second.watermarkMicros()).hasValue(record(P0, 2).timestampMicros());
            check(settings, record(P0, 2).timestampMicros());

            // a member that lost partition 0 commits it late beside partition 1's next record (10:45, idle again
            // at 10:50): partition 0 is refused, and its time does not count
            long idleAgain = TEN + 50 * MINUTE - 5_000_000L;
            TableStore.CommitResult stale = store.commit(TABLE, List.of(append(store, P0, -1, 1),
                    append(store, P1, 3, 4)), times(Map.of(0, TEN + 100 * MINUTE, 1, idleAgain)));
            assertThat(stale.refused()).containsKey(P0);
            assertThat(stale.committed()).containsExactly(P1);
            check(settings, record(P0, 2).timestampMicros());

            // partition 0 up to 10:50: the idle partition 1 now holds the watermark
            TableStore.CommitResult third = store.commit(TABLE, List.of(append(store, P0, 2, 5)),
                    times(Map.of(0, record(P0, 5).timestampMicros())));
            assertThat(third.watermarkMicros()).hasValue(idleAgain);
            assertThat(store.watermark(TABLE, "app", "events")).hasValue(idleAgain);
            check(settings, idleAgain);

            // another writer's snapshot (a compaction, say) between: looked through, and carried forward by the next
            // commit, which names partition 1 only
            Catalog other = IcebergCatalogs.open(settings);
            try {
                other.loadTable(TableIdentifier.parse(TABLE)).newFastAppend().set("by", "another writer").commit();
            } finally {
                ((AutoCloseable) other).close();
            }
            assertThat(store.watermark(TABLE, "app", "events")).hasValue(idleAgain);
            long later = TEN + 70 * MINUTE;
            TableStore.CommitResult fourth = store.commit(TABLE, List.of(append(store, P1, 4, 5)),
                    times(Map.of(1, later)));
            assertThat(fourth.watermarkMicros()).hasValue(record(P0, 5).timestampMicros());
            check(settings, record(P0, 5).timestampMicros());
        }
    }

    /**
     * Reads the watermark from the current snapshot's summary with a catalog client of its own, and the rows with
     * Iceberg's reader: every record of the topic stamped before the watermark is a row, with that time.
     */
    private static void check(CatalogSettings settings, long expected) throws Exception {
        Catalog reader = IcebergCatalogs.open(settings);
        try {
            Table t = reader.loadTable(TableIdentifier.parse(TABLE));
            String text = t.currentSnapshot().summary().get(WATERMARK);
            assertThat(text).as("the snapshot's %s", WATERMARK).isNotNull();
            long watermark = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse(text));
            assertThat(watermark).isEqualTo(expected);
            TreeSet<String> rows = new TreeSet<>();
            try (CloseableIterable<Record> read = IcebergGenerics.read(t).build()) {
                for (Record r : read) {
                    long time = ChronoUnit.MICROS.between(Instant.EPOCH,
                            ((OffsetDateTime) r.getField("iggy_timestamp")).toInstant());
                    rows.add(r.getField("iggy_partition_id") + ":" + r.getField("iggy_offset") + "@" + time);
                }
            }
            List<String> before = new ArrayList<>();
            for (PartitionRef p : List.of(P0, P1)) {
                for (long o = 0; o < 6; o++) {
                    if (p == P1 && o > 5) continue; // partition 1 holds offsets 0-5
                    SinkRecord r = record(p, o);
                    if (r.timestampMicros() < watermark) {
                        before.add(p.partitionId() + ":" + o + "@" + r.timestampMicros());
                    }
                }
            }
            assertThat(before).as("records stamped before the watermark %s", text).isNotEmpty();
            assertThat(rows).as("rows read back; watermark %s", text).containsAll(before);
        } finally {
            ((AutoCloseable) reader).close();
        }
    }
}
