package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * What a round lists: under a path template whose folders sort by time, the rounds after the first list from the
 * oldest window on, not the topic's whole history, and still find what a whole listing finds.
 */
class SelfAuditListingTest {
    private static final int HOURS = 100;
    private static final int PER_FOLDER = 10;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:00:00Z"));
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    /** Owned partitions and their group offsets. */
    private final Map<Integer, Long> owned = new ConcurrentHashMap<>();
    private final Map<Integer, Long> next = new ConcurrentHashMap<>();

    private static String folder(int hour) {
        return String.format("s/t/2026-03-%02d/%02d", 10 + hour / 24, hour % 24);
    }

    private String object(int partition, int hour, long first, long last) {
        String key = ObjectKey.of("raw", folder(hour), partition, first, last, "jsonl");
        store.seed(key, "x".getBytes(StandardCharsets.UTF_8), ObjectStamps.of(first, last, last - first + 1,
                first + "/0/0", last + "/0/0"));
        return key;
    }

    /** {@code hours} folders of {@link #PER_FOLDER} objects of 10 offsets each for {@code partition}, committed. */
    private void history(int partition, int fromHour, int hours) {
        long offset = next.getOrDefault(partition, 0L);
        for (int h = fromHour; h < fromHour + hours; h++) {
            for (int i = 0; i < PER_FOLDER; i++, offset += 10) object(partition, h, offset, offset + 9);
        }
        next.put(partition, offset);
    }

    /** One more object of {@code partition} in folder {@code hour}, committed. */
    private String append(int partition, int hour) {
        long first = next.getOrDefault(partition, 0L);
        String key = object(partition, hour, first, first + 9);
        next.put(partition, first + 10);
        owned.computeIfPresent(partition, (p, c) -> first + 9);
        return key;
    }

    private void own(int partition) {
        owned.put(partition, next.getOrDefault(partition, 0L) - 1);
    }

    private SelfAudit audit(boolean keysSortByTime) {
        return new SelfAudit(store, List.of(new SelfAudit.Target("s", "t", "raw/s/t/", "_dlq", "raw/_dlq/s/t/", "",
                false, false, keysSortByTime)), () -> {
                    List<PartitionStatus> out = new ArrayList<>();
                    owned.forEach((p, c) -> out.add(new PartitionStatus("s", "t", p, true, c + 1, c, c, 0, 0, 0, 0,
                            Optional.empty(), Optional.empty(), 0, Optional.empty(), false)));
                    return out;
                }, 6000, clock, clock.sleeper(), () -> false);
    }

    private long keysListedBy(SelfAudit audit) throws Exception {
        long before = store.listedKeys();
        audit.round();
        return store.listedKeys() - before;
    }

    @Test
    void a_round_after_the_first_lists_from_the_oldest_window_on_not_the_whole_topic() throws Exception {
        history(0, 0, HOURS);
        history(1, 0, HOURS);
        own(0);
        own(1);
        SelfAudit audit = audit(true);

        long first = keysListedBy(audit);
        append(0, HOURS - 1);
        append(1, HOURS - 1);
        long second = keysListedBy(audit);

        assertThat(first).as("the first round lists the whole topic").isEqualTo(2L * HOURS * PER_FOLDER);
        assertThat(second).as("keys listed by the second round, of %s in the store", first + 2)
                .isLessThanOrEqualTo(2L * (SelfAudit.WINDOW_OBJECTS + PER_FOLDER + 2));
        assertThat(audit.status().problems()).isEmpty();
        assertThat(audit.status().covered()).hasSize(2).allSatisfy(c -> {
            assertThat(c.objects()).isEqualTo(SelfAudit.WINDOW_OBJECTS);
            assertThat(c.to()).isEqualTo(HOURS * PER_FOLDER * 10L + 9);
        });
    }

