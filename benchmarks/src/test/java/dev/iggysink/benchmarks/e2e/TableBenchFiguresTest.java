package dev.iggysink.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The figures the table bench prints: percentiles of commit and freshness times, and the names of record sizes. */
class TableBenchFiguresTest {
    @Test
    void percentilesAreNearestRankOverSortedValues() {
        List<Long> values = List.of(10L, 20L, 30L, 40L, 50L, 60L, 70L, 80L, 90L, 100L);
        assertThat(TableBench.percentile(values, 50)).isEqualTo(50L);
        assertThat(TableBench.percentile(values, 99)).isEqualTo(100L);
        assertThat(TableBench.percentile(values, 1)).isEqualTo(10L);
        assertThat(TableBench.percentile(List.of(7L), 50)).isEqualTo(7L);
    }

    @Test
    void noValuesGiveMinusOne() {
        assertThat(TableBench.percentile(List.of(), 50)).isEqualTo(-1L);
    }

    @Test
    void sizesAreNamedAsTheFinalLinesNameThem() {
        assertThat(TableBench.label(100)).isEqualTo("100B");
        assertThat(TableBench.label(1024)).isEqualTo("1KiB");
        assertThat(TableBench.label(65536)).isEqualTo("64KiB");
    }
}
