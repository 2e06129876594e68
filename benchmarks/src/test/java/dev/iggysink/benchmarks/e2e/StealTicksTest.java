package dev.iggysink.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Reading the CPU a hypervisor held back from the machine (steal) off {@code /proc/stat}'s all-cores line. */
class StealTicksTest {

    @Test
    void the_steal_field_is_the_eighth_number_of_the_all_cores_line() {
        assertThat(SinkChild.stealTicks("cpu  506447 307 189275 1604649 14860 0 11012 9174 0 0")).isEqualTo(9174);
    }

    @Test
    void a_line_without_the_field_or_of_one_core_gives_unknown() {
        assertThat(SinkChild.stealTicks("cpu  506447 307 189275 1604649 14860 0 11012")).isEqualTo(-1);
        assertThat(SinkChild.stealTicks("cpu0 253223 150 94637 802324 7430 0 5506 4587 0 0")).isEqualTo(-1);
        assertThat(SinkChild.stealTicks(null)).isEqualTo(-1);
    }

    @Test
    void this_machine_reports_a_count_that_never_goes_down() {
        long first = SinkChild.stealTicks();
        long second = SinkChild.stealTicks();

        // Linux always has the field; the count only grows.
        assertThat(first).isNotNegative();
        assertThat(second).isGreaterThanOrEqualTo(first);
    }
}
