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
    void eachSizeReadsEnoughForSeveralCommitsUnlessTold() {
        assertThat(TableBench.messagesFor(100, 0)).isEqualTo(5_000_000);
        assertThat(TableBench.messagesFor(1024, 0)).isEqualTo(1_000_000);
        assertThat(TableBench.messagesFor(100, 20_000)).isEqualTo(20_000);
    }

    @Test
    void afterTheFirstCommitCountsOnlyWhenATenthOfTheRecordsCameAfterIt() {
        assertThat(TableBench.warm(100_000, 1_000_000, 2.0)).isTrue();
        // the run of 1M x 100 B whose only commit came at its end printed 16 million records/s "after" it
        assertThat(TableBench.warm(80, 1_000_000, 0.000005)).isFalse();
        assertThat(TableBench.warm(0, 1_000_000, 0)).isFalse();
    }

    @Test
    void sizesAreNamedAsTheFinalLinesNameThem() {
        assertThat(TableBench.label(100)).isEqualTo("100B");
        assertThat(TableBench.label(1024)).isEqualTo("1KiB");
        assertThat(TableBench.label(65536)).isEqualTo("64KiB");
    }

    @Test
    void aTableSinkHoldingTheSameFilesAfterReadingEverythingWaitsForItsCommitInterval() {
        String status = "{\"records_consumed\":300,\"lanes\":[{\"partition\":1,\"sealed_files\":2,"
                + "\"open_records\":40},{\"partition\":2,\"sealed_files\":0,\"open_records\":60}]}";
        List<Long> held = TableBench.held(status);
        assertThat(held).containsExactly(100L, 2L);
        assertThat(TableBench.waitsForInterval(300, 300, held, List.of(100L, 2L))).isTrue();
    }

    @Test
    void aTableSinkStillReadingAppendingOrCommittingIsNotWaiting() {
        List<Long> held = List.of(100L, 2L);
        // records not all read yet
        assertThat(TableBench.waitsForInterval(299, 300, held, held)).isFalse();
        // rows appended, or a file sealed or committed, since the read before
        assertThat(TableBench.waitsForInterval(300, 300, held, List.of(90L, 2L))).isFalse();
        assertThat(TableBench.waitsForInterval(300, 300, held, List.of(100L, 3L))).isFalse();
        // the first read after everything was read has nothing to compare with
        assertThat(TableBench.waitsForInterval(300, 300, held, null)).isFalse();
        // nothing held: everything is committed, and the group's offsets end the run
        assertThat(TableBench.waitsForInterval(300, 300, List.of(0L, 0L), List.of(0L, 0L))).isFalse();
    }
}
