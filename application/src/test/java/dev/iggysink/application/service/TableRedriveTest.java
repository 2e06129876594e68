package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.fakes.InMemoryTables;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.application.table.TableAudit;
import dev.iggysink.application.table.TableRouting;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Redrive of the table sink (ADR 0018): dead letters that the current configuration decodes and the table takes go
 * to the table as rows with their original offsets, once, whatever step a run is stopped at and however often it runs
 * again, without moving the offset map; the ones that still fail stay with their new error; the table audit counts
 * each redriven row once.
 */
class TableRedriveTest {
    private static final String STREAM = "logs";
    private static final String TOPIC = "api";
    private static final String TABLE = "lake.events";
    private static final String OTHER = "lake.other";
    private static final PartitionRef P1 = new PartitionRef(STREAM, TOPIC, 1);
    private static final PartitionRef P2 = new PartitionRef(STREAM, TOPIC, 2);
    private static final long MICROS = 1_796_465_700_000_000L;
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-12-05T11:00:00Z"));
    private static final String OLD = "old schema refused it";

    private static SinkRecord record(PartitionRef p, long offset, String payload) {
        return new SinkRecord(p, offset, MICROS + offset, MICROS + offset, new MessageId(7, offset), List.of(),
                payload.getBytes(StandardCharsets.UTF_8));
    }

    private static String letterKey(PartitionRef p, long offset) {
        return DeadLetters.key("", "_dlq", record(p, offset, ""));
    }

    private static void letter(InMemoryTables tables, SinkRecord r, String error) throws StoreException {
        tables.writeDeadLetter(DeadLetters.key("", "_dlq", r), DeadLetters.content(r, error));
    }

    /** Commits the rows of {@code offsets} of {@code p} as the sink does, moving the map to {@code last}. */
    private static void rows(InMemoryTables tables, PartitionRef p, List<Long> offsets, long last) throws Exception {
        TableStore.RowFile file = tables.newFile(TABLE);
        for (long o : offsets) file.append(new LinesCodec().decode(record(p, o, "{\"n\":" + o + "}")));
        tables.commit(TABLE, List.of(new TableStore.Append(p, -1, last, List.of(file.stage()))));
    }

    /**
     * Partition 1: rows 0-9 but 3 and 7, which were dead-lettered and are decodable now. Partition 2: rows 0-4 but 2,
     * which still does not decode, and 3, which decodes but the table still refuses.
     */
    private static InMemoryTables planted() throws Exception {
        InMemoryTables tables = new InMemoryTables();
        rows(tables, P1, List.of(0L, 1L, 2L, 4L, 5L, 6L, 8L, 9L), 9);
        rows(tables, P2, List.of(0L, 1L, 4L), 4);
        letter(tables, record(P1, 3, "{\"n\":3}"), OLD);
        letter(tables, record(P1, 7, "{\"n\":7}"), OLD);
        letter(tables, record(P2, 2, "BAD 2"), OLD);
        letter(tables, record(P2, 3, "NOFIT 3"), OLD);
        return tables;
    }

    private static List<Redrive.Outcome> redrive(TableStore tables, TableRouting routing, Redrive.Filter filter,
                                                 boolean dryRun) throws StoreException {
        return new TableRedrive(tables, new LinesCodec(), routing, "_dlq", STREAM, TOPIC, CLOCK)
                .run(p -> OptionalLong.of(p.partitionId() == 1 ? 9 : 4), filter, dryRun);
    }

    private static List<Redrive.Outcome> redrive(TableStore tables) throws StoreException {
        return redrive(tables, TableRouting.fixed(TABLE), Redrive.Filter.ALL, false);
    }

    private static List<Long> rowsOf(InMemoryTables tables, String table, PartitionRef p) {
        List<Long> out = new ArrayList<>(tables.rowOffsets(table, List.of(p)).orElseThrow()
                .getOrDefault(p, List.of()));
        out.sort(Long::compare);
        return out;
    }

