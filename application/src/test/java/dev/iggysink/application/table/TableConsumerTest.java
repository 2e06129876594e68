package dev.iggysink.application.table;

import static dev.iggysink.application.table.TableTestSupport.range;
import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryTables;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.time.Duration;
import java.time.Instant;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class TableConsumerTest {
    private static final String T = "lake.events";
    private static final Duration INTERVAL = Duration.ofSeconds(10);

    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:02:31Z"));
    private final ScriptedMessageSource topic = new ScriptedMessageSource("app", "events", 2);
    private final InMemoryTables tables = new InMemoryTables();
    private final TableTally tally = new TableTally();

    private TableConsumer consumer(ScriptedMessageSource source, TableRouting routing, int perFile, int maxFiles,
                                   ErrorTolerance errors) {
        TableSettings settings = new TableSettings(routing, RotationPolicy.byCount(perFile), INTERVAL, maxFiles, 100,
                errors);
        return new TableConsumer(source, new LinesCodec(), tables, settings, clock, new SinkMetrics() { }, tally);
    }

    private TableConsumer consumer(ScriptedMessageSource source) {
        return consumer(source, TableRouting.fixed(T), 3, 100, ErrorTolerance.ALL);
    }

    private static List<Long> offsets(List<InMemoryTables.DataFile> files, int partition) {
        List<Long> out = new ArrayList<>();
        for (InMemoryTables.DataFile f : files) if (f.partition().partitionId() == partition) out.addAll(f.offsets());
        return out;
    }

    @Test
    void the_group_offset_moves_only_after_the_table_commit_holds_the_records() throws SourceException {
        TableConsumer c = consumer(topic);
        topic.append(0, 7, i -> "n=" + i);
        c.step();
        assertThat(tables.committed(T)).isEmpty();
        assertThat(topic.stored(0)).isEmpty();

        clock.advance(INTERVAL);
        c.step();
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 6));
        assertThat(tables.committed(T)).hasSize(3); // 3 + 3 sealed by count, 1 sealed by the interval
        assertThat(tables.snapshotCount(T)).isEqualTo(1);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(6));
        assertThat(tally.snapshot().commits()).isEqualTo(1);
    }

    /** The lines {@link TableConsumer} logs while {@code action} runs, formatted. */
    private static List<String> logged(ThrowingAction action) throws SourceException {
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(TableConsumer.class.getName());
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Formatter format = new java.util.logging.SimpleFormatter();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                lines.add(format.formatMessage(r));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try {
            action.run();
        } finally {
            logger.removeHandler(handler);
        }
        return lines;
    }

    private interface ThrowingAction {
        void run() throws SourceException;
    }

    @Test
    void the_commit_line_counts_the_data_files_the_snapshot_gets_not_the_sealed_files() throws SourceException {
        tables.dataFilesPerStage(3); // each sealed file spans three partitions of the table (three days, say)
        TableConsumer c = consumer(topic);
        topic.append(0, 6, i -> "n=" + i);
        List<String> lines = logged(() -> {
            c.step();
            clock.advance(INTERVAL);
            c.step();
        });
        assertThat(tables.commits()).isEqualTo(1);
        assertThat(tally.snapshot().dataFiles()).isEqualTo(6);
        assertThat(lines).filteredOn(l -> l.contains("committed")).singleElement().asString()
                .contains("committed 6 data file(s)");
    }

    @Test
    void a_busy_table_is_committed_once_enough_files_wait_not_once_per_file() throws SourceException {
        TableConsumer c = consumer(topic, TableRouting.fixed(T), 2, 3, ErrorTolerance.ALL);
        topic.append(0, 5, i -> "n=" + i);
        c.step();
        assertThat(tables.commits()).isZero(); // two files wait, the bound is three
        topic.append(0, 2, i -> "n=" + i);
        c.step();
        assertThat(tables.commits()).isEqualTo(1);
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 5));
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(5)); // offset 6 is still in an open file
    }

    @Test
    void a_table_ahead_of_the_group_moves_the_group_and_nothing_is_written_twice() throws SourceException {
        TableConsumer first = consumer(topic);
        topic.append(0, 6, i -> "n=" + i);
        first.step();
        clock.advance(INTERVAL);
        topic.failAllCommits(new SourceException("connection reset", true));
        first.step(); // the table has 0-5, the group offset could not be stored
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 5));
        assertThat(topic.stored(0)).isEmpty();
        topic.failAllCommits(null);

        // the member dies; the next one finds the table ahead of the group
        ScriptedMessageSource next = topic.newMember();
        topic.close();
        TableConsumer second = consumer(next);
        next.append(0, 2, i -> "n=" + i);
        second.step();
        assertThat(next.stored(0)).isEqualTo(OptionalLong.of(5));
        clock.advance(INTERVAL);
        second.step();
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 7));
        assertThat(next.stored(0)).isEqualTo(OptionalLong.of(7));
    }

    @Test
    void a_member_that_lost_its_partition_unseen_cannot_add_a_copy() throws SourceException {
        ScriptedMessageSource b = topic.newMember();
        b.own(0, false);
        TableConsumer ca = consumer(topic);
        TableConsumer cb = consumer(b);
        topic.append(0, 4, i -> "n=" + i);
        ca.step(); // A staged 0-2 and holds 3 open

        // the partition moves to B while A does not poll; B commits it first
        topic.own(0, false);
        b.own(0, true);
        cb.step();
        clock.advance(INTERVAL);
        cb.step();
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 3));

        // A commits what it staged before it learns of the move: the table refuses it
        topic.own(0, true); // A still believes it owns the partition (its next poll would tell)
        ca.drain();
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 3));
        assertThat(tally.snapshot().refusedPartitions()).isEqualTo(1);
        assertThat(ca.partitions()).doesNotContainKey(topic.partition(0));
    }

    @Test
    void a_commit_answered_with_a_timeout_after_it_landed_is_neither_lost_nor_doubled() throws SourceException {
        TableConsumer c = consumer(topic);
        topic.append(0, 5, i -> "n=" + i);
        c.step();
        tables.nextCommitLandsThenTimesOut();
        clock.advance(INTERVAL);
        c.step(); // landed, but the member does not know: it looks the partition up again
        assertThat(tally.snapshot().failedCommits()).isEqualTo(1);
        topic.append(0, 3, i -> "n=" + i);
        c.step();
        clock.advance(INTERVAL);
        c.step();
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 7));
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(7));
    }

    @Test
    void a_concurrent_commit_of_another_partition_is_kept_in_the_map() throws Exception {
        ScriptedMessageSource b = topic.newMember();
        topic.own(1, false);
        b.own(0, false);
        b.own(1, true);
        TableConsumer ca = consumer(topic);
        TableConsumer cb = consumer(b);
        topic.append(0, 3, i -> "n=" + i);
        topic.append(1, 3, i -> "n=" + i);
        ca.step();
        cb.step();
        clock.advance(INTERVAL);
        tables.beforeNextSwap(() -> {
            try {
                cb.step(); // B commits partition 1 while A's commit of partition 0 is under way
            } catch (SourceException e) {
                throw new IllegalStateException(e);
            }
        });
        ca.step();
        assertThat(tables.durableOffsets(T, List.of(topic.partition(0), topic.partition(1))))
                .containsEntry(topic.partition(0), 2L).containsEntry(topic.partition(1), 2L);
        assertThat(tally.snapshot().conflicts()).isEqualTo(1);
    }

    @Test
    void the_lookup_finds_the_map_behind_snapshots_of_other_writers() throws SourceException {
        TableConsumer c = consumer(topic);
        topic.append(0, 3, i -> "n=" + i);
        c.step();
        clock.advance(INTERVAL);
        topic.failAllCommits(new SourceException("connection reset", true));
        c.step();
        topic.failAllCommits(null);
        tables.foreignSnapshot(T); // a compaction after the sink's commit
        ScriptedMessageSource next = topic.newMember();
        topic.close();
        TableConsumer second = consumer(next);
        second.step();
        assertThat(next.stored(0)).isEqualTo(OptionalLong.of(2));
        clock.advance(INTERVAL);
        second.drain();
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 2));
    }

    @Test
    void a_record_that_does_not_fit_is_dead_lettered_under_all_and_halts_the_partition_under_none()
            throws SourceException {
        topic.append(0, List.of("n=0", "NOFIT n=x", "n=2"));
        TableConsumer all = consumer(topic);
        all.step();
        all.drain();
        assertThat(offsets(tables.committed(T), 0)).containsExactly(0L, 2L);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(2));

        ScriptedMessageSource other = new ScriptedMessageSource("app", "events", 1);
        other.append(0, List.of("n=0", "NOFIT n=x", "n=2"));
        InMemoryTables strictTables = new InMemoryTables();
        TableSettings settings = new TableSettings(TableRouting.fixed(T), RotationPolicy.byCount(3), INTERVAL, 100,
                100, ErrorTolerance.NONE);
        TableConsumer none = new TableConsumer(other, new LinesCodec(), strictTables, settings, clock,
                new SinkMetrics() { }, new TableTally());
        none.step();
        none.drain();
        assertThat(offsets(strictTables.committed(T), 0)).containsExactly(0L);
        assertThat(other.stored(0)).isEqualTo(OptionalLong.of(0));
        assertThat(none.partitions().get(other.partition(0))).contains("offset 1").contains("not a long");
    }

    @Test
    void dynamic_routing_writes_each_record_to_the_table_its_field_names() throws SourceException {
        TableConsumer c = consumer(topic, TableRouting.byField("table"), 10, 100, ErrorTolerance.ALL);
        topic.append(0, List.of("table=lake.a;n=0", "table=lake.b;n=1", "n=2", "table=lake.a;n=3"));
        c.step();
        c.drain();
        assertThat(offsets(tables.committed("lake.a"), 0)).containsExactly(0L, 3L);
        assertThat(offsets(tables.committed("lake.b"), 0)).containsExactly(1L);
        assertThat(tally.snapshot().badRecords()).isEqualTo(1); // offset 2 names no table
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(3));
    }

    @Test
    void a_record_without_its_route_field_halts_the_partition_under_none_saying_why_and_what_would_work()
            throws SourceException {
        TableConsumer c = consumer(topic, TableRouting.byField("table"), 10, 100, ErrorTolerance.NONE);
        topic.append(0, List.of("table=lake.a;n=0", "n=1", "table=lake.a;n=2"));
        c.step();
        c.drain();
        assertThat(offsets(tables.committed("lake.a"), 0)).containsExactly(0L);
        assertThat(c.partitions().get(topic.partition(0))).contains("offset 1")
                .contains("no text field 'table'").contains("dynamic_route_field")
                .contains("errors_tolerance = \"all\"");
    }

    @Test
    void a_missing_table_named_by_a_record_is_a_bad_record() throws SourceException {
        tables.without("lake.gone");
        TableConsumer c = consumer(topic, TableRouting.byField("table"), 10, 100, ErrorTolerance.ALL);
        topic.append(0, List.of("table=lake.gone;n=0", "table=lake.a;n=1"));
        c.step();
        c.drain();
        assertThat(offsets(tables.committed("lake.a"), 0)).containsExactly(1L);
        assertThat(tally.snapshot().badRecords()).isEqualTo(1);
    }

    @Test
    void static_fan_out_writes_every_record_to_every_table() throws SourceException {
        TableConsumer c = consumer(topic, TableRouting.fixed("lake.a", "lake.b"), 2, 100, ErrorTolerance.ALL);
        topic.append(0, 5, i -> "n=" + i);
        c.step();
        c.drain();
        assertThat(offsets(tables.committed("lake.a"), 0)).isEqualTo(range(0, 4));
        assertThat(offsets(tables.committed("lake.b"), 0)).isEqualTo(range(0, 4));
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(4));
    }

    /** Encoded bytes (each table's copy of a record counts) are reported once per poll, not once per record. */
    @Test
    void the_bytes_appended_to_tables_are_reported_once_per_poll() throws SourceException {
        List<String> reports = new ArrayList<>();
        TableSettings settings = new TableSettings(TableRouting.fixed("lake.a", "lake.b"), RotationPolicy.byCount(2),
                INTERVAL, 100, 100, ErrorTolerance.ALL);
        TableConsumer c = new TableConsumer(topic, new LinesCodec(), tables, settings, clock, new SinkMetrics() {
            @Override
            public void encoded(dev.iggysink.domain.message.PartitionRef partition, long recordBytes) {
                reports.add(partition.partitionId() + ":" + recordBytes);
            }
        }, tally);
        topic.append(0, 5, i -> "n=" + i);
        topic.append(1, 2, i -> "n=1" + i);
        c.step();
        // partition 0's first poll asked for one record (no poll had told how large they are), the next for the rest
        assertThat(reports).containsExactlyInAnyOrder("0:6", "0:24", "1:16");
        c.step();
        assertThat(reports).hasSize(3);
    }

    @Test
    void a_data_file_that_failed_to_stage_is_staged_again_before_the_commit() throws SourceException {
        TableConsumer c = consumer(topic);
        tables.failNextStages(2);
        topic.append(0, 4, i -> "n=" + i);
        c.step();
        clock.advance(INTERVAL);
        c.step();
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 3));
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(3));
    }

    @Test
    void rows_past_the_memory_budget_seal_the_largest_open_file_early() throws SourceException {
        // the fake counts 64 bytes a row: two partitions of 5 rows are 640 bytes, the budget 400
        TableSettings settings = new TableSettings(TableRouting.fixed(T), RotationPolicy.byCount(100), INTERVAL, 100,
                100, ErrorTolerance.ALL, 400);
        TableConsumer c = new TableConsumer(topic, new LinesCodec(), tables, settings, clock, new SinkMetrics() { },
                tally);
        topic.append(0, 5, i -> "n=" + i);
        topic.append(1, 5, i -> "n=" + i);
        // a first poll takes one record (records are taken to be large until one is read), the next ones the rest
        for (int i = 0; i < 3; i++) c.step();
        assertThat(tally.snapshot().dataFiles()).isEqualTo(1);
        assertThat(tables.committed(T)).isEmpty();
        c.drain();
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 4));
        assertThat(offsets(tables.committed(T), 1)).isEqualTo(range(0, 4));
    }

    private static String letter(int partition, long offset) {
        return String.format("_dlq/app/events/%05d-%020d.json", partition, offset);
    }

    @Test
    void a_bad_record_under_all_is_a_dead_letter_written_before_the_group_moves_past_it() throws SourceException {
        TableConsumer c = consumer(topic);
        topic.append(0, List.of("n=0", "NOFIT n=x", "n=2"));
        c.step();
        // durable before any commit covers its offset
        assertThat(tables.deadLetters()).containsOnlyKeys(letter(0, 1));
        assertThat(tables.commits()).isZero();
        assertThat(topic.stored(0)).isEmpty();
        String content = new String(tables.deadLetters().get(letter(0, 1)), StandardCharsets.UTF_8);
        assertThat(content).contains("\"stream\":\"app\",\"topic\":\"events\",\"partition_id\":0,\"offset\":1,")
                .contains("\"error\":\"table lake.events: field 'n' is not a long\"")
                .contains("\"payload_base64\":\"" + Base64.getEncoder().encodeToString(
                        "NOFIT n=x".getBytes(StandardCharsets.UTF_8)) + "\"");
        c.drain();
        assertThat(offsets(tables.committed(T), 0)).containsExactly(0L, 2L);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(2));
        assertThat(tally.deadLetters()).isEqualTo(1);
        assertThat(tally.snapshot().badRecords()).isEqualTo(1);
    }

    @Test
    void the_status_names_a_dead_letter_by_where_the_store_put_it_not_by_its_key() throws SourceException {
        tables.deadLettersAt("s3://letters/somewhere/");
        TableConsumer c = consumer(topic);
        topic.append(0, List.of("n=0", "NOFIT n=x"));
        List<String> lines = logged(c::step);
        assertThat(lines).filteredOn(l -> l.contains("dead-lettered")).singleElement().asString()
                .contains("to s3://letters/somewhere/app/events/00000-00000000000000000001.json");
        assertThat(tables.deadLetters()).containsOnlyKeys(letter(0, 1));
        assertThat(tally.totals().deadLetters()).isEqualTo(1);
        assertThat(tally.totals().lastDeadLetter())
                .contains("s3://letters/somewhere/app/events/00000-00000000000000000001.json");
    }

    @Test
    void a_dead_letter_that_cannot_be_written_holds_the_partition_at_its_record() throws Exception {
        TableConsumer c = consumer(topic);
        tables.failNextDeadLetter(new StoreException("PUT dead letter: 503 Slow Down", true, 503, null, null));
        topic.append(0, List.of("n=0", "NOFIT n=x", "n=2"));
        c.step();
        assertThat(tables.deadLetters()).isEmpty();
        c.drain();
        // offset 0 is in the table; nothing past the record without its dead letter is committed anywhere
        assertThat(offsets(tables.committed(T), 0)).containsExactly(0L);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(0));
        assertThat(tables.durableOffsets(T, List.of(topic.partition(0)))).containsEntry(topic.partition(0), 0L);

        clock.advance(INTERVAL); // past the dead letters' backoff (the data files' store answering does not end it)
        c.step(); // the record is read again and its dead letter written
        assertThat(tables.deadLetters()).containsOnlyKeys(letter(0, 1));
        c.drain();
        assertThat(offsets(tables.committed(T), 0)).containsExactly(0L, 2L);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(2));
    }

    @Test
    void a_dead_letter_the_store_refuses_halts_the_partition_at_its_record() throws SourceException {
        TableConsumer c = consumer(topic);
        tables.failNextDeadLetter(new StoreException("PUT dead letter: 403 Access Denied", false, 403, null, null));
        topic.append(0, List.of("n=0", "NOFIT n=x", "n=2"));
        c.step();
        c.drain();
        assertThat(c.partitions().get(topic.partition(0))).contains("offset 1").contains("403 Access Denied");
        assertThat(offsets(tables.committed(T), 0)).containsExactly(0L);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(0));
        assertThat(tables.deadLetters()).isEmpty();
    }

    @Test
    void a_batch_of_only_bad_records_moves_the_group_once_their_dead_letters_are_written() throws Exception {
        TableConsumer c = consumer(topic);
        topic.append(0, List.of("NOFIT 0", "NOFIT 1", "NOFIT 2"));
        c.step();
        assertThat(tables.deadLetters()).containsOnlyKeys(letter(0, 0), letter(0, 1), letter(0, 2));
        assertThat(tables.commits()).isZero(); // no data file, no snapshot
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(2));

        topic.append(0, List.of("n=3", "NOFIT 4"));
        c.step();
        c.drain();
        assertThat(offsets(tables.committed(T), 0)).containsExactly(3L);
        // the table's map counts the dead letter after its last row
        assertThat(tables.durableOffsets(T, List.of(topic.partition(0)))).containsEntry(topic.partition(0), 4L);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(4));
    }

    @Test
    void a_replay_after_a_kill_rewrites_the_same_dead_letter() throws SourceException {
        TableConsumer first = consumer(topic);
        topic.append(0, List.of("n=0", "NOFIT n=x", "n=2"));
        topic.failAllCommits(new SourceException("connection reset", true));
        first.step(); // the dead letter is written; the group's offset cannot be stored; then the member dies
        assertThat(tables.deadLetterWrites()).isEqualTo(1);
        topic.failAllCommits(null);
        ScriptedMessageSource next = topic.newMember();
        topic.close();
        TableConsumer second = consumer(next);
        second.step();
        second.drain();
        assertThat(tables.deadLetterWrites()).isEqualTo(2);
        assertThat(tables.deadLetters()).containsOnlyKeys(letter(0, 1));
        assertThat(offsets(tables.committed(T), 0)).containsExactly(0L, 2L);
        assertThat(next.stored(0)).isEqualTo(OptionalLong.of(2));
    }

    @Test
    void a_record_refused_by_two_tables_is_one_dead_letter_naming_both() throws SourceException {
        TableConsumer c = consumer(topic, TableRouting.fixed("lake.a", "lake.b"), 10, 100, ErrorTolerance.ALL);
        topic.append(0, List.of("n=0", "NOFIT n=x"));
        c.step();
        c.drain();
        assertThat(tables.deadLetters()).containsOnlyKeys(letter(0, 1));
        assertThat(new String(tables.deadLetters().get(letter(0, 1)), StandardCharsets.UTF_8))
                .contains("table lake.a: field 'n' is not a long; table lake.b: field 'n' is not a long");
        assertThat(tally.snapshot().badRecords()).isEqualTo(1);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(1));
    }

    @Test
    void a_record_that_names_no_table_is_dead_lettered_too() throws SourceException {
        TableConsumer c = consumer(topic, TableRouting.byField("table"), 10, 100, ErrorTolerance.ALL);
        topic.append(1, List.of("table=lake.a;n=0", "n=1"));
        c.step();
        c.drain();
        assertThat(tables.deadLetters()).containsOnlyKeys(letter(1, 1));
        assertThat(offsets(tables.committed("lake.a"), 1)).containsExactly(0L);
        assertThat(topic.stored(1)).isEqualTo(OptionalLong.of(1));
    }
}
