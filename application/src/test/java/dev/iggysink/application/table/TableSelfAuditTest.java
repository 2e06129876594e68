package dev.iggysink.application.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The table sink's self-audit (issue 48) finds rows other writers took away or added, and only those. */
class TableSelfAuditTest extends TableSelfAuditScene {
    private final TableSelfAudit audit = audit(600);
    private final TableSinkControl control = new TableSinkControl(tally, clock, 1 << 20, Duration.ofSeconds(1),
            () -> { });

    TableSelfAuditTest() {
        control.register("app/events", consumer);
        control.selfAudit(audit);
    }

    /** Offsets 0-6 of partition 0 and 0-4 of partition 1 committed to the table, in files of three. */
    private void commitSome() throws Exception {
        commit(7, 5);
        assertThat(tables.committed(T)).isNotEmpty();
    }

    @Test
    void a_clean_run_raises_nothing_and_says_what_it_covered() throws Exception {
        commitSome();
        audit.round();
        AuditStatus a = control.audit().orElseThrow();
        assertThat(a.problems()).isEmpty();
        assertThat(a.rounds()).isEqualTo(1);
        assertThat(a.objectsVerified()).isEqualTo(2); // the map entries of both partitions
        assertThat(a.covered()).extracting(c -> c.partition() + ":" + c.from() + "-" + c.to())
                .containsExactlyInAnyOrder("0:0-6", "1:0-4");
        StatusSnapshot s = control.status();
        assertThat(s.health()).isEqualTo(Health.OK);
    }

    @Test
    void a_row_another_writer_deleted_fails_health_naming_table_partition_and_offset() throws Exception {
        commitSome();
        tables.foreignDelete(T, P0, List.of(4L));
        audit.round();
        StatusSnapshot s = control.status();
        assertThat(s.health()).isEqualTo(Health.FAILED);
        assertThat(s.reasons()).anySatisfy(r -> assertThat(r).contains("self-audit").contains(T)
                .contains(P0.toString()).contains("no row at [4]"));
        assertThat(control.audit().orElseThrow().counts().gaps()).isEqualTo(1);
    }

    @Test
    void a_copy_another_writer_appended_fails_health_naming_the_doubled_offsets() throws Exception {
        commitSome();
        tables.foreignRows(T, P0, List.of(2L, 3L));
        audit.round();
        StatusSnapshot s = control.status();
        assertThat(s.health()).isEqualTo(Health.FAILED);
        assertThat(s.reasons()).anySatisfy(r -> assertThat(r).contains(T).contains(P0.toString())
                .contains("offset(s) [2, 3] are held by more than one row"));
        assertThat(control.audit().orElseThrow().counts().overlaps()).isEqualTo(1);
    }

    @Test
    void a_finding_clears_once_the_rows_are_whole_again() throws Exception {
        commitSome();
        tables.foreignDelete(T, P0, List.of(5L));
        audit.round();
        assertThat(control.status().health()).isEqualTo(Health.FAILED);
        // the row comes back (a repair by the operator): the next round finds the partition whole
        tables.foreignRows(T, P0, List.of(5L));
        audit.round();
        assertThat(control.audit().orElseThrow().problems()).isEmpty();
        assertThat(control.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void a_map_entry_found_behind_the_commit_fails_health_until_it_holds_the_commit_again() throws Exception {
        commitSome();
        tables.foreignMap(T, P0, 2L);
        audit.round();
        StatusSnapshot s = control.status();
        assertThat(s.health()).isEqualTo(Health.FAILED);
        assertThat(s.reasons()).anySatisfy(r -> assertThat(r).contains(T)
                .contains("the offset map of app/events/0 holds 2, the sink committed it up to 6"));
        assertThat(control.audit().orElseThrow().counts().unverified()).isEqualTo(1);
        tables.foreignMap(T, P0, 6L);
        audit.round();
        assertThat(control.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void a_table_dropped_and_created_again_is_no_finding_of_the_rows_the_old_one_held() throws Exception {
        commitSome();
        audit.round();
        tables.replace(T);
        audit.round();
        assertThat(control.audit().orElseThrow().problems()).isEmpty();
        assertThat(control.status().health()).isNotEqualTo(Health.FAILED);
    }

    @Test
    void a_table_replaced_before_the_first_round_looked_at_it_is_no_finding_of_the_commits_to_the_old_one()
            throws Exception {
        commitSome();
        tables.replace(T);
        // the consumer's next commit finds the new table before the audit's first round has looked at it
        topic.append(0, 3, i -> "late=" + i);
        clock.advance(INTERVAL);
        consumer.step();
        clock.advance(INTERVAL);
        consumer.step();
        assertThat(tables.replacement(T)).isPresent();
        audit.round();
        assertThat(control.audit().orElseThrow().problems()).isEmpty();
        assertThat(control.status().health()).isNotEqualTo(Health.FAILED);
    }

    @Test
    void records_of_other_tables_and_dead_letters_between_a_files_rows_are_no_gap() throws Exception {
        ScriptedMessageSource routed = new ScriptedMessageSource("app", "routed", 1);
        TableConsumer c = new TableConsumer(routed, new LinesCodec(), tables,
                new TableSettings(TableRouting.byField("table"), RotationPolicy.byCount(10), INTERVAL, 100, 100,
                        ErrorTolerance.ALL), clock, new SinkMetrics() { }, tally);
        c.selfAudit(audit);
        routed.append(0, List.of("table=lake.a;n=0", "table=lake.b;n=1", "n=2", "table=lake.a;n=3"));
        c.step();
        c.drain();
        PartitionRef p = new PartitionRef("app", "routed", 0);
        audit.round();
        assertThat(audit.status().problems()).isEmpty();
        assertThat(audit.status().covered()).hasSize(2);

        tables.foreignDelete("lake.a", p, List.of(3L));
        audit.round();
        assertThat(audit.status().problems()).singleElement().asString().contains("lake.a").contains(p.toString())
                .contains("1 committed row(s) of offsets 0-3").contains("among the offsets without a row here: [1, 2, 3]");
    }
}
