package dev.iggysink.application.table;

import static dev.iggysink.application.table.TableTestSupport.range;
import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryTables;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Queue;
import org.junit.jupiter.api.Test;

/** A commit's catalog call runs off the loop (issue 49's freshness): the loop reads on, exactly-once holds. */
class TableCommitUnderWayTest {
    private static final String T = "lake.events";
    private static final Duration INTERVAL = Duration.ofSeconds(1);

    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:02:31Z"));
    private final ScriptedMessageSource topic = new ScriptedMessageSource("app", "events", 1);
    private final InMemoryTables tables = new InMemoryTables();
    /** The committer: holds each commit until the test lets it run, as a slow catalog would. */
    private final Queue<Runnable> catalog = new ArrayDeque<>();

    /** The stager: holds each staging until the test lets it run, as a slow store would. */
    private final Queue<Runnable> store = new ArrayDeque<>();

    private TableConsumer consumer() {
        TableSettings settings = new TableSettings(TableRouting.fixed(T), RotationPolicy.byCount(100), INTERVAL, 100,
                100, ErrorTolerance.ALL);
        return new TableConsumer(topic, new LinesCodec(), tables, settings, clock, new SinkMetrics() { },
                new TableTally(), Runnable::run, catalog::add);
    }

    private List<Long> committedOffsets() {
        List<Long> out = new ArrayList<>();
        for (InMemoryTables.DataFile f : tables.committed(T)) out.addAll(f.offsets());
        return out;
    }

    @Test
    void the_loop_reads_on_while_a_commit_is_under_way_and_the_group_waits_for_it() throws SourceException {
        TableConsumer c = consumer();
        topic.append(0, 7, i -> "n=" + i);
        c.step();
        clock.advance(INTERVAL);
        c.step();
        assertThat(catalog).as("the commit went to the committer").hasSize(1);
        assertThat(tables.commits()).isZero();

        topic.append(0, 3, i -> "n=" + (7 + i));
        assertThat(c.step()).as("records read while the commit is under way").isEqualTo(3);
        assertThat(topic.stored(0)).as("the group waits for the commit").isEmpty();

        catalog.poll().run();
        c.step();
        assertThat(committedOffsets()).isEqualTo(range(0, 6));
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(6));

        clock.advance(INTERVAL);
        c.step();
        catalog.poll().run();
        c.step();
        assertThat(committedOffsets()).isEqualTo(range(0, 9));
        assertThat(tables.snapshotCount(T)).isEqualTo(2);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(9));
    }

    @Test
    void a_partition_moved_away_during_a_commit_keeps_its_files_and_is_read_again_from_what_the_table_holds()
            throws SourceException {
        TableConsumer c = consumer();
        topic.append(0, 5, i -> "n=" + i);
        c.step();
        clock.advance(INTERVAL);
        c.step();
        assertThat(catalog).hasSize(1);

        topic.own(0, false);
        c.step(); // let go while its commit is under way: the files it offers stay (the fake fails on a deleted one)
        topic.own(0, true);
        c.step();
        assertThat(c.partitions()).as("not taken up again while its commit is under way").isEmpty();

        catalog.poll().run();
        c.step(); // the commit is taken in; the partition is taken up from the table's map, past the group's offset
        topic.append(0, 2, i -> "n=" + (5 + i));
        c.step();
        clock.advance(INTERVAL);
        c.step();
        while (!catalog.isEmpty()) catalog.poll().run();
        c.step();
        assertThat(committedOffsets()).isEqualTo(range(0, 6));
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(6));
    }

    @Test
    void a_commit_waiting_for_its_stagings_is_not_put_off_by_sealing_more_files_at_the_next_interval()
            throws SourceException {
        TableSettings settings = new TableSettings(TableRouting.fixed(T), RotationPolicy.byCount(100), INTERVAL, 100,
                100, ErrorTolerance.ALL);
        TableConsumer c = new TableConsumer(topic, new LinesCodec(), tables, settings, clock, new SinkMetrics() { },
                new TableTally(), store::add, Runnable::run);
        topic.append(0, 3, i -> "n=" + i);
        c.step();
        clock.advance(INTERVAL);
        c.step(); // offsets 0-2 sealed, their staging under way
        topic.append(0, 2, i -> "n=" + (3 + i));
        c.step();
        clock.advance(INTERVAL);
        c.step(); // the commit still waits for 0-2; 3-4 stay in the open file

        store.poll().run();
        c.step();
        assertThat(committedOffsets()).as("committed once the files sealed for it were staged").isEqualTo(range(0, 2));
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(2));
        assertThat(store).as("no staging but the first").isEmpty();
    }

    @Test
    void the_next_commits_files_are_staged_while_a_commit_is_under_way_and_it_starts_as_that_one_ends()
            throws SourceException {
        TableSettings settings = new TableSettings(TableRouting.fixed(T), RotationPolicy.byCount(100), INTERVAL, 100,
                100, ErrorTolerance.ALL);
        TableConsumer c = new TableConsumer(topic, new LinesCodec(), tables, settings, clock, new SinkMetrics() { },
                new TableTally(), store::add, catalog::add);
        topic.append(0, 3, i -> "n=" + i);
        c.step();
        clock.advance(INTERVAL);
        c.step();
        store.poll().run();
        c.step(); // offsets 0-2 staged, their commit under way
        assertThat(catalog).hasSize(1);
        topic.append(0, 2, i -> "n=" + (3 + i));
        c.step();
        clock.advance(INTERVAL);
        c.step();
        assertThat(store).as("offsets 3-4 sealed and staging while the commit of 0-2 is under way").hasSize(1);
        assertThat(catalog).as("one commit a table at a time").hasSize(1);

        store.poll().run();
        catalog.poll().run();
        c.step();
        assertThat(committedOffsets()).isEqualTo(range(0, 2));
        assertThat(catalog).as("the next commit starts as the previous one is taken in").hasSize(1);
        catalog.poll().run();
        c.step();
        assertThat(committedOffsets()).isEqualTo(range(0, 4));
        assertThat(tables.snapshotCount(T)).isEqualTo(2);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(4));
    }
}
