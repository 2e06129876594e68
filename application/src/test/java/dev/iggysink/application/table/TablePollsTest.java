package dev.iggysink.application.table;

import static dev.iggysink.application.table.TableTestSupport.range;
import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryTables;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The table sink's polls. Ahead (as the object sink's, ADR 0012): while one partition's records are decoded and
 * appended, the next partition's poll is out, so the loop does not wait for each answer in turn; every record still
 * lands once, and a poll ahead is left out where its batch could crowd the memory budget. Sized (as the object
 * sink's): a poll asks for no more records than a quarter of the budget holds, by the size of the records read last.
 */
class TablePollsTest {
    private static final String T = "lake.events";
    private static final Duration INTERVAL = Duration.ofSeconds(10);

    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:02:31Z"));
    private final ScriptedMessageSource topic = new ScriptedMessageSource("app", "events", 3).pollWithoutWaiting();
    private final InMemoryTables tables = new InMemoryTables();
    /** What the loop did, in order: "start p" (a poll sent ahead), "poll p" (a poll waited for), "decode p@o". */
    private final List<String> events = new CopyOnWriteArrayList<>();
    /** How many records each poll asked for, sent ahead or waited for, in order. */
    private final List<Integer> asked = new CopyOnWriteArrayList<>();

    private TableConsumer consumer(long maxBufferedBytes) {
        return consumer(maxBufferedBytes, 100);
    }

    private TableConsumer consumer(long maxBufferedBytes, int batchLength) {
        TableSettings settings = new TableSettings(TableRouting.fixed(T), RotationPolicy.byCount(100), INTERVAL, 100,
                batchLength, ErrorTolerance.ALL, maxBufferedBytes);
        return new TableConsumer(logged(MessageSource.class, topic), logged(RecordCodec.class, new LinesCodec()),
                tables, settings, clock, new SinkMetrics() { }, new TableTally());
    }

    @Test
    void the_next_partitions_poll_is_out_while_this_ones_records_are_appended() throws SourceException {
        for (int p = 0; p < 3; p++) topic.append(p, 3, i -> "n=" + i);
        TableConsumer c = consumer(TableSettings.DEFAULT_MAX_BUFFERED_BYTES);
        c.step(); // takes the partitions up (each poll waited for: no table lookup runs behind a poll)
        for (int p = 0; p < 3; p++) topic.append(p, 3, i -> "m=" + i);
        events.clear();
        c.step();

        assertThat(events).containsSubsequence("poll 0", "start 1", "decode 0@3", "decode 0@5", "decode 1@3");
        assertThat(events).containsSubsequence("start 2", "decode 1@3", "decode 1@5", "decode 2@3");
        assertThat(events).doesNotContain("poll 1", "poll 2", "start 0");

        clock.advance(INTERVAL);
        c.step();
        for (int p = 0; p < 3; p++) {
            List<Long> offsets = new ArrayList<>();
            for (InMemoryTables.DataFile f : tables.committed(T)) {
                if (f.partition().partitionId() == p) offsets.addAll(f.offsets());
            }
            assertThat(offsets).as("partition %d", p).isEqualTo(range(0, 5));
        }
    }

    @Test
    void no_poll_goes_ahead_while_a_batch_weighs_an_eighth_of_the_budget() throws SourceException {
        for (int p = 0; p < 3; p++) topic.append(p, 3, i -> "x".repeat(100));
        TableConsumer c = consumer(2_000); // a batch of 3 x 100 bytes is more than 2,000 / 8
        c.step();
        for (int p = 0; p < 3; p++) topic.append(p, 3, i -> "y".repeat(100));
        events.clear();
        c.step();

        assertThat(events).filteredOn(e -> e.startsWith("start")).isEmpty();
        assertThat(events).containsSubsequence("poll 0", "decode 0@3", "poll 1", "decode 1@3", "poll 2");
    }

    @Test
    void a_poll_asks_for_no_more_records_than_a_quarter_of_the_budget_holds() throws SourceException {
        // 40 records of 1,000 bytes a partition, a budget of 20,000 bytes: a quarter holds five such records
        for (int p = 0; p < 3; p++) topic.append(p, 40, i -> String.format("%04d", i) + "x".repeat(996));
        TableConsumer c = consumer(20_000, 1_000);
        for (int i = 0; i < 30 && committedCount() < 120; i++) {
            c.step();
            clock.advance(INTERVAL);
        }

        assertThat(asked).isNotEmpty();
        assertThat(asked).allSatisfy(n -> assertThat(n).isBetween(1, 5));
        assertThat(committedCount()).isEqualTo(120);
        for (int p = 0; p < 3; p++) {
            List<Long> offsets = new ArrayList<>();
            for (InMemoryTables.DataFile f : tables.committed(T)) {
                if (f.partition().partitionId() == p) offsets.addAll(f.offsets());
            }
            offsets.sort(Long::compare);
            assertThat(offsets).as("partition %d", p).isEqualTo(range(0, 39));
        }
    }

    @Test
    void records_smaller_than_the_budget_allows_are_polled_batch_length_at_a_time() throws SourceException {
        for (int p = 0; p < 3; p++) topic.append(p, 40, i -> "n=" + i);
        TableConsumer c = consumer(TableSettings.DEFAULT_MAX_BUFFERED_BYTES, 7);
        c.step();
        c.step();

        // the first asks for one record: until a poll read any, how large they are is not known
        assertThat(asked).hasSizeGreaterThan(1).startsWith(1);
        assertThat(asked.subList(1, asked.size())).containsOnly(7);
    }

    @Test
    void the_first_poll_asks_for_one_record_and_the_one_after_it_as_many_as_a_quarter_of_the_budget_holds()
            throws SourceException {
        // records of 1,000 bytes and a budget of 20,000: a quarter holds 5
        topic.append(0, 40, i -> "n=" + "x".repeat(998));
        TableConsumer c = consumer(20_000, 100);

        assertThat(c.step()).as("records read").isEqualTo(6);
        assertThat(asked).as("partition 0's two polls, then the other partitions' (empty)").startsWith(1, 5);
        assertThat(asked.subList(1, asked.size())).containsOnly(5);
    }

    @Test
    void records_that_grow_at_once_are_read_on_after_the_source_ran_out_of_memory_for_a_poll_sized_by_small_ones()
            throws SourceException {
        // 10 records of 3 bytes, then 40 of 1,000: polls sized by the small ones ask for batch_length (100), whose
        // answer the source cannot take in (over 20,000 bytes, a quarter of the budget); asked again alike it would
        // fail for good
        topic.append(0, 10, i -> "n=" + i);
        topic.append(0, 40, i -> "n=" + "x".repeat(998));
        MessageSource source = outOfMemoryAbove(20_000);
        TableConsumer c = new TableConsumer(source, new LinesCodec(), tables, new TableSettings(TableRouting.fixed(T),
                RotationPolicy.byCount(100), INTERVAL, 100, 100, ErrorTolerance.ALL, 80_000), clock,
                new SinkMetrics() { }, new TableTally());
        int failures = 0;
        for (int i = 0; i < 20; i++) {
            try {
                c.step();
            } catch (SourceException e) {
                failures++;
            }
        }
        c.drain();

        assertThat(committedCount()).isEqualTo(50);
        assertThat(failures).as("polls the source ran out of memory for").isBetween(1, 3);
    }

    /** The topic, polled only (no poll ahead), failing as Netty does where an answer's payloads exceed {@code max}. */
    private MessageSource outOfMemoryAbove(long max) {
        return (MessageSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[]{MessageSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("startPoll")) return null;
                    Object result;
                    try {
                        result = method.invoke(topic, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("poll")) {
                        long bytes = 0;
                        for (SinkRecord r : ((dev.iggysink.application.port.out.Batch) result).records()) {
                            bytes += r.payload().length;
                        }
                        if (bytes > max) {
                            throw new SourceException("connection to Iggy failed while trying to poll", true,
                                    new OutOfMemoryError("failed to allocate " + bytes + " byte(s) of direct memory"));
                        }
                    }
                    return result;
                });
    }

    private int committedCount() {
        int n = 0;
        for (InMemoryTables.DataFile f : tables.committed(T)) n += f.offsets().size();
        return n;
    }

    /** {@code target}, with each poll sent ahead or waited for and each record decoded written to {@link #events}. */
    private <T> T logged(Class<T> type, T target) {
        return type.cast(Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[]{type},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "startPoll" -> {
                            events.add("start " + ((PartitionRef) args[0]).partitionId());
                            asked.add((Integer) args[2]);
                        }
                        case "poll" -> {
                            events.add("poll " + ((PartitionRef) args[0]).partitionId());
                            asked.add((Integer) args[2]);
                        }
                        case "decode" -> events.add("decode " + ((SinkRecord) args[0]).partition().partitionId() + "@"
                                + ((SinkRecord) args[0]).offset());
                        default -> {
                        }
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                }));
    }
}
