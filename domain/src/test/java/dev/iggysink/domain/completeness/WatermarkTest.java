package dev.iggysink.domain.completeness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class WatermarkTest {
    @Test
    void the_watermark_is_the_least_time_over_every_partition_of_the_topic() {
        assertThat(Watermark.of(Map.of(0, 500L, 1, 300L, 2, 900L), 3)).hasValue(300L);
        assertThat(Watermark.of(Map.of(0, 500L, 2, 900L), 3)).as("partition 1 has no time yet").isEmpty();
        assertThat(Watermark.of(Map.of(0, 500L, 1, Long.MIN_VALUE), 2)).as("nothing known of partition 1").isEmpty();
        assertThat(Watermark.of(Map.of(), 0)).isEmpty();
    }

    @Test
    void a_busy_partition_is_complete_up_to_its_last_record_and_an_idle_one_up_to_the_clock_less_the_margin() {
        long skew = Watermark.SKEW_MICROS;
        assertThat(Watermark.completeBefore(1_000L, false, 90_000_000L, skew)).isEqualTo(1_000L);
        assertThat(Watermark.completeBefore(1_000L, true, 90_000_000L, skew)).isEqualTo(85_000_000L);
        assertThat(Watermark.completeBefore(Long.MIN_VALUE, true, 90_000_000L, skew)).isEqualTo(85_000_000L);
        // a record stamped after the end was read (the server's clock ahead): its own time counts
        assertThat(Watermark.completeBefore(95_000_000L, true, 90_000_000L, skew)).isEqualTo(95_000_000L);
    }

    @Test
    void a_partition_time_never_goes_back_so_a_halted_one_keeps_holding_the_watermark() {
        Map<Integer, Long> before = Map.of(0, 500L, 1, 300L);
        // a stale update (a member that lost partition 0 commits late) does not move it back
        Map<Integer, Long> merged = Watermark.merge(before, Map.of(0, 400L, 1, 350L));
        assertThat(merged).containsExactlyInAnyOrderEntriesOf(Map.of(0, 500L, 1, 350L));
        // partition 1 halts: no update of it comes any more while partition 0 moves on
        Map<Integer, Long> later = Watermark.merge(merged, Map.of(0, 10_000L));
        assertThat(Watermark.of(later, 2)).hasValue(350L);
    }
}
