package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The self-audit's window: the newest objects of each owned partition, held open where a finding is. */
class SelfAuditWindowTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:00:00Z"));
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final AtomicLong committed = new AtomicLong(-1);

    private String object(long first, long last) {
        String key = ObjectKey.of("raw", "s/t", 0, first, last, "jsonl");
        store.seed(key, "x".getBytes(StandardCharsets.UTF_8), ObjectStamps.of(first, last, last - first + 1,
                first + "/0/0", last + "/0/0"));
        return key;
    }

    /** An object under a first-offset key (ADR 0019): its end is in its metadata only. */
    private String firstOffsetObject(long first, long last) {
        String key = ObjectKey.ofFirst("raw", "s/t", 0, first, "jsonl");
        store.seed(key, "x".getBytes(StandardCharsets.UTF_8), ObjectStamps.of(first, last, last - first + 1,
                first + "/0/0", last + "/0/0"));
        return key;
    }

    private SelfAudit audit(boolean interleaved) {
        return audit(store, interleaved, false);
    }

    private SelfAudit audit(ObjectStore objects, boolean interleaved, boolean firstOffsetKeys) {
        return new SelfAudit(objects, List.of(new SelfAudit.Target("s", "t", "raw/", "_dlq", "raw/_dlq/s/t/", "",
                interleaved, firstOffsetKeys)), () -> List.of(new PartitionStatus("s", "t", 0, true, committed.get() + 1,
                committed.get(), committed.get(), 0, 0, 0, 0, Optional.empty(), Optional.empty(), 0,
                Optional.empty(), false)), 600, clock, clock.sleeper(), () -> false);
    }

    @Test
    void a_gap_found_stays_in_view_while_newer_objects_push_the_window_on() throws Exception {
        for (int i = 0; i < 10; i++) object(i * 10L, i * 10L + 9);
        store.delete(ObjectKey.of("raw", "s/t", 0, 30, 39, "jsonl"));
        committed.set(99);
        SelfAudit audit = audit(false);

        audit.round();
        assertThat(audit.status().counts().gaps()).isEqualTo(1);
        for (int i = 10; i < 40; i++) object(i * 10L, i * 10L + 9);
        committed.set(399);
        audit.round();

        AuditStatus later = audit.status();
        assertThat(later.problems()).singleElement().asString().contains("offsets 30-39");
        assertThat(later.covered()).singleElement().satisfies(c -> assertThat(c.from()).isLessThanOrEqualTo(30));
    }

    @Test
    void a_window_without_findings_covers_the_newest_objects_only() throws Exception {
        for (int i = 0; i < 40; i++) object(i * 10L, i * 10L + 9);
        committed.set(399);
        SelfAudit audit = audit(false);

        audit.round();

        assertThat(audit.status().problems()).isEmpty();
        assertThat(audit.status().covered()).singleElement().satisfies(c -> {
            assertThat(c.from()).isEqualTo(400 - SelfAudit.WINDOW_OBJECTS * 10L);
            assertThat(c.objects()).isEqualTo(SelfAudit.WINDOW_OBJECTS);
        });
    }

    @Test
    void overlapping_ranges_of_files_open_at_once_are_a_note_not_a_failure() throws Exception {
        object(0, 9);
        object(5, 19);
        committed.set(19);

        SelfAudit interleaved = audit(true);
        interleaved.round();
        SelfAudit oneOpenFile = audit(false);
        oneOpenFile.round();

        assertThat(interleaved.status().problems()).isEmpty();
        assertThat(interleaved.status().notes()).singleElement().asString().contains("overlaps", "interleave");
        assertThat(oneOpenFile.status().counts().overlaps()).isEqualTo(1);
    }

    @Test
    void first_offset_keys_are_read_once_each_and_the_object_before_the_window_is_checked_too() throws Exception {
        for (int i = 0; i < 40; i++) firstOffsetObject(i * 10L, i * 10L + 9);
        // The object just before the window runs into it: an overlap the window's own objects do not show.
        int before = 40 - SelfAudit.WINDOW_OBJECTS - 1;
        String longer = firstOffsetObject(before * 10L, before * 10L + 14);
        committed.set(399);
        AtomicLong heads = new AtomicLong();
        ObjectStore counting = new ForwardingObjectStore(store) {
            @Override
            public Optional<Map<String, String>> metadata(String key) throws StoreException {
                heads.incrementAndGet();
                return super.metadata(key);
            }
        };
        SelfAudit audit = audit(counting, false, true);

        audit.round();
        long firstRound = heads.get();
        audit.round();
        long secondRound = heads.get() - firstRound;
        firstOffsetObject(400, 409);
        committed.set(409);
        audit.round();
        long thirdRound = heads.get() - firstRound - secondRound;

        assertThat(audit.status().counts().overlaps()).isEqualTo(1);
        assertThat(audit.status().problems()).singleElement().asString().contains(longer, "overlaps");
        assertThat(audit.status().counts().gaps()).isZero();
        assertThat(firstRound).as("HEADs of the first round: the window and the object before it")
                .isEqualTo(SelfAudit.WINDOW_OBJECTS + 1);
        assertThat(secondRound).as("HEADs of a round that lists nothing new").isZero();
        assertThat(thirdRound).as("HEADs of a round that lists one new object").isEqualTo(1);
    }
}
