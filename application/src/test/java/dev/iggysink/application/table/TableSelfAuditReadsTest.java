package dev.iggysink.application.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the table self-audit reads (issue 48): every read of a table's metadata and of a data file counts against
 * {@code self_audit_requests_per_minute}, and a data file already read (same path, same size, same deletes, in the
 * same line of snapshots) is not read again; a rewrite, a delete or a rollback by another writer is still seen.
 */
class TableSelfAuditReadsTest extends TableSelfAuditScene {
    @Test
    void every_read_of_metadata_and_data_files_counts_against_the_budget() throws Exception {
        TableSelfAudit audit = audit(600);
        tables.statistics(false); // files whose statistics say nothing: each is read
        commit(7, 5); // partition 0: files 0-2, 3-5, 6; partition 1: 0-2, 3-4
        int before = tables.reads();
        audit.round();
        assertThat(audit.status().requests()).as("requests counted, against the store's reads")
                .isEqualTo(tables.reads() - before);
        assertThat(tables.filesRead()).isEqualTo(5);

        commit(3, 0);
        long spent = audit.status().requests();
        before = tables.reads();
        audit.round();
        assertThat(audit.status().requests() - spent).isEqualTo(tables.reads() - before);
    }

    @Test
    void a_round_waits_for_the_budget_of_every_read_it_makes() throws Exception {
        TableSelfAudit audit = audit(6); // one request each 10 s, a burst of one
        tables.statistics(false); // files whose statistics say nothing: each is read
        commit(7, 5);
        int before = tables.reads();
        Instant start = clock.instant();
        audit.round();
        int reads = tables.reads() - before;
        assertThat(reads).isEqualTo(7); // the map, the listing, five data files
        assertThat(Duration.between(start, clock.instant())).isGreaterThanOrEqualTo(Duration.ofSeconds(10L
                * (reads - 1)));
        assertThat(audit.status().problems()).isEmpty();
    }

    @Test
    void a_data_file_read_once_is_not_read_again_and_new_ones_are() throws Exception {
        TableSelfAudit audit = audit(600);
        tables.statistics(false); // files whose statistics say nothing: each is read
        commit(7, 5);
        audit.round();
        int read = tables.filesRead();
        audit.round();
        assertThat(tables.filesRead() - read).as("data files read again in a round after nothing changed").isZero();

        commit(3, 0); // partition 0's 7-9: one new file
        read = tables.filesRead();
        audit.round();
        assertThat(tables.filesRead() - read).as("data files read after one was committed").isEqualTo(1);
        assertThat(tables.changeListings()).as("listings of what changed since the last one").isEqualTo(2);
        assertThat(audit.status().problems()).isEmpty();
        assertThat(audit.status().covered()).extracting(c -> c.partition() + ":" + c.from() + "-" + c.to())
                .containsExactlyInAnyOrder("0:0-9", "1:0-4");
    }

    @Test
    void a_rewrite_by_another_writer_is_checked_by_its_statistics_and_a_row_deleted_after_it_is_still_found()
            throws Exception {
        TableSelfAudit audit = audit(600);
        commit(7, 5);
        audit.round();
        tables.foreignRewrite(T, P0); // a compaction: partition 0's three files become one, 7 rows of 0-6
        int read = tables.filesRead();
        audit.round();
        assertThat(tables.filesRead() - read).isZero();
        assertThat(audit.status().problems()).isEmpty();

        tables.foreignDelete(T, P0, List.of(4L)); // a delete file on the rewritten one
        audit.round();
        assertThat(audit.status().problems()).singleElement().asString().contains(T).contains(P0.toString())
                .contains("no row at [4]");
    }

    @Test
    void a_copy_appended_after_a_file_was_read_is_an_overlap() throws Exception {
        TableSelfAudit audit = audit(600);
        commit(7, 5);
        audit.round();
        tables.foreignRows(T, P0, List.of(2L, 3L));
        audit.round();
        assertThat(audit.status().problems()).singleElement().asString()
                .contains("offset(s) [2, 3] are held by more than one row");
    }

