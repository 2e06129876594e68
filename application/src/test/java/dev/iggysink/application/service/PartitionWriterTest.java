package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.service.UploadResult.Outcome;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** One partition's writer driven directly: what it seals, hands over, commits and releases. */
class PartitionWriterTest {
    private static final PartitionRef P = new PartitionRef("app", "clicks", 0);

    private record Handed(UploadJob job, long generation) {
    }

    private final List<Handed> handed = new ArrayList<>();
    private final MemoryBudget budget = new MemoryBudget(1 << 20);

    private PartitionWriter writer(String template, int maxOpenFiles, ErrorTolerance tolerance) {
        FileLayout layout = new FileLayout(OutputSettings.jsonLines("", template), "jsonl");
        return new PartitionWriter(P, new LinesCodec(), layout, RotationPolicy.byCount(3), maxOpenFiles, tolerance,
                "_dlq", budget, InstantSource.system(), SinkMetrics.NONE,
                (from, job, generation) -> handed.add(new Handed(job, generation)));
    }

    private static List<SinkRecord> records(long from, String... payloads) {
        List<SinkRecord> out = new ArrayList<>();
        for (String p : payloads) {
            out.add(new SinkRecord(P, from++, 1_773_669_751_000_000L, 0, MessageId.ZERO, List.of(),
                    p.getBytes(StandardCharsets.UTF_8)));
        }
        return out;
    }

    private static UploadResult result(Handed h, Outcome outcome) {
        return new UploadResult(h.job(), outcome, Duration.ofMillis(1), 10,
                outcome == Outcome.DURABLE ? Optional.empty() : Optional.of("403 AccessDenied"), false);
    }

    @Test
    void starts_unowned_and_reads_from_the_offset_given_when_assigned() {
        PartitionWriter w = writer("{topic}", 1, ErrorTolerance.NONE);
        assertThat(w.owned()).isFalse();

        w.restart(41, true);
        assertThat(w.owned()).isTrue();
        assertThat(w.position()).isEqualTo(42);
    }

    @Test
    void a_full_file_is_handed_over_and_committable_once_durable_with_its_memory_released_in_the_same_step() {
        PartitionWriter w = writer("{topic}", 1, ErrorTolerance.NONE);
        w.restart(-1, true);
        w.accept(records(0, "a", "b", "c", "d"));

        assertThat(handed).singleElement().satisfies(h ->
                assertThat(h.job().file().key()).isEqualTo("clicks/00000-00000000000000000000-00000000000000000002.jsonl"));
        assertThat(w.outstanding()).isEqualTo(1);
        assertThat(w.committable()).isEmpty();
        long usedBefore = budget.used();

        w.uploaded(result(handed.get(0), Outcome.DURABLE), handed.get(0).generation());

        assertThat(w.outstanding()).isZero();
        assertThat(budget.used()).isEqualTo(usedBefore - handed.get(0).job().reservedBytes());
        assertThat(w.committable()).isEqualTo(OptionalLong.of(2));
    }

    @Test
    void a_retrying_upload_stalls_the_partition_until_it_ends() {
        PartitionWriter w = writer("{topic}", 1, ErrorTolerance.NONE);
        w.restart(-1, true);
        w.accept(records(0, "a", "b", "c"));
        Handed h = handed.get(0);

        w.retrying(h.job(), "503", h.generation());
        assertThat(w.stalled()).isTrue();
        assertThat(w.progressingUploads()).isZero();

        w.uploaded(result(h, Outcome.DURABLE), h.generation());
        assertThat(w.stalled()).isFalse();
    }

    @Test
    void a_refused_upload_halts_the_partition_drops_its_open_files_and_commits_nothing_past_it() {
        PartitionWriter w = writer("{topic}", 1, ErrorTolerance.NONE);
        w.restart(-1, true);
        w.accept(records(0, "a", "b", "c", "d", "e"));
        assertThat(w.openBytes()).isPositive();

        w.uploaded(result(handed.get(0), Outcome.REFUSED), handed.get(0).generation());

        assertThat(w.halted()).isTrue();
        assertThat(w.haltReason()).hasValueSatisfying(r -> assertThat(r).contains("partition 0").contains("403"));
        assertThat(w.openBytes()).isZero();
        assertThat(budget.used()).isZero();
        assertThat(w.committable()).isEmpty();
        assertThat(w.idle()).isTrue();
    }

    @Test
    void a_result_of_an_earlier_generation_only_frees_memory() {
        PartitionWriter w = writer("{topic}", 1, ErrorTolerance.NONE);
        w.restart(-1, true);
        w.accept(records(0, "a", "b", "c"));
        Handed old = handed.get(0);
        w.restart(-1, true); // revoked and assigned again meanwhile

        w.uploaded(result(old, Outcome.DURABLE), old.generation());

        assertThat(budget.used()).isZero();
        assertThat(w.committable()).isEmpty();
        assertThat(w.position()).isZero();
    }

