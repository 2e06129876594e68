package dev.iggysink.application.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdlePacingTest {
    private static List<Duration> waits(IdlePacing pacing, int emptySteps) {
        List<Duration> out = new ArrayList<>();
        for (int i = 0; i < emptySteps; i++) out.add(pacing.after(0));
        return out;
    }

    @Test
    void empty_steps_wait_longer_and_longer_up_to_the_cap_and_records_bring_back_the_poll_interval() {
        IdlePacing pacing = new IdlePacing(Duration.ofMillis(5));
        assertThat(waits(pacing, 7)).containsExactly(Duration.ofMillis(5), Duration.ofMillis(10),
                Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(80), Duration.ofMillis(100),
                Duration.ofMillis(100));
        assertThat(pacing.after(3)).as("records came: the next poll at once").isZero();
        assertThat(pacing.after(0)).as("the first empty step after records waits one poll interval")
                .isEqualTo(Duration.ofMillis(5));
    }

    @Test
    void a_poll_interval_above_the_cap_is_kept_as_it_is() {
        IdlePacing pacing = new IdlePacing(Duration.ofMillis(500));
        assertThat(waits(pacing, 3)).containsOnly(Duration.ofMillis(500));
    }

    @Test
    void a_zero_poll_interval_still_waits_a_millisecond_when_idle() {
        IdlePacing pacing = new IdlePacing(Duration.ZERO);
        assertThat(pacing.after(0)).isEqualTo(Duration.ofMillis(1));
        assertThat(pacing.after(0)).isEqualTo(Duration.ofMillis(2));
    }
}
