package dev.iggysink.application.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.message.PartitionRef;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableAuditTest {
    private static final PartitionRef P = new PartitionRef("app", "events", 3);

    @Test
    void every_committed_offset_in_exactly_one_row_is_ok() {
        TableAudit a = TableAudit.of("lake.events", P, 4, 6, Optional.of(List.of(5L, 0L, 2L, 1L, 3L, 4L, 6L)));
        assertThat(a.ok()).isTrue();
        assertThat(a.line()).contains("committed=4 table=6 rows=7 gaps=[] overlaps=0")
                .contains("the table is ahead of the group");
    }

    @Test
    void missing_and_doubled_offsets_below_the_committed_one_are_reported() {
        TableAudit a = TableAudit.of("lake.events", P, 9, 9, Optional.of(List.of(0L, 1L, 1L, 4L, 5L, 5L, 5L, 7L)));
        assertThat(a.gaps()).containsExactly("2-3", "6", "8-9");
        assertThat(a.overlaps()).containsExactly(1L, 5L);
        assertThat(a.ok()).isFalse();
    }

    @Test
    void rows_past_the_committed_offset_are_no_gap_and_a_table_behind_the_group_is_not_ok() {
        assertThat(TableAudit.of("t.t", P, 2, 5, Optional.of(List.of(0L, 1L, 2L, 5L))).ok()).isTrue();
        TableAudit behind = TableAudit.of("t.t", P, 5, 2, Optional.of(List.of(0L, 1L, 2L, 3L, 4L, 5L)));
        assertThat(behind.ok()).isFalse();
        assertThat(behind.line()).contains("the group is ahead of the table's map: offsets 3-5");
    }

    @Test
    void a_table_without_offset_columns_is_checked_by_its_map_alone() {
        TableAudit a = TableAudit.of("t.t", P, 3, 3, Optional.empty());
        assertThat(a.ok()).isTrue();
        assertThat(a.line()).contains("rows=unchecked");
        assertThat(TableAudit.of("t.t", P, -1, -1, Optional.of(List.of())).ok()).isTrue();
    }

    @Test
    void dead_lettered_offsets_are_delivered_and_reported_not_gaps() {
        // 2 and 5 are dead letters; 3 is in a dead letter (another table refused it) and in a row of this one
        TableAudit a = TableAudit.of("t.t", P, 5, 4, Optional.of(List.of(0L, 1L, 3L, 4L)), List.of(5L, 3L, 2L));
        assertThat(a.gaps()).isEmpty();
        assertThat(a.deadLettered()).containsExactly(2L, 5L);
        assertThat(a.ok()).isTrue(); // the map stops at 4: offset 5 after it is a dead letter
        assertThat(a.line()).contains("rows=4 dead_lettered=2 gaps=[] overlaps=0")
                .doesNotContain("the group is ahead");
    }

    @Test
    void a_gap_beside_dead_letters_is_still_a_gap_and_a_map_behind_other_offsets_is_not_ok() {
        TableAudit a = TableAudit.of("t.t", P, 6, 3, Optional.of(List.of(0L, 1L, 3L)), List.of(2L, 4L));
        assertThat(a.gaps()).containsExactly("5-6");
        assertThat(a.ok()).isFalse();
        assertThat(a.line()).contains("the group is ahead of the table's map: offsets 5-6");
        TableAudit unchecked = TableAudit.of("t.t", P, 4, 2, Optional.empty(), List.of(3L, 4L));
        assertThat(unchecked.ok()).isTrue();
        assertThat(unchecked.deadLettered()).containsExactly(3L, 4L);
    }

    @Test
    void dead_letter_keys_are_read_back_to_the_offsets_of_one_partition() {
        String prefix = TableAudit.deadLetterPrefix("_dlq", "app", "events");
        assertThat(prefix).isEqualTo("_dlq/app/events/");
        assertThat(TableAudit.deadLettered(List.of(prefix + "00003-00000000000000000007.json",
                prefix + "00001-00000000000000000008.json", prefix + "00003-00000000000000000002.json",
                prefix + "notes.txt"), prefix, 3)).containsExactly(2L, 7L);
    }
}
