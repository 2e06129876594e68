package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.service.UploadResult.Outcome;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.rotation.RotationPolicy;
import dev.iggysink.domain.rotation.RotationReason;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DrainTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:00:00Z"));
    private final ScriptedMessageSource source = new ScriptedMessageSource("app", "clicks", 1);
    private final Controls controls = new Controls();
    private final Deque<UploadJob> handed = new ArrayDeque<>();
    private final List<RotationReason> sealedFor = new ArrayList<>();
    private PartitionWriter writer;
    /** When true the uploads answer durable; when false they never answer (the clock moves on instead). */
    private boolean storeAnswers = true;
    private int waits;

    private final Drain.Uploads uploads = new Drain.Uploads() {
        @Override
        public void applyPending() {
        }

        @Override
        public boolean awaitOne(Duration timeout) {
            waits++;
            if (!storeAnswers || handed.isEmpty()) {
                clock.advance(timeout);
                return false;
            }
            UploadJob job = handed.poll();
            writer.uploaded(new UploadResult(job, Outcome.DURABLE, Duration.ZERO, 1, Optional.empty(), false),
                    writer.generation());
            return true;
        }
    };

    private final Drain drain = new Drain(uploads, new Committer(source, SinkMetrics.NONE), clock,
            Duration.ofSeconds(5), controls);

    /** An owned writer of partition 0 with offsets 0-4 read and open (rotation by count 100). */
    private PartitionWriter writerWithOpenFile() {
        source.append(0, 5, i -> "r" + i);
        FileLayout layout = new FileLayout(OutputSettings.jsonLines("", "{topic}"), "jsonl");
        writer = new PartitionWriter(source.partition(0), new LinesCodec(), layout, RotationPolicy.byCount(100), 1,
                ErrorTolerance.NONE, "_dlq", new MemoryBudget(1 << 20), clock, SinkMetrics.NONE,
                (from, job, generation) -> {
                    handed.add(job);
                    sealedFor.add(job.file().reason());
                });
        writer.restart(-1, true);
        List<SinkRecord> records = new ArrayList<>();
        for (long o = 0; o < 5; o++) {
            records.add(new SinkRecord(source.partition(0), o, 0, 0, MessageId.ZERO, List.of(),
                    ("r" + o).getBytes(StandardCharsets.UTF_8)));
        }
        writer.accept(records);
        return writer;
    }

    @Test
    void a_stop_seals_open_files_waits_for_their_uploads_and_commits_them() {
        PartitionWriter w = writerWithOpenFile();

        drain.run(List.of(w), false);

        assertThat(sealedFor).containsExactly(RotationReason.SHUTDOWN);
        assertThat(source.stored(0)).hasValue(4);
        assertThat(Drain.problems(List.of(w))).isEmpty();
    }

    @Test
    void after_a_crash_open_files_are_dropped_not_sealed() {
        PartitionWriter w = writerWithOpenFile();

        drain.run(List.of(w), true);

        assertThat(sealedFor).isEmpty();
        assertThat(w.openBytes()).isZero();
        assertThat(source.stored(0)).isEmpty();
        assertThat(Drain.problems(List.of(w))).singleElement().asString().contains("offsets from 0");
    }

    @Test
    void uploads_that_do_not_end_are_waited_for_until_the_deadline_and_reported() {
        storeAnswers = false;
        PartitionWriter w = writerWithOpenFile();

        drain.run(List.of(w), false);

        // 5 s in waits of 50 ms: the drain gave up at the deadline, not before.
        assertThat(waits).isEqualTo(100);
        assertThat(source.stored(0)).isEmpty();
        assertThat(Drain.problems(List.of(w))).singleElement().asString()
                .contains("partition").contains("offsets from 0").contains("read again");
    }

    @Test
    void a_second_stop_signal_ends_the_wait_at_once() {
        storeAnswers = false;
        controls.hurry = true;
        PartitionWriter w = writerWithOpenFile();

        drain.run(List.of(w), false);

        assertThat(waits).isZero();
        assertThat(Drain.problems(List.of(w))).hasSize(1);
    }
}
