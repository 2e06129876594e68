package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.KeyLayout;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.Health;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The self-audit under the first-offset key layout (ADR 0019): a key names only where its file starts, so the audit
 * reads each object's end from its metadata, once, and finds the same planted faults as under the seed's keys.
 */
class SelfAuditFirstOffsetTest extends ThreeObjectsAudited {
    private static final String FIRST = DIR + "00000-00000000000000000000.jsonl";
    private static final String MIDDLE = DIR + "00000-00000000000000000100.jsonl";
    private static final String LAST = DIR + "00000-00000000000000000200.jsonl";

    private final InMemoryObjectStore objects = new InMemoryObjectStore();
    private final AtomicInteger heads = new AtomicInteger();
    private final AtomicInteger lists = new AtomicInteger();
    private final ForwardingObjectStore store = new ForwardingObjectStore(objects) {
        @Override
        public Optional<Map<String, String>> metadata(String key) throws StoreException {
            heads.incrementAndGet();
            return super.metadata(key);
        }

        @Override
        public List<dev.iggysink.application.port.out.StoredObject> list(String prefix) throws StoreException {
            lists.incrementAndGet();
            return super.list(prefix);
        }
    };

    private void threeObjectsCommitted() {
        threeObjectsCommitted(s -> TestSettings.withKeyLayout(s, KeyLayout.FIRST_OFFSET), store, objects, FIRST, MIDDLE,
                LAST);
    }

    @Test
    void a_clean_run_finds_nothing_and_reads_no_object_twice() throws Exception {
        threeObjectsCommitted();
        heads.set(0);
        lists.set(0);

        AuditStatus found = audit();
        int headsOfTheFirstRound = heads.get();
        AuditStatus again = audit();

        assertThat(found.problems()).isEmpty();
        assertThat(found.notes()).isEmpty();
        assertThat(found.covered()).singleElement().satisfies(c -> {
            assertThat(c.from()).isZero();
            assertThat(c.to()).isEqualTo(299);
            assertThat(c.objects()).isEqualTo(3);
        });
        // Each committed object is read back once; its end is known from then on.
        assertThat(headsOfTheFirstRound).as("HEADs of the first round").isEqualTo(3);
        assertThat(heads.get()).as("HEADs of both rounds").isEqualTo(3);
        assertThat(again.problems()).isEmpty();
        assertThat(again.requests() - found.requests()).as("requests of the second round: the listing")
                .isEqualTo(1);
        assertThat(sink.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void a_deleted_object_is_a_gap_naming_the_objects_around_it() throws Exception {
        threeObjectsCommitted();
        audit();

        objects.delete(MIDDLE);
        AuditStatus found = audit();

        assertThat(found.counts().gaps()).isEqualTo(1);
        failedNaming("offsets 100-199", FIRST, LAST);
    }

    @Test
    void an_object_whose_metadata_range_overlaps_the_next_is_an_overlap() throws Exception {
        threeObjectsCommitted();
        audit();

        // The first object rewritten with 150 records: its key still names offset 0 only, its metadata 0-149.
        Map<String, String> longer = new HashMap<>(objects.metadataOf(FIRST));
        longer.put(ObjectStamps.OFFSETS, "0-149");
        longer.put(ObjectStamps.RECORDS, "150");
        longer.put(ObjectStamps.LAST, "149/0/0");
        objects.seed(FIRST, "r0\n".repeat(150).getBytes(StandardCharsets.UTF_8), longer);
        AuditStatus found = audit();

        assertThat(found.counts().overlaps()).isEqualTo(1);
        assertThat(found.counts().mismatches()).isZero();
        failedNaming(MIDDLE, "overlaps", FIRST);
    }

    @Test
    void an_object_whose_metadata_names_another_start_is_a_mismatch() throws Exception {
        threeObjectsCommitted();
        audit();

        Map<String, String> elsewhere = new HashMap<>(objects.metadataOf(MIDDLE));
        elsewhere.put(ObjectStamps.OFFSETS, "90-199");
        objects.seed(MIDDLE, "r90\n".repeat(110).getBytes(StandardCharsets.UTF_8), elsewhere);
        AuditStatus found = audit();

        assertThat(found.counts().mismatches()).isEqualTo(1);
        failedNaming(MIDDLE, "names no range starting at 100");
    }

    @Test
    void a_group_offset_ahead_of_the_store_is_found() throws Exception {
        threeObjectsCommitted();
        audit();

        source.own(0, false);
        await().atMost(WAIT).until(() -> sink.status().partitions().stream().noneMatch(p -> p.owned()));
        source.store(0, 499);
        source.own(0, true);
        await().atMost(WAIT).until(() -> sink.status().partitions().stream()
                .anyMatch(p -> p.owned() && p.committed() == 499));
        AuditStatus found = audit();

        assertThat(found.counts().gaps()).isEqualTo(1);
        failedNaming("the group's offset 499 is ahead of the store", "offsets 300-499", "after " + LAST);
    }
}
