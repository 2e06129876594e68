package dev.iggysink.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What a run's CPU allows: the ratio ceilings and the sink's CPU budget the bench prints, and the table's column. */
class CpuBoundTest {
    // A 1M-record run: raw PUT took 3.5 s; in the sink's window the sink used 3.5 s of CPU, MinIO 5.6 s, the broker
    // 1.2 s, on 2 cores.
    private final EndToEndBench.CpuBound bound = new EndToEndBench.CpuBound(3.5, 3.5, 5.6, 1.2, 0, 2, 1_000_000);

    @Test
    void the_ratio_cannot_exceed_the_baseline_time_over_the_runs_cpu_spread_over_the_cores() {
        // The three processes need (3.5 + 5.6 + 1.2) / 2 = 5.15 s of wall time at best.
        assertThat(bound.ratio()).isCloseTo(3.5 / 5.15, within(1e-9));
    }

    @Test
    void a_sink_using_no_cpu_is_bound_by_minio_and_the_broker_alone() {
        assertThat(bound.ratioWithoutSink()).isCloseTo(3.5 / 3.4, within(1e-9));
        assertThat(bound.ratioWithoutSink()).isGreaterThan(bound.ratio());
    }

    @Test
    void the_sink_budget_for_a_ratio_is_what_the_cores_leave_after_minio_and_the_broker() {
        // 0.8 of 3.5 s is 4.375 s of wall time, 8.75 s of CPU on 2 cores; MinIO and the broker take 6.8 of it.
        assertThat(bound.sinkUsPerRecordFor(0.8)).isCloseTo(1.95, within(1e-9));
        // A sink at exactly that budget reaches exactly the ratio.
        EndToEndBench.CpuBound atBudget = new EndToEndBench.CpuBound(3.5, 1.95, 5.6, 1.2, 0, 2, 1_000_000);
        assertThat(atBudget.ratio()).isCloseTo(0.8, within(1e-9));
    }

    @Test
    void cpu_the_hypervisor_held_back_counts_as_used_for_every_figure() {
        // The same run, with 0.6 s of the cores' time taken by another guest (steal).
        EndToEndBench.CpuBound stolen = new EndToEndBench.CpuBound(3.5, 3.5, 5.6, 1.2, 0.6, 2, 1_000_000);

        assertThat(stolen.ratio()).isCloseTo(3.5 / 5.45, within(1e-9));
        assertThat(stolen.ratioWithoutSink()).isCloseTo(3.5 / 3.7, within(1e-9));
        assertThat(stolen.sinkUsPerRecordFor(0.8)).isCloseTo(1.35, within(1e-9));
    }

    @Test
    void when_minio_and_the_broker_alone_exceed_the_cores_no_sink_budget_is_left() {
        EndToEndBench.CpuBound busy = new EndToEndBench.CpuBound(3.5, 3.5, 8.0, 1.5, 0, 2, 1_000_000);

        assertThat(busy.sinkUsPerRecordFor(0.8)).isNegative();
        assertThat(busy.ratioWithoutSink()).isLessThan(0.8);
    }

    @Test
    void the_summary_table_shows_the_cpu_bound_beside_the_ratios() {
        List<String> lines = TableText.of("{\"name\":\"1kib-8mib\",\"partitions\":8,"
                + "\"upload_concurrency\":4,\"records_per_s\":169503.1,\"payload_mb_per_s\":173.57,"
                + "\"sink_vs_raw_put\":0.6,\"sink_vs_raw_put_second_half\":0.65,\"cpu_bound_ratio\":0.67,"
                + "\"cpu_us_per_record\":3.5,\"cpu_total_us_per_record\":5.8,\"cpu_second_half_us_per_record\":2.45,"
                + "\"peak_rss_mib\":140}");

        assertThat(lines.get(1).split("\\s+")).containsSequence("2nd", "half", "CPU", "bound", "CPU", "us/r");
        assertThat(lines.get(2).split("\\s+"))
                .containsExactly("1kib-8mib", "8", "4", "169,503", "173.57", "0.6", "0.65", "0.67", "3.5", "5.8",
                        "2.45", "140");
    }
}