    private static TableAudit audit(InMemoryTables tables, PartitionRef p) throws StoreException {
        String prefix = TableAudit.deadLetterPrefix("_dlq", STREAM, TOPIC);
        return TableAudit.of(TABLE, p, p.partitionId() == 1 ? 9 : 4,
                tables.durableOffsets(TABLE, List.of(p)).getOrDefault(p, -1L),
                Optional.of(rowsOf(tables, TABLE, p)),
                TableAudit.deadLettered(tables.deadLetterKeys(prefix), prefix, p.partitionId()));
    }

    /** The end state every run must reach: 3 and 7 in one row each, notes, the bad ones with their new errors. */
    private static void assertRedrivenOnce(InMemoryTables tables, String where) throws Exception {
        List<Long> all = new ArrayList<>(rowsOf(tables, TABLE, P1));
        all.addAll(rowsOf(tables, OTHER, P1));
        all.sort(Long::compare);
        assertThat(all).as(where).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        Map<String, byte[]> letters = tables.deadLetters();
        for (long o : new long[] {3, 7}) {
            assertThat(letters).as(where).doesNotContainKey(letterKey(P1, o));
            DeadLetters.Letter note = DeadLetters.parse(letters.get(DeadLetters.redrivenKey("", "_dlq",
                    letterKey(P1, o))));
            assertThat(note.offset()).isEqualTo(o);
            assertThat(note.error()).isEqualTo(OLD);
            assertThat(note.redrivenTo()).as(where).isIn(TABLE, OTHER);
        }
        assertThat(DeadLetters.parse(letters.get(letterKey(P2, 2))).error()).isEqualTo("payload is not valid JSON");
        assertThat(DeadLetters.parse(letters.get(letterKey(P2, 3))).error()).as(where)
                .matches("table lake\\.(events|other): field 'n' is not a long");
        assertThat(tables.durableOffsets(TABLE, List.of(P1, P2))).isEqualTo(Map.of(P1, 9L, P2, 4L));
    }

    @Test
    void decodable_dead_letters_become_rows_once_without_moving_the_map_and_bad_ones_keep_their_new_error()
            throws Exception {
        InMemoryTables tables = planted();
        assertThat(audit(tables, P1).deadLettered()).containsExactly(3L, 7L);

        List<Redrive.Outcome> outcomes = redrive(tables);

        assertThat(outcomes).extracting(Redrive.Outcome::offset, Redrive.Outcome::action).containsExactly(
                org.assertj.core.groups.Tuple.tuple(2L, Redrive.Action.STILL_FAILS),
                org.assertj.core.groups.Tuple.tuple(3L, Redrive.Action.STILL_FAILS),
                org.assertj.core.groups.Tuple.tuple(3L, Redrive.Action.REDRIVEN),
                org.assertj.core.groups.Tuple.tuple(7L, Redrive.Action.REDRIVEN));
        assertRedrivenOnce(tables, "one run");
        assertThat(tables.redriven(TABLE)).containsExactlyInAnyOrder(letterKey(P1, 3), letterKey(P1, 7));
        TableAudit p1 = audit(tables, P1);
        assertThat(p1.ok()).as(p1.line()).isTrue();
        assertThat(p1.deadLettered()).isEmpty();
        assertThat(audit(tables, P2).deadLettered()).containsExactly(2L, 3L);
        assertThat(audit(tables, P2).ok()).isTrue();

        int snapshots = tables.snapshotCount(TABLE);
        assertThat(redrive(tables)).extracting(Redrive.Outcome::action)
                .containsExactly(Redrive.Action.STILL_FAILS, Redrive.Action.STILL_FAILS);
        assertThat(tables.snapshotCount(TABLE)).isEqualTo(snapshots);
    }

    /** Kills the run right before or right after its {@code at}-th write (a note, a commit, a delete). */
    private static final class Crashing implements TableStore {
        final InMemoryTables tables;
        final int at;
        final boolean afterIt;
        int calls;

