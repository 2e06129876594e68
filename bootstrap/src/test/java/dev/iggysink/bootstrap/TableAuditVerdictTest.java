package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class TableAuditVerdictTest {
    @Test
    void rows_that_were_not_read_are_never_called_exactly_once() {
        String verdict = TableAuditRun.verdict(true, 0, Set.of("lake.events"));
        assertThat(verdict).startsWith("AUDIT OK").doesNotContain("exactly once")
                .contains("the rows of lake.events were not checked");
    }

    @Test
    void every_table_read_is_exactly_once_and_a_gap_fails() {
        assertThat(TableAuditRun.verdict(true, 2, Set.of()))
                .isEqualTo("AUDIT OK: every committed offset is in its tables exactly once or in a dead letter"
                        + " (2 offset(s), listed above)");
        assertThat(TableAuditRun.verdict(false, 0, Set.of())).startsWith("AUDIT FAILED");
    }
}
