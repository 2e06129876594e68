package dev.iggysink.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The second half's figures: how they are computed and where the summary table shows them. */
class WarmHalfTest {

    @Test
    void the_warm_rate_counts_the_records_after_the_half_way_reading_over_the_time_to_the_last_commit() {
        // 1M records; the reading that saw 500,100 read came 6 s after start, the last commit 10 s after.
        double rate = EndToEndBench.warmRate(1_000_000, 500_100, 6_000_000_000L, 10_000_000_000L);

        assertThat(rate).isEqualTo(499_900 / 4.0);
    }

    @Test
    void without_a_half_way_reading_or_with_nothing_after_it_the_warm_rate_is_unknown() {
        assertThat(EndToEndBench.warmRate(1_000, -1, 0, 10)).isEqualTo(-1);
        assertThat(EndToEndBench.warmRate(1_000, 1_000, 0, 10)).isEqualTo(-1);
        assertThat(EndToEndBench.warmRate(1_000, 500, 10, 10)).isEqualTo(-1);
    }

    @Test
    void the_summary_table_shows_the_second_halfs_raw_put_ratio_beside_the_whole_runs() {
        List<String> lines = TableText.of("{\"name\":\"1kib-8mib\",\"partitions\":8,"
                + "\"upload_concurrency\":4,\"records_per_s\":111404.2,\"payload_mb_per_s\":114.08,"
                + "\"sink_vs_raw_put\":0.67,\"sink_vs_raw_put_second_half\":0.83,\"cpu_us_per_record\":6.88,"
                + "\"cpu_total_us_per_record\":10.5,\"cpu_second_half_us_per_record\":4.88,\"peak_rss_mib\":140}");

        assertThat(lines.get(1).split("\\s+")).containsSequence("vs", "rawPUT", "2nd", "half", "CPU");
        assertThat(lines.get(2).split("\\s+"))
                .containsExactly("1kib-8mib", "8", "4", "111,404", "114.08", "0.67", "0.83", "-", "6.88", "10.5",
                        "4.88", "140");
    }
}
