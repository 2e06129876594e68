package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.time.InstantSource;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FetcherTest {
    private final ScriptedMessageSource topic = new ScriptedMessageSource("s", "t", 2);
    private final AtomicInteger polls = new AtomicInteger();
    /** Whether the next poll fails as Netty does when it cannot take the answer in. */
    private final AtomicBoolean outOfMemory = new AtomicBoolean();
    /** The record count each poll asked for. */
    private final List<Integer> asked = new CopyOnWriteArrayList<>();
    private final MemoryBudget budget = new MemoryBudget(16 << 20);
    private Fetcher fetcher;

    /** The topic, counting polls. */
    private final MessageSource counting = new MessageSource() {
        @Override
        public void connect() {
        }

        @Override
        public List<PartitionRef> partitions() throws SourceException {
            return topic.partitions();
        }

        @Override
        public OptionalLong committedOffset(PartitionRef partition) throws SourceException {
            return topic.committedOffset(partition);
        }

        @Override
        public java.util.Map<PartitionRef, Long> endOffsets() throws SourceException {
            return topic.endOffsets();
        }

        @Override
        public Batch poll(PartitionRef partition, long fromOffset, int maxRecords) throws SourceException {
            polls.incrementAndGet();
            asked.add(maxRecords);
            if (outOfMemory.getAndSet(false)) {
                throw new SourceException("connection to Iggy failed while trying to poll", true,
                        new OutOfMemoryError("failed to allocate 335547614 byte(s) of direct memory"));
            }
            return topic.poll(partition, fromOffset, maxRecords);
        }

        @Override
        public void commit(PartitionRef partition, long offset) throws SourceException {
            topic.commit(partition, offset);
        }

        @Override
        public long sessionEpoch() {
            return topic.sessionEpoch();
        }

        @Override
        public void close() {
        }
    };

    private PartitionWriter writer(int partition) {
        PartitionWriter w = new PartitionWriter(topic.partition(partition), new LinesCodec(),
                new FileLayout(OutputSettings.jsonLines("", "{topic}"), "jsonl"), RotationPolicy.byCount(1000), 1,
                ErrorTolerance.NONE, "_dlq", budget, InstantSource.system(), SinkMetrics.NONE,
                (from, job, generation) -> { });
        w.restart(-1, true);
        return w;
    }

    @AfterEach
    void close() {
        if (fetcher != null) fetcher.close();
    }

    @Test
    void a_poll_started_ahead_for_the_position_is_used_instead_of_a_second_poll() throws Exception {
        topic.append(0, 10, i -> "r" + i);
        fetcher = new Fetcher("s/t", counting, budget, 100);
        PartitionWriter w = writer(0);

        fetcher.learned(List.of(sampleRecord()), 2);
        fetcher.fetchAhead(w, 0);
        Batch b = fetcher.fetch(w, x -> true);

        assertThat(b.records()).hasSize(10);
        assertThat(polls).hasValue(1);
    }

    @Test
    void a_poll_ahead_whose_partition_moved_on_is_dropped_and_polled_afresh() throws Exception {
        topic.append(0, 10, i -> "r" + i);
        fetcher = new Fetcher("s/t", counting, budget, 100);
        PartitionWriter w = writer(0);

        fetcher.fetchAhead(w, 0);
        w.restart(4, true); // e.g. revoked and assigned again: now at 5
        Batch b = fetcher.fetch(w, x -> true);

        assertThat(b.records().get(0).offset()).isEqualTo(5);
        assertThat(polls).hasValue(2);
    }

    @Test
    void a_poll_ahead_for_another_partition_is_kept_for_later_in_the_pass() throws Exception {
        topic.append(0, 3, i -> "a" + i);
        topic.append(1, 3, i -> "b" + i);
        fetcher = new Fetcher("s/t", counting, budget, 100);
        PartitionWriter w0 = writer(0);
        PartitionWriter w1 = writer(1);

        fetcher.fetchAhead(w1, 0);
        fetcher.fetch(w0, x -> true);
        Batch b1 = fetcher.fetch(w1, x -> true);

        assertThat(b1.partition().partitionId()).isEqualTo(1);
        assertThat(polls).hasValue(2);
    }

    @Test
    void polls_are_cut_to_what_still_fits_the_memory_budget() {
        fetcher = new Fetcher("s/t", counting, budget, 1000);
        topic.append(0, 1, i -> "x".repeat(1000));
        fetcher.learned(List.of(sampleRecord()), 1024); // 1 KiB per record
        budget.reserve(budget.max() - 10 * 1024);

        assertThat(fetcher.pollSize(0)).isEqualTo(10);
    }

    @Test
    void a_poll_holds_at_most_a_quarter_of_the_budget_however_much_room_there_is() throws Exception {
        // It is encoded whole even when the budget fills half-way: a budget's worth in one poll doubles the heap.
        fetcher = new Fetcher("s/t", counting, budget, 1000);
        topic.append(0, 4, i -> "r" + i);
        fetcher.learned(topic.poll(topic.partition(0), 0, 4).records(), 4L << 20); // 1 MiB per record

        assertThat(fetcher.pollSize(0)).isEqualTo(4); // 16 MiB / 4, not 16
    }

    @Test
    void before_a_poll_tells_the_record_size_a_poll_asks_for_one_record() {
        // Records may be as large as Iggy takes (64 MB): 288 records of 4 MiB asked by a guess of 64 KiB were more
        // direct memory than the client had, refused on every retry.
        fetcher = new Fetcher("s/t", counting, budget, 1000);
        assertThat(fetcher.pollSize(0)).isEqualTo(1);

        topic.append(0, 1, i -> "x".repeat(1000));
        fetcher.learned(List.of(sampleRecord()), 1024);
        assertThat(fetcher.pollSize(0)).isEqualTo(1000);
    }

    @Test
    void the_poll_ahead_leaves_room_for_the_batch_still_being_encoded() throws Exception {
        // The batch handed out is on the heap but not yet in the budget: a poll ahead sized to the whole room would
        // hold a second budget's worth (what ran a 256 MiB heap out with 64 KiB records).
        topic.append(0, 4, i -> "r" + i);
        fetcher = new Fetcher("s/t", counting, budget, 1000);
        List<SinkRecord> batch = topic.poll(topic.partition(0), 0, 4).records();
        fetcher.learned(batch, 1L << 20); // four records of 256 KiB, about to be encoded
        budget.reserve(13L << 20); // of 16 MiB: 3 MiB of room

        PartitionWriter next = writer(1);
        fetcher.fetchAhead(next, 0);
        fetcher.fetch(next, x -> true); // takes the poll ahead: no second poll

        assertThat(asked).containsExactly(8); // (3 - 1) MiB of room, 256 KiB each
    }

    @Test
    void after_a_poll_the_source_ran_out_of_memory_for_polls_ask_for_one_record_and_full_answers_double_it()
            throws Exception {
        // polls sized by small records meet records that grew at once: asked again alike, it would fail for good
        topic.append(0, 2000, i -> "r" + i);
        fetcher = new Fetcher("s/t", counting, budget, 1000);
        fetcher.learned(List.of(sampleRecord()), 2);
        PartitionWriter w = writer(0);
        outOfMemory.set(true);

        assertThatThrownBy(() -> fetcher.fetch(w, x -> true))
                .isInstanceOf(SourceException.class);
        for (int i = 0; i < 4; i++) w.accept(fetcher.fetch(w, x -> true).records());

        assertThat(asked).containsExactly(1000, 1, 2, 4, 8);
    }

    private dev.iggysink.domain.message.SinkRecord sampleRecord() {
        try {
            return topic.poll(topic.partition(0), 0, 1).records().get(0);
        } catch (SourceException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Review finding 3: under a full budget only a partition completing a claimed cut may read on, and it must read to
     * the cut's end in one poll, not one record per poll while the topic's other partitions wait.
     */
    @Test
    void a_partition_completing_a_claimed_cut_under_a_full_budget_polls_up_to_the_cuts_end_at_once() throws Exception {
        topic.append(0, 300, i -> "r" + i);
        fetcher = new Fetcher("s/t", counting, budget, 100);
        PartitionWriter w = writer(0);
        w.assigned(null, 0, 161);
        budget.reserve(budget.max());

        assertThat(fetcher.fetch(w, x -> true).records()).as("records of the first poll").hasSize(100);
        w.accept(topic.poll(w.partition(), 0, 100).records());
        assertThat(fetcher.fetch(w, x -> true).records()).as("records of the poll that ends the cut").hasSize(62);
        assertThat(asked).containsExactly(100, 62);
    }
}