    @Test
    void a_table_rolled_back_is_read_whole_again() throws Exception {
        TableSelfAudit audit = audit(600);
        tables.statistics(false); // files whose statistics say nothing: each is read
        commit(7, 5);
        tables.foreignSnapshot(T);
        audit.round();
        tables.rollBack(T); // another line of snapshots: what was read of the old one proves nothing of it
        int read = tables.filesRead();
        audit.round();
        assertThat(tables.filesRead() - read).isEqualTo(5);
        assertThat(audit.status().problems()).isEmpty();
    }

    @Test
    void a_round_over_files_whose_statistics_are_exact_reads_no_data_file() throws Exception {
        TableSelfAudit audit = audit(600);
        commit(7, 5); // each file of one partition, as many records as offsets between its bounds
        int before = tables.reads();
        audit.round();
        assertThat(tables.filesRead()).as("data files read").isZero();
        assertThat(audit.status().requests()).as("the map and the listing").isEqualTo(2)
                .isEqualTo(tables.reads() - before);
        assertThat(audit.status().problems()).isEmpty();
        assertThat(audit.status().covered()).extracting(c -> c.partition() + ":" + c.from() + "-" + c.to())
                .containsExactlyInAnyOrder("0:0-6", "1:0-4");
    }

    @Test
    void a_data_file_another_writer_took_out_is_a_gap_found_without_reading_one() throws Exception {
        TableSelfAudit audit = audit(600);
        commit(7, 5);
        audit.round();
        tables.foreignRemove(T, P0, 3); // the file of 3-5
        audit.round();
        assertThat(audit.status().problems()).singleElement().asString().contains(T).contains(P0.toString())
                .contains("3 committed row(s) of offsets 3-5 are not in the table (no row at [3, 4, 5])");
        assertThat(tables.filesRead()).isZero();
    }

    @Test
    void a_copy_another_writer_appended_is_an_overlap_found_from_its_bounds() throws Exception {
        TableSelfAudit audit = audit(600);
        commit(7, 5);
        tables.foreignRows(T, P0, List.of(2L, 3L));
        audit.round();
        assertThat(audit.status().problems()).singleElement().asString()
                .contains("offset(s) [2, 3] are held by more than one row");
        assertThat(tables.filesRead()).isZero();
    }

    @Test
    void a_file_whose_record_count_disagrees_with_its_bounds_is_read_and_what_is_wrong_found() throws Exception {
        TableSelfAudit audit = audit(600);
        commit(7, 5);
        audit.round();
        tables.foreignRewrite(T, P0, List.of(4L)); // a faulty compaction: 6 records between 0 and 6
        audit.round();
        assertThat(tables.filesRead()).as("the rewritten file").isEqualTo(1);
        assertThat(audit.status().problems()).singleElement().asString().contains(P0.toString())
                .contains("1 committed row(s) of offsets 3-5 are not in the table (no row at [4])");

        tables.foreignRows(T, P0, List.of(1L, 3L)); // 2 records between 1 and 3: a copy of two rows
        audit.round();
        assertThat(tables.filesRead()).isEqualTo(2);
        assertThat(audit.status().problems()).anySatisfy(p -> assertThat(p)
                .contains("offset(s) [1, 3] are held by more than one row"));
    }

    @Test
    void a_file_with_a_delete_file_is_read_with_its_deletes() throws Exception {
        TableSelfAudit audit = audit(600);
        commit(7, 5);
        audit.round();
        tables.foreignDelete(T, P0, List.of(4L)); // its statistics still say 3-5, 3 records
        audit.round();
        assertThat(tables.filesRead()).isEqualTo(1);
        assertThat(audit.status().problems()).singleElement().asString().contains("no row at [4]");
    }
}
