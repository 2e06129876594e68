package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.rotation.RotationPolicy;
import dev.iggysink.domain.rotation.RotationReason;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryReliefTest {
    private final MemoryBudget budget = new MemoryBudget(100);
    private final MemoryRelief relief = new MemoryRelief(budget, "app/clicks");
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
}
