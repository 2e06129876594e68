package dev.iggysink.domain.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.buffer.OpenFile;
import dev.iggysink.domain.buffer.SealedFile;
import dev.iggysink.domain.delivery.DeliveryLedger;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.FieldLookup;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.domain.naming.PathTemplate;
import dev.iggysink.domain.rotation.RotationPolicy;
import dev.iggysink.domain.rotation.RotationReason;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The domain rules used by a sink that is not this one: no pipeline, no ports, no threads. It writes text lines into
 * "files" of a map that stands in for any store (a database table, another cloud's bucket), three records a file,
 * and commits only what the store holds. Read the {@code Sink} class as the example; the test shows what it gives.
 */
class AnotherSinkExampleTest {

    /** The whole sink. */
    static final class Sink {
        final Map<String, String> store = new TreeMap<>();
        final PartitionRef partition = new PartitionRef("orders", "eu", 7);
        final RotationPolicy policy = RotationPolicy.byCount(3);
        final PathTemplate template = PathTemplate.parse("{stream}/{topic}/{date}");
        final DeliveryLedger ledger;
        boolean storeFails;
        OpenFile open;
        StringBuilder content;

        Sink(long committedOffset) {
            ledger = new DeliveryLedger(partition, committedOffset);
        }

        void write(long offset, long timestampMicros, String line) {
            if (open != null) policy.beforeAppend(open, timestampMicros).ifPresent(this::seal);
            if (open == null) {
                String dir = template.render(partition, timestampMicros, ZoneOffset.UTC, FieldLookup.NONE, "none");
                open = new OpenFile(partition, dir, Instant.EPOCH);
                content = new StringBuilder();
                ledger.opened(offset);
            }
            content.append(line).append('\n');
            open.add(offset, timestampMicros, line.length());
            ledger.read(offset);
            policy.afterAppend(open).ifPresent(this::seal);
        }

        void seal(RotationReason reason) {
            String key = ObjectKey.of("", open.directory(), partition.partitionId(), open.firstOffset(),
                    open.lastOffset(), "txt");
            SealedFile file = open.seal(key, reason);
            ledger.sealed(file);
            if (storeFails) {
                ledger.failed(file.firstOffset()); // a real sink retries it; the commit waits meanwhile
            } else {
                store.put(key, content.toString());
                ledger.durable(file.firstOffset());
            }
            open = null;
        }

        /** The offset to store in the source now, if any. */
        OptionalLong commit() {
            OptionalLong offset = ledger.committable();
            offset.ifPresent(ledger::committed);
            return offset;
        }
    }

    private static final long MARCH_16 = Instant.parse("2026-03-16T10:00:00Z").toEpochMilli() * 1000;

    @Test
    void files_of_three_records_and_a_commit_only_for_what_the_store_holds() {
        Sink sink = new Sink(-1);
        for (long offset = 0; offset < 8; offset++) sink.write(offset, MARCH_16 + offset, "order " + offset);

        assertThat(sink.store).containsOnlyKeys(
                "orders/eu/2026-03-16/00007-00000000000000000000-00000000000000000002.txt",
                "orders/eu/2026-03-16/00007-00000000000000000003-00000000000000000005.txt");
        assertThat(sink.store.get("orders/eu/2026-03-16/00007-00000000000000000003-00000000000000000005.txt"))
                .isEqualTo("order 3\norder 4\norder 5\n");
        assertThat(sink.commit()).hasValue(5); // offsets 6 and 7 sit in the open file
        assertThat(sink.commit()).isEmpty();

        sink.storeFails = true;
        sink.write(8, MARCH_16 + 8, "order 8"); // seals 6..8, which the store refuses
        assertThat(sink.commit()).isEmpty();
        assertThat(sink.ledger.notDurable()).extracting(SealedFile::firstOffset).containsExactly(6L);
    }

    @Test
    void after_a_crash_the_same_offsets_give_the_same_keys_so_a_rewrite_overwrites() {
        Sink first = new Sink(-1);
        for (long offset = 0; offset < 6; offset++) first.write(offset, MARCH_16 + offset, "order " + offset);
        // crashed before committing: a new instance starts from the stored offset (-1) and reads 0.. again
        Sink again = new Sink(-1);
        for (long offset = 0; offset < 6; offset++) again.write(offset, MARCH_16 + offset, "order " + offset);

        assertThat(again.store).isEqualTo(first.store);
        assertThat(again.commit()).hasValue(5);
    }
}