        Crashing(InMemoryTables tables, int at, boolean afterIt) {
            this.tables = tables;
            this.at = at;
            this.afterIt = afterIt;
        }

        private void step(Write write) throws StoreException {
            calls++;
            if (calls == at && !afterIt) throw new Killed();
            write.run();
            if (calls == at) throw new Killed();
        }

        @Override
        public String writeDeadLetter(String key, byte[] content) throws StoreException {
            String[] where = new String[1];
            step(() -> where[0] = tables.writeDeadLetter(key, content));
            return where[0];
        }

        @Override
        public void commitRedriven(String table, List<Staged> files, Collection<String> letters)
                throws StoreException {
            step(() -> tables.commitRedriven(table, files, letters));
        }

        @Override
        public void deleteDeadLetter(String key) throws StoreException {
            step(() -> tables.deleteDeadLetter(key));
        }

        @Override
        public Optional<byte[]> readDeadLetter(String key) throws StoreException {
            return tables.readDeadLetter(key);
        }

        @Override
        public Set<String> redriven(String table) throws StoreException {
            return tables.redriven(table);
        }

        @Override
        public void open(String table) throws StoreException {
            tables.open(table);
        }

        @Override
        public RowFile newFile(String table) throws StoreException {
            return tables.newFile(table);
        }

        @Override
        public Map<PartitionRef, Long> durableOffsets(String table, Collection<PartitionRef> partitions)
                throws StoreException {
            return tables.durableOffsets(table, partitions);
        }

        @Override
        public CommitResult commit(String table, List<Append> appends) throws StoreException {
            return tables.commit(table, appends);
        }

        @Override
        public Optional<Map<PartitionRef, List<Long>>> rowOffsets(String table, Collection<PartitionRef> partitions) {
            return tables.rowOffsets(table, partitions);
        }

        @Override
        public List<String> deadLetterKeys(String prefix) {
            return tables.deadLetterKeys(prefix);
        }

        @Override
        public void discard(Staged files) {
            tables.discard(files);
        }

        @Override
        public void close() {
        }
    }

    @FunctionalInterface
    private interface Write {
        void run() throws StoreException;
    }

    private static final class Killed extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    @Test
    void a_run_killed_before_or_after_any_write_and_a_second_run_write_each_record_once() throws Exception {
        Crashing counting = new Crashing(planted(), Integer.MAX_VALUE, false);
        redrive(counting);
        // two notes, one commit, two deletes; the two bad letters' new errors
        assertThat(counting.calls).isEqualTo(7);

        for (int at = 1; at <= counting.calls; at++) {
            for (boolean afterIt : new boolean[] {false, true}) {
                // the second run may route elsewhere (a config fix): still one row per record, in one table
                for (TableRouting second : List.of(TableRouting.fixed(TABLE), TableRouting.fixed(OTHER))) {
                    InMemoryTables tables = planted();
                    Crashing crashing = new Crashing(tables, at, afterIt);
                    assertThatThrownBy(() -> redrive(crashing)).isInstanceOf(Killed.class);

                    redrive(tables, second, Redrive.Filter.ALL, false);

                    String where = "killed " + (afterIt ? "after" : "before") + " write " + at + ", second run to "
                            + second.tables();
                    assertRedrivenOnce(tables, where);
                    // a letter whose row is committed and which is not deleted yet is no overlap
                    assertThat(audit(tables, P1).overlaps()).as(where).isEmpty();
                }
            }
        }
    }

    @Test
    void a_commit_whose_answer_is_lost_is_found_in_the_history_and_not_made_again() throws Exception {
        InMemoryTables tables = planted();
        tables.nextCommitLandsThenTimesOut();

        assertThatThrownBy(() -> redrive(tables)).isInstanceOf(StoreException.class)
                .hasMessageContaining("timed out");
        assertThat(tables.deadLetters()).containsKey(letterKey(P1, 3));

        assertThat(redrive(tables)).filteredOn(o -> o.partition() == 1).extracting(Redrive.Outcome::action)
                .containsExactly(Redrive.Action.FINISHED, Redrive.Action.FINISHED);
        assertRedrivenOnce(tables, "after a lost answer");
    }

