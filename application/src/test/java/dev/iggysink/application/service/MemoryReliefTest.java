package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.status.Health;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.rotation.RotationPolicy;
import dev.iggysink.domain.rotation.RotationReason;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryReliefTest {
    private final MemoryBudget budget = new MemoryBudget(100);
    private final MemoryRelief relief = new MemoryRelief(budget, "app/clicks", InstantSource.system());
    private final List<UploadJob> handed = new ArrayList<>();

    /** An owned writer of partition {@code id} with {@code records} records of 10 bytes open, by count 1000. */
    private PartitionWriter writer(int id, int records) {
        PartitionRef p = new PartitionRef("app", "clicks", id);
        FileLayout layout = new FileLayout(OutputSettings.jsonLines("", "{topic}"), "jsonl");
        PartitionWriter w = new PartitionWriter(p, new LinesCodec(), layout, RotationPolicy.byCount(1000), 1,
                ErrorTolerance.NONE, "_dlq", budget, InstantSource.system(), SinkMetrics.NONE,
                (from, job, generation) -> handed.add(job));
        w.restart(-1, true);
        List<SinkRecord> batch = new ArrayList<>();
        for (long o = 0; o < records; o++) {
            batch.add(new SinkRecord(p, o, 0, 0, MessageId.ZERO, List.of(),
                    "x".repeat(10).getBytes(StandardCharsets.UTF_8)));
        }
        w.accept(batch);
        return w;
    }

    @Test
    void under_the_budget_polling_goes_on_and_nothing_is_sealed() {
        PartitionWriter w = writer(0, 2);
        assertThat(relief.mayPoll(List.of(w))).isTrue();
        assertThat(handed).isEmpty();
    }

    @Test
    void a_full_budget_with_no_upload_under_way_seals_the_largest_open_file() {
        PartitionWriter small = writer(0, 3);
        PartitionWriter large = writer(1, 8);
        assertThat(budget.exhausted()).isTrue();

        assertThat(relief.mayPoll(List.of(small, large))).isFalse();

        assertThat(handed).singleElement().satisfies(j -> {
            assertThat(j.file().partition().partitionId()).isEqualTo(1);
            assertThat(j.file().reason()).isEqualTo(RotationReason.MEMORY_PRESSURE);
        });
        assertThat(small.openBytes()).isPositive();
    }

    @Test
    void a_full_budget_waits_for_uploads_under_way_instead_of_sealing() {
        PartitionWriter sealed = writer(0, 3);
        sealed.sealAll(RotationReason.COUNT);
        PartitionWriter open = writer(1, 8);
        handed.clear();

        assertThat(relief.mayPoll(List.of(sealed, open))).isFalse();
        assertThat(handed).isEmpty();
    }

    @Test
    void a_partition_whose_upload_is_failing_is_not_sealed_for_relief() {
        PartitionWriter stalled = writer(0, 3);
        stalled.sealAll(RotationReason.COUNT);
        UploadJob failing = handed.get(0);
        stalled.retrying(failing, "503", stalled.generation());
        stalled.accept(List.of(new SinkRecord(stalled.partition(), 3, 0, 0, MessageId.ZERO, List.of(),
                "x".repeat(80).getBytes(StandardCharsets.UTF_8))));
        PartitionWriter other = writer(1, 2);
        handed.clear();

        relief.relieve(List.of(stalled, other));

        assertThat(handed).singleElement().satisfies(j ->
                assertThat(j.file().partition().partitionId()).isEqualTo(1));
    }

    /** An owned writer of partition {@code id} that must cut offsets 0..{@code claimedLast} (another member's claim). */
    private PartitionWriter claimed(int id, long claimedLast, int records) {
        PartitionRef p = new PartitionRef("app", "clicks", id);
        FileLayout layout = new FileLayout(OutputSettings.jsonLines("", "{topic}"), "jsonl");
        PartitionWriter w = new PartitionWriter(p, new LinesCodec(), layout, RotationPolicy.byCount(1000), 1,
                ErrorTolerance.NONE, "_dlq", budget, InstantSource.system(), SinkMetrics.NONE,
                (from, job, generation) -> handed.add(job));
        w.restart(-1, true);
        w.assigned(new Claims(new InMemoryObjectStore(), "").in("test"), 0, claimedLast);
        List<SinkRecord> batch = new ArrayList<>();
        for (long o = 0; o < records; o++) {
            batch.add(new SinkRecord(p, o, 0, 0, MessageId.ZERO, List.of(),
                    "x".repeat(10).getBytes(StandardCharsets.UTF_8)));
        }
        w.accept(batch);
        return w;
    }

    @Test
    void a_full_budget_seals_the_other_partitions_files_not_the_claimed_cut_that_cannot_be_sealed() {
        PartitionWriter cut = claimed(0, 15, 8);
        PartitionWriter other = writer(1, 3);
        assertThat(budget.exhausted()).isTrue();

        relief.relieve(List.of(cut, other));

        assertThat(handed).as("the open file that relief sealed").singleElement().satisfies(j -> {
            assertThat(j.file().partition().partitionId()).isEqualTo(1);
            assertThat(j.file().reason()).isEqualTo(RotationReason.MEMORY_PRESSURE);
        });
        assertThat(cut.openRecords()).isEqualTo(8);
    }

    @Test
    void a_claimed_cut_still_open_may_be_read_past_a_full_budget_up_to_its_claimed_end() {
        PartitionWriter cut = claimed(0, 15, 11);
        assertThat(budget.exhausted()).isTrue();

        assertThat(relief.mayPoll(List.of(cut))).as("polling may go on for the claimed cut").isTrue();
        assertThat(relief.mayPollPastBudget(cut)).isTrue();

        List<SinkRecord> rest = new ArrayList<>();
        for (long o = 11; o <= 20; o++) {
            rest.add(new SinkRecord(cut.partition(), o, 0, 0, MessageId.ZERO, List.of(),
                    "x".repeat(10).getBytes(StandardCharsets.UTF_8)));
        }
        cut.accept(rest);

        assertThat(handed).singleElement().satisfies(j -> {
            assertThat(j.file().firstOffset()).isZero();
            assertThat(j.file().lastOffset()).isEqualTo(15);
            assertThat(j.file().reason()).isEqualTo(RotationReason.CLAIM);
        });
        assertThat(relief.mayPollPastBudget(cut)).as("past its claimed end it waits like any other").isFalse();
        assertThat(relief.mayPoll(List.of(cut))).isFalse();
    }

    @Test
    void polling_held_by_the_budget_with_nothing_read_or_freed_turns_degraded_then_failed_naming_the_partition() {
        ManualClock clock = new ManualClock(Instant.parse("2026-12-05T11:00:00Z"));
        MemoryRelief watched = new MemoryRelief(budget, "app/clicks", clock);
        PartitionWriter cut = claimed(0, 15, 11); // the rest of the claimed cut never arrives
        Duration stuckAfter = Duration.ofMinutes(5);

        assertThat(watched.mayPoll(List.of(cut))).isTrue();
        assertThat(watched.held(clock.instant(), stuckAfter)).isEmpty();

        clock.advance(MemoryRelief.DEGRADED_AFTER.plusSeconds(1));
        watched.mayPoll(List.of(cut));
        assertThat(watched.held(clock.instant(), stuckAfter)).hasValueSatisfying(h -> {
            assertThat(h.getKey()).isEqualTo(Health.DEGRADED);
            assertThat(h.getValue()).contains("app/clicks", "memory budget", "partition 0",
                    "claimed cut 0-15 still open");
        });

        clock.advance(stuckAfter);
        watched.mayPoll(List.of(cut));
        assertThat(watched.held(clock.instant(), stuckAfter)).hasValueSatisfying(h ->
                assertThat(h.getKey()).isEqualTo(Health.FAILED));
    }

    @Test
    void memory_read_or_freed_while_held_counts_as_progress() {
        ManualClock clock = new ManualClock(Instant.parse("2026-12-05T11:00:00Z"));
        MemoryRelief watched = new MemoryRelief(budget, "app/clicks", clock);
        PartitionWriter cut = claimed(0, 15, 11);
        watched.mayPoll(List.of(cut));

        clock.advance(MemoryRelief.DEGRADED_AFTER.plusSeconds(1));
        cut.accept(List.of(new SinkRecord(cut.partition(), 11, 0, 0, MessageId.ZERO, List.of(),
                "x".repeat(10).getBytes(StandardCharsets.UTF_8))));
        watched.mayPoll(List.of(cut));

        assertThat(watched.held(clock.instant(), Duration.ofMinutes(5))).isEmpty();
    }
}
