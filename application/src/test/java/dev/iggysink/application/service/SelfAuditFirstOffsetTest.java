package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.ObjectStore;
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

    SelfAuditFirstOffsetTest() {
        super(s -> TestSettings.withKeyLayout(s, KeyLayout.FIRST_OFFSET), FIRST, MIDDLE, LAST);
    }

    @Override
    ObjectStore store() {
        return store;
    }

    @Test
    void a_clean_run_finds_nothing_and_reads_no_object_twice() throws Exception {
        threeObjectsCommitted();
        heads.set(0);
        lists.set(0);

        AuditStatus found = audit();
        int headsOfTheFirstRound = heads.get();
        AuditStatus again = audit();

        cleanOverAllThree(found);
        // Each committed object is read back once; its end is known from then on.
        assertThat(headsOfTheFirstRound).as("HEADs of the first round").isEqualTo(3);
        assertThat(heads.get()).as("HEADs of both rounds").isEqualTo(3);
        assertThat(again.problems()).isEmpty();
        assertThat(again.requests() - found.requests()).as("requests of the second round: the listing")
                .isEqualTo(1);
        assertThat(sink.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void an_object_whose_metadata_range_overlaps_the_next_is_an_overlap() throws Exception {
        threeObjectsCommitted();
        audit();

        // The first object rewritten with 150 records: its key still names offset 0 only, its metadata 0-149.
        rewritten(FIRST, 0, 149);
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
}
