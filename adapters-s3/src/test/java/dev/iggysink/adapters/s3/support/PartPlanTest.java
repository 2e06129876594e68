package dev.iggysink.adapters.s3.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class PartPlanTest {
    private static final int MIB = 1024 * 1024;

    @Test
    void parts_are_consecutive_slices_numbered_from_one_with_a_short_last_part() {
        assertThat(PartPlan.of(10 * MIB + 17, 5L * MIB)).containsExactly(
                new PartPlan.Part(1, 0, 5 * MIB),
                new PartPlan.Part(2, 5 * MIB, 5 * MIB),
                new PartPlan.Part(3, 10 * MIB, 17));
    }

    @Test
    void an_exact_multiple_has_no_empty_last_part() {
        assertThat(PartPlan.of(10 * MIB, 5L * MIB)).hasSize(2);
        assertThat(PartPlan.of(0, 5L * MIB)).containsExactly(new PartPlan.Part(1, 0, 0));
    }

    @Test
    void the_part_size_grows_instead_of_exceeding_10000_parts() {
        List<PartPlan.Part> parts = PartPlan.of(Integer.MAX_VALUE, 5L * MIB / 1024);

        assertThat(parts).hasSizeLessThanOrEqualTo(PartPlan.MAX_PARTS);
        assertThat(parts.stream().mapToLong(PartPlan.Part::length).sum()).isEqualTo(Integer.MAX_VALUE);
    }
}
