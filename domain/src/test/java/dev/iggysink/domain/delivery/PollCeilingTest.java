package dev.iggysink.domain.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PollCeilingTest {
    @Test
    void it_binds_nothing_until_a_poll_runs_out_of_memory() {
        PollCeiling c = new PollCeiling();
        c.answered(1000, 1000);

        assertThat(c.apply(1000)).isEqualTo(1000);
    }

    @Test
    void a_poll_that_ran_out_of_memory_makes_the_next_ask_for_one_record() {
        PollCeiling c = new PollCeiling();
        c.failed(true);

        assertThat(c.apply(1000)).isEqualTo(1);
        assertThat(c.apply(0)).as("a smaller size passes").isZero();
    }

    @Test
    void other_failures_leave_it_alone() {
        PollCeiling c = new PollCeiling();
        c.failed(false);

        assertThat(c.ceiling()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void full_answers_double_it_back_until_it_binds_nothing_and_short_ones_do_not() {
        PollCeiling c = new PollCeiling();
        c.failed(true);
        c.answered(1, 1);
        c.answered(2, 1);
        assertThat(c.apply(1000)).as("a short answer").isEqualTo(2);

        for (int i = 0; i < 40; i++) c.answered(c.apply(1000), c.apply(1000));

        assertThat(c.ceiling()).isEqualTo(Integer.MAX_VALUE);
    }
}