    @Test
    void a_record_whose_key_would_be_too_long_is_dead_lettered_under_tolerance_all() {
        PartitionWriter w = writer("{field:city}", 2, ErrorTolerance.ALL);
        w.restart(-1, true);
        w.accept(records(0, "city=" + "x".repeat(1100)));

        assertThat(handed).singleElement().satisfies(h -> {
            assertThat(h.job().file().key()).isEqualTo("_dlq/app/clicks/00000-00000000000000000000.json");
            assertThat(new String(h.job().content().get().toByteArray(), StandardCharsets.UTF_8)).contains("1024");
        });
        assertThat(w.halted()).isFalse();
    }

    /** Lines, with an encoder that reports {@code heap} as the heap it holds (a buffer allocated ahead). */
    private static dev.iggysink.application.port.out.RecordCodec buffered(java.util.function.LongSupplier heap) {
        LinesCodec lines = new LinesCodec();
        return new dev.iggysink.application.port.out.RecordCodec() {
            @Override
            public dev.iggysink.application.port.out.DecodedRecord decode(SinkRecord record)
                    throws dev.iggysink.application.port.out.BadRecordException {
                return lines.decode(record);
            }

            @Override
            public dev.iggysink.application.port.out.FileEncoder newFile() {
                dev.iggysink.application.port.out.FileEncoder inner = lines.newFile();
                return new dev.iggysink.application.port.out.FileEncoder() {
                    @Override
                    public long append(dev.iggysink.application.port.out.DecodedRecord record)
                            throws dev.iggysink.application.port.out.BadRecordException {
                        return inner.append(record);
                    }

                    @Override
                    public int count() {
                        return inner.count();
                    }

                    @Override
                    public dev.iggysink.application.file.FileBytes finish() {
                        return inner.finish();
                    }

                    @Override
                    public long heapBytes() {
                        return heap.getAsLong();
                    }
                };
            }

            @Override
            public String extension() {
                return "jsonl";
            }

            @Override
            public String contentType() {
                return "application/x-ndjson";
            }
        };
    }

    /** A writer of {@link #buffered} files of three records each, started at offset 0. */
    private PartitionWriter bufferedWriter(java.util.function.LongSupplier heap) {
        PartitionWriter w = new PartitionWriter(P, buffered(heap), new FileLayout(
                OutputSettings.jsonLines("", "{topic}"), "jsonl"), RotationPolicy.byCount(3), 1, ErrorTolerance.NONE,
                "_dlq", budget, InstantSource.system(), SinkMetrics.NONE,
                (from, job, generation) -> handed.add(new Handed(job, generation)));
        w.restart(-1, true);
        return w;
    }

    /** Seals the open file with a third record, uploads it and checks that its 64 KiB went back to the budget. */
    private void sealAndUploadFreesTheReservation(PartitionWriter w) {
        w.accept(records(2, "c"));
        assertThat(handed.get(0).job().reservedBytes()).isEqualTo(64 * 1024);
        w.uploaded(result(handed.get(0), Outcome.DURABLE), handed.get(0).generation());
        assertThat(budget.used()).isZero();
    }

    @Test
    void an_encoder_whose_heap_shrinks_keeps_its_reservation_until_the_upload() {
        // Parquet's column buffers shrink when a page is compressed: what was reserved stays reserved.
        long[] heap = {64 * 1024};
        PartitionWriter w = bufferedWriter(() -> heap[0]);
        w.accept(records(0, "a"));
        assertThat(budget.used()).isEqualTo(64 * 1024);

        heap[0] = 10 * 1024;
        w.accept(records(1, "b"));
        assertThat(w.halted()).isFalse();
        assertThat(budget.used()).isEqualTo(64 * 1024);

        sealAndUploadFreesTheReservation(w);
    }

    @Test
    void the_budget_holds_the_encoders_buffer_when_it_runs_ahead_of_the_records_and_frees_it_with_the_upload() {
        PartitionWriter w = bufferedWriter(() -> 64 * 1024);

        w.accept(records(0, "a", "b"));
        assertThat(budget.used()).isEqualTo(64 * 1024);
        assertThat(w.openBytes()).isEqualTo(64 * 1024);

        sealAndUploadFreesTheReservation(w);
    }

    @Test
    void discarding_after_a_crash_drops_open_files_without_handing_them_over() {
        PartitionWriter w = writer("{topic}", 1, ErrorTolerance.NONE);
        w.restart(-1, true);
        w.accept(records(0, "a", "b"));

        w.discardOpen();

        assertThat(handed).isEmpty();
        assertThat(budget.used()).isZero();
        assertThat(w.committable()).isEmpty();
    }
}