    @Test
    void an_idle_partition_does_not_hold_the_listing_back_and_is_seen_when_it_writes_again() throws Exception {
        history(1, 0, 10);
        history(0, 0, HOURS);
        own(0);
        own(1);
        SelfAudit audit = audit(true);
        audit.round();

        append(0, HOURS - 1);
        long second = keysListedBy(audit);
        String resumed = append(1, HOURS - 1);
        long last = next.get(1) - 1;
        audit.committed(List.of(new SelfAudit.Committed(new PartitionRef("s", "t", 1), resumed, last,
                ObjectStamps.of(last - 9, last, 10, (last - 9) + "/0/0", last + "/0/0"))));
        long third = keysListedBy(audit);

        assertThat(second).as("keys listed while partition 1 is idle, of %s", 11L * HOURS * PER_FOLDER / 10 + 1)
                .isLessThanOrEqualTo(2L * (SelfAudit.WINDOW_OBJECTS + PER_FOLDER + 2));
        assertThat(third).as("keys listed once it writes again").isLessThanOrEqualTo(
                2L * (SelfAudit.WINDOW_OBJECTS + PER_FOLDER + 2));
        assertThat(audit.status().problems()).isEmpty();
        assertThat(audit.status().covered()).hasSize(2).allSatisfy(c -> assertThat(c.to()).isEqualTo(
                c.partition() == 0 ? HOURS * PER_FOLDER * 10L + 9 : 10 * PER_FOLDER * 10L + 9));
        assertThat(resumed).contains(folder(HOURS - 1));
    }

    @Test
    void another_cut_of_the_newest_file_is_an_overlap_on_a_round_that_lists_less() throws Exception {
        history(0, 0, HOURS);
        own(0);
        SelfAudit audit = audit(true);
        audit.round();

        // Another writer's file from the same first offset, longer: its key sorts just after the newest object's.
        long first = next.get(0) - 10;
        String longer = object(0, HOURS - 1, first, first + 14);
        audit.round();

        assertThat(audit.status().counts().overlaps()).isEqualTo(1);
        assertThat(audit.status().problems()).singleElement().asString().contains(longer);
    }

    @Test
    void a_deleted_object_in_the_window_is_a_gap_on_a_round_that_lists_less() throws Exception {
        history(0, 0, HOURS);
        own(0);
        SelfAudit audit = audit(true);
        audit.round();
        assertThat(audit.status().problems()).isEmpty();

        long deletedFirst = next.get(0) - 30;
        store.delete(ObjectKey.of("raw", folder(HOURS - 1), 0, deletedFirst, deletedFirst + 9, "jsonl"));
        audit.round();

        assertThat(audit.status().counts().gaps()).isEqualTo(1);
        assertThat(audit.status().problems()).singleElement().asString()
                .contains("offsets " + deletedFirst + "-" + (deletedFirst + 9));
    }

    @Test
    void an_object_filed_under_an_earlier_folder_is_no_gap_for_a_round_that_lists_less() throws Exception {
        history(0, 10, HOURS - 10);
        own(0);
        SelfAudit audit = audit(true);
        audit.round();

        // A record timestamp from a clock that went back: the newest file is in a folder before the window.
        long before = store.listCalls();
        append(0, 0);
        audit.round();

        assertThat(audit.status().problems()).isEmpty();
        assertThat(store.listCalls() - before)
                .as("the narrow listing, the dead letters for its gap, then the whole listing that finds the object")
                .isEqualTo(3);
    }

    @Test
    void a_partition_owned_since_the_last_round_has_its_objects_listed() throws Exception {
        history(1, 0, 10);
        history(0, 0, HOURS);
        own(0);
        SelfAudit audit = audit(true);
        audit.round();

        own(1);
        audit.round();

        assertThat(audit.status().problems()).isEmpty();
        assertThat(audit.status().covered()).hasSize(2)
                .allSatisfy(c -> assertThat(c.objects()).isEqualTo(SelfAudit.WINDOW_OBJECTS));
    }

    @Test
    void under_a_template_whose_folders_do_not_sort_by_time_every_round_lists_the_whole_topic() throws Exception {
        history(0, 0, HOURS);
        own(0);
        SelfAudit audit = audit(false);

        long first = keysListedBy(audit);
        long second = keysListedBy(audit);

        assertThat(first).isEqualTo((long) HOURS * PER_FOLDER);
        assertThat(second).isEqualTo(first);
        assertThat(audit.status().problems()).isEmpty();
    }
}
