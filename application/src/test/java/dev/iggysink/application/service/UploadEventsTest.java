package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.retry.Backoff;
import dev.iggysink.domain.retry.RetryPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class UploadEventsTest {
    private static final PartitionRef P = new PartitionRef("app", "clicks", 0);
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final Uploader uploader = new Uploader(store, new RetryPolicy(3,
            new Backoff(Duration.ofSeconds(30), Duration.ofSeconds(30), 0)), InstantSource.system(), SinkMetrics.NONE, 1);
    private final Controls controls = new Controls();
    private final UploadEvents events = new UploadEvents(uploader, controls, "app/clicks",
            new dev.iggysink.application.fakes.ScriptedMessageSource("app", "clicks", 1));
    private final MemoryBudget budget = new MemoryBudget(1 << 20);

    @AfterEach
    void close() {
        uploader.close();
    }

    /** An owned writer (count 3) that read offsets 0-2 and handed their file to the uploader. */
    private PartitionWriter writerWithSealedFile() {
        FileLayout layout = new FileLayout(OutputSettings.jsonLines("", "{topic}"), "jsonl");
        PartitionWriter w = new PartitionWriter(P, new LinesCodec(), layout,
                dev.iggysink.domain.rotation.RotationPolicy.byCount(3), 1, ErrorTolerance.NONE, "_dlq", budget,
                InstantSource.system(), SinkMetrics.NONE, events.handOff());
        w.restart(-1, true);
        List<SinkRecord> records = new ArrayList<>();
        for (long o = 0; o < 3; o++) {
            records.add(new SinkRecord(P, o, 0, 0, MessageId.ZERO, List.of(), ("r" + o).getBytes(StandardCharsets.UTF_8)));
        }
        w.accept(records);
        return w;
    }

    private void awaitEnd(PartitionWriter w) throws InterruptedException {
        long until = System.nanoTime() + WAIT.toNanos();
        while (w.outstanding() > 0 && System.nanoTime() < until) events.awaitOne(Duration.ofMillis(50));
    }

    @Test
    void a_durable_upload_comes_back_to_the_writer_on_the_callers_thread() throws InterruptedException {
        PartitionWriter w = writerWithSealedFile();
        awaitEnd(w);

        assertThat(w.outstanding()).isZero();
        assertThat(w.committable()).hasValue(2);
        assertThat(budget.used()).isZero();
    }

    @Test
    void a_superseded_first_upload_makes_the_writer_assign_the_partition_anew() throws Exception {
        store.put("clicks/00000-00000000000000000000-00000000000000000001.jsonl", new byte[] {1}, "x");
        PartitionWriter w = writerWithSealedFile();
        awaitEnd(w);

        assertThat(w.owned()).isFalse();
        assertThat(store.objects()).doesNotContainKey("clicks/00000-00000000000000000000-00000000000000000002.jsonl");
        assertThat(controls.fatal.get()).isNull();
    }

    @Test
    void an_error_that_ended_an_upload_stops_the_sink() throws InterruptedException {
        store.throwOnKeys(k -> true, () -> new StackOverflowError("simulated"));
        PartitionWriter w = writerWithSealedFile();
        awaitEnd(w);

        assertThat(controls.stopping).isTrue();
        assertThat(controls.fatal.get()).contains("StackOverflowError");
    }

    @Test
    void losing_the_partition_ends_its_waiting_upload_at_once() throws InterruptedException {
        store.failKeys(k -> true);
        PartitionWriter w = writerWithSealedFile();
        for (int i = 0; i < 200 && !w.stalled(); i++) events.awaitOne(Duration.ofMillis(50));
        assertThat(w.stalled()).isTrue();

        w.lost();
        awaitEnd(w);

        assertThat(w.outstanding()).isZero();
        assertThat(budget.used()).isZero();
        assertThat(store.putAttempts()).isEqualTo(1);
    }
}
