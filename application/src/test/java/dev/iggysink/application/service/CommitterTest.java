package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.service.UploadResult.Outcome;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CommitterTest {
    private final ScriptedMessageSource source = new ScriptedMessageSource("app", "clicks", 1);
    private final Committer committer = new Committer(source, SinkMetrics.NONE);
    private final List<UploadJob> handed = new ArrayList<>();

    /** A writer of partition 0 that owns it from {@code committed + 1} and made offsets 0-2 durable. */
    private PartitionWriter writerWithDurableFile() {
        source.append(0, 3, i -> "r" + i);
        FileLayout layout = new FileLayout(OutputSettings.jsonLines("", "{topic}"), "jsonl");
        PartitionWriter w = new PartitionWriter(source.partition(0), new LinesCodec(), layout,
                RotationPolicy.byCount(3), 1, ErrorTolerance.NONE, "_dlq", new MemoryBudget(1 << 20),
                InstantSource.system(), SinkMetrics.NONE, (from, job, generation) -> handed.add(job));
        w.restart(-1, true);
        List<SinkRecord> records = new ArrayList<>();
        for (long o = 0; o < 3; o++) {
            records.add(new SinkRecord(source.partition(0), o, 0, 0, MessageId.ZERO, List.of(),
                    ("r" + o).getBytes(StandardCharsets.UTF_8)));
        }
        w.accept(records);
        w.uploaded(new UploadResult(handed.get(0), Outcome.DURABLE, Duration.ZERO, 1, Optional.empty(), false),
                w.generation());
        return w;
    }

    @Test
    void a_durable_file_is_committed_once() {
        PartitionWriter w = writerWithDurableFile();

        committer.commitAll(List.of(w));
        committer.commitAll(List.of(w));

        assertThat(source.stored(0)).hasValue(2);
        assertThat(w.lastCommitted()).isEqualTo(2);
        assertThat(source.commitLog()).containsExactly("0:2");
    }

    @Test
    void a_failed_commit_is_noted_and_retried_on_the_next_turn() {
        PartitionWriter w = writerWithDurableFile();
        source.failCommits(new SourceException("timeout", true));

        committer.commitAll(List.of(w));
        assertThat(source.stored(0)).isEmpty();
        assertThat(w.status().lastError()).hasValueSatisfying(e -> assertThat(e).contains("commit failed: timeout"));

        committer.commitAll(List.of(w));
        assertThat(source.stored(0)).hasValue(2);
    }

    @Test
    void a_commit_refused_as_revoked_makes_the_writer_lose_the_partition() {
        PartitionWriter w = writerWithDurableFile();
        source.own(0, false);

        committer.commitAll(List.of(w));

        assertThat(w.owned()).isFalse();
        assertThat(source.stored(0)).isEmpty();
        assertThat(w.committable()).isEmpty();
    }
}