    @Test
    void a_dry_run_says_what_would_happen_and_writes_nothing() throws Exception {
        InMemoryTables tables = planted();
        Map<String, byte[]> before = tables.deadLetters();
        int snapshots = tables.snapshotCount(TABLE);

        List<Redrive.Outcome> outcomes = redrive(tables, TableRouting.fixed(TABLE), Redrive.Filter.ALL, true);

        assertThat(outcomes).extracting(Redrive.Outcome::action).containsExactly(Redrive.Action.REDRIVEN,
                Redrive.Action.REDRIVEN, Redrive.Action.STILL_FAILS, Redrive.Action.STILL_FAILS);
        assertThat(outcomes.get(1).detail()).isEqualTo(TABLE);
        assertThat(tables.deadLetters().keySet()).isEqualTo(before.keySet());
        assertThat(DeadLetters.parse(tables.deadLetters().get(letterKey(P2, 2))).error()).isEqualTo(OLD);
        assertThat(tables.snapshotCount(TABLE)).isEqualTo(snapshots);
    }

    @Test
    void a_dead_letter_above_the_committed_offset_is_left_to_the_sink() throws Exception {
        InMemoryTables tables = planted();
        letter(tables, record(P1, 12, "{\"n\":12}"), OLD);

        List<Redrive.Outcome> outcomes = redrive(tables);

        assertThat(outcomes).filteredOn(o -> o.offset() == 12).singleElement().satisfies(o -> {
            assertThat(o.action()).isEqualTo(Redrive.Action.NOT_COMMITTED);
            assertThat(o.detail()).isEqualTo("the group's committed offset is 9");
        });
        assertThat(tables.deadLetters()).containsKey(letterKey(P1, 12));
        assertThat(rowsOf(tables, TABLE, P1)).doesNotContain(12L);
    }

    @Test
    void a_record_the_sink_read_again_after_the_fix_is_not_written_twice() throws Exception {
        InMemoryTables tables = new InMemoryTables();
        rows(tables, P1, List.of(0L, 1L, 2L, 3L), 3);
        letter(tables, record(P1, 3, "{\"n\":3}"), OLD);

        List<Redrive.Outcome> outcomes = redrive(tables);

        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.action()).isEqualTo(Redrive.Action.ALREADY_DELIVERED);
            assertThat(o.detail()).isEqualTo(TABLE);
        });
        assertThat(rowsOf(tables, TABLE, P1)).containsExactly(0L, 1L, 2L, 3L);
        assertThat(tables.deadLetters()).doesNotContainKey(letterKey(P1, 3))
                .containsKey(DeadLetters.redrivenKey("", "_dlq", letterKey(P1, 3)));
    }

    @Test
    void many_dead_letters_go_in_commits_of_a_bounded_batch_each_naming_its_own() throws Exception {
        InMemoryTables tables = new InMemoryTables();
        int count = 2 * TableRedrive.BATCH + 1;
        for (long o = 0; o < count; o++) letter(tables, record(P1, o, "{\"n\":" + o + "}"), OLD);
        int before = tables.snapshotCount(TABLE);

        List<Redrive.Outcome> outcomes = new TableRedrive(tables, new LinesCodec(), TableRouting.fixed(TABLE), "_dlq",
                STREAM, TOPIC, CLOCK).run(p -> OptionalLong.of(count - 1), Redrive.Filter.ALL, false);

        assertThat(outcomes).hasSize(count).allMatch(o -> o.action() == Redrive.Action.REDRIVEN);
        assertThat(tables.snapshotCount(TABLE) - before).isEqualTo(3);
        assertThat(rowsOf(tables, TABLE, P1)).hasSize(count).doesNotHaveDuplicates();
        assertThat(tables.redriven(TABLE)).hasSize(count);
        assertThat(tables.durableOffsets(TABLE, List.of(P1))).isEmpty();
    }
}
