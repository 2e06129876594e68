package dev.iggysink.application.table;

import static dev.iggysink.application.table.TableTestSupport.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.iggysink.application.fakes.InMemoryTables;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * What the table sink's loop does when its table is replaced under it, when a commit is refused for good, and when
 * the store lets out an error nobody expected: reading resumes from the group's offset in the first case, the
 * partition halts with the cause in the others, and the loop itself never ends on it.
 */
class TableSetbacksTest {
    private static final String T = "lake.events";
    private static final Duration INTERVAL = Duration.ofSeconds(10);

    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:02:31Z"));
    private final ScriptedMessageSource topic = new ScriptedMessageSource("app", "events", 2);
    private final InMemoryTables tables = new InMemoryTables();
    private final TableTally tally = new TableTally();
    private final TableSinkControl control = new TableSinkControl(tally, clock, 1_000_000, Duration.ofMillis(100),
            () -> { });

    private TableConsumer consumer() {
        return consumer(TableRouting.fixed(T));
    }

    private TableConsumer consumer(TableRouting routing) {
        TableSettings settings = new TableSettings(routing, RotationPolicy.byCount(3), INTERVAL, 100, 100,
                ErrorTolerance.ALL);
        TableConsumer c = new TableConsumer(topic, new LinesCodec(), tables, settings, clock, new SinkMetrics() { },
                tally);
        control.register("app/events", c);
        return c;
    }

    /** {@code n} commit intervals, a step of the loop after each. */
    private void intervals(TableConsumer c, int n) throws SourceException {
        for (int i = 0; i < n; i++) {
            clock.advance(INTERVAL);
            c.step();
        }
    }

    /**
     * Offsets 0-2 of partition 0 committed; then the table is dropped for good while offsets 3-5 of partition 0 and
     * 0-2 of partition 1 arrive and the loop tries to commit them.
     */
    private TableConsumer aTableDroppedAfterACommit() throws SourceException {
        TableConsumer c = consumer();
        topic.append(0, 3, i -> "n=" + i);
        c.step();
        intervals(c, 1);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(2));

        tables.drop(T);
        topic.append(0, 3, i -> "n=" + i);
        topic.append(1, 3, i -> "n=" + i);
        c.step();
        intervals(c, 1);
        c.step();
        return c;
    }

    private static List<Long> offsets(List<InMemoryTables.DataFile> files, int partition) {
        List<Long> out = new ArrayList<>();
        for (InMemoryTables.DataFile f : files) if (f.partition().partitionId() == partition) out.addAll(f.offsets());
        return out;
    }

    @Test
    void a_replaced_table_is_written_again_from_the_groups_offset_and_the_status_says_so() throws SourceException {
        TableConsumer c = consumer();
        topic.append(0, 6, i -> "n=" + i);
        c.step();
        clock.advance(INTERVAL);
        c.step();
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(5));
        topic.append(0, 4, i -> "n=" + i);
        c.step(); // 6-8 staged for the old table, 9 open

        tables.replace(T);
        clock.advance(INTERVAL);
        c.step();
        c.step();
        clock.advance(INTERVAL);
        c.step();

        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(6, 9));
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(9));
        assertThat(control.tables().orElseThrow().replacements()).isEqualTo(1);
        assertThat(control.tables().orElseThrow().replaced()).singleElement().asString()
                .contains("table lake.events was replaced (uuid id-0 -> id-1) at " + clock.instant().minus(INTERVAL))
                .contains("reading resumes from the group's offset: app/events/0 at 5");
        assertThat(control.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void a_commit_the_table_refuses_for_good_halts_its_partition_with_the_cause_and_is_not_read_again()
            throws SourceException {
        TableConsumer c = consumer();
        topic.append(0, 4, i -> "n=" + i);
        c.step();
        tables.failNextCommit(new StoreException("commit to table lake.events refused: Cannot append file with"
                + " invalid partition spec", false, 400, null, null));
        clock.advance(INTERVAL);
        c.step();
        clock.advance(INTERVAL);
        c.step();

        assertThat(c.partitions().get(topic.partition(0))).isNotNull()
                .contains("table lake.events refused the commit of offsets 0-3")
                .contains("Cannot append file with invalid partition spec");
        StatusSnapshot status = control.status();
        assertThat(status.health()).isEqualTo(Health.FAILED);
        assertThat(status.reasons()).anySatisfy(r -> assertThat(r).contains("app/events/0 halted")
                .contains("table lake.events"));
        assertThat(tables.committed(T)).isEmpty();
        assertThat(topic.stored(0)).isEmpty();
    }

    private static StoreException forbidden() {
        return new StoreException("commit to table lake.events failed: writing a manifest: Access Denied (Service: S3,"
                + " Status Code: 403)", false, 403, null, null);
    }

    @Test
    void a_commit_refused_with_403_once_is_tried_again_and_goes_through() throws SourceException {
        TableConsumer c = consumer();
        topic.append(0, 3, i -> "n=" + i);
        c.step();
        tables.failNextCommit(forbidden());
        clock.advance(INTERVAL);
        c.step();
        assertThat(c.partitions().get(topic.partition(0))).as("one 403 may be a grant still on its way").isNull();

        clock.advance(INTERVAL);
        c.step();
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 2));
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(2));
        assertThat(control.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void a_commit_refused_with_403_three_times_halts_its_partition_with_the_cause() throws SourceException {
        TableConsumer c = consumer();
        topic.append(0, 3, i -> "n=" + i);
        c.step();
        for (int attempt = 1; attempt <= 3; attempt++) {
            assertThat(c.partitions().get(topic.partition(0))).as("before attempt %d", attempt).isNull();
            tables.failNextCommit(forbidden());
            clock.advance(INTERVAL);
            c.step();
        }
        assertThat(c.partitions().get(topic.partition(0))).isNotNull()
                .contains("table lake.events refused the commit of offsets 0-2").contains("Access Denied");
        assertThat(control.status().health()).isEqualTo(Health.FAILED);
        int calls = tables.catalogCalls();
        clock.advance(INTERVAL);
        c.step();
        assertThat(tables.catalogCalls()).as("the refused files are not offered again").isEqualTo(calls);
        assertThat(tables.committed(T)).isEmpty();
        assertThat(topic.stored(0)).isEmpty();
    }

    @Test
    void a_table_dropped_for_good_halts_the_partitions_held_and_those_taken_up_after_naming_it()
            throws SourceException {
        TableConsumer c = aTableDroppedAfterACommit();

        assertThat(c.partitions().get(topic.partition(0))).isNotNull()
                .contains("table lake.events refused the commit of offsets 3-5")
                .contains("was dropped from the catalog");
        assertThat(c.partitions().get(topic.partition(1))).isNotNull()
                .contains("was dropped from the catalog");
        assertThat(control.status().health()).isEqualTo(Health.FAILED);
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(2));
        assertThat(topic.stored(1)).isEmpty();
    }

    @Test
    void an_unexpected_error_writing_a_data_file_halts_its_partition_not_the_loop() throws SourceException {
        TableConsumer c = consumer();
        tables.failStagesOf(0, new IllegalArgumentException("Cannot find source column for partition field:"
                + " 1000: country"));
        topic.append(0, 3, i -> "n=" + i);
        topic.append(1, 3, i -> "n=" + i);
        c.step();
        clock.advance(INTERVAL);
        assertThatCode(c::step).doesNotThrowAnyException();

        assertThat(c.partitions().get(topic.partition(0))).isNotNull()
                .contains("offsets 0-2").contains("Cannot find source column for partition field");
        assertThat(control.status().health()).isEqualTo(Health.FAILED);
        // the loop goes on: the other partition is committed
        assertThat(offsets(tables.committed(T), 1)).isEqualTo(range(0, 2));
        assertThat(topic.stored(1)).isEqualTo(OptionalLong.of(2));
    }

    @Test
    void an_unexpected_error_of_a_commit_halts_the_partitions_it_covers_not_the_loop() throws SourceException {
        TableConsumer c = consumer();
        topic.append(0, 3, i -> "n=" + i);
        c.step();
        tables.failNextCommitWith(new NullPointerException("Cannot invoke \"Snapshot.summary()\""));
        clock.advance(INTERVAL);
        assertThatCode(c::step).doesNotThrowAnyException();

        assertThat(c.partitions().get(topic.partition(0))).isNotNull()
                .contains("table lake.events").contains("NullPointerException")
                .contains("Snapshot.summary()");
        assertThat(control.status().health()).isEqualTo(Health.FAILED);
        assertThat(topic.stored(0)).isEmpty();
    }

    private static StoreException lookupForbidden() {
        return new StoreException("reading the offsets of table lake.events failed: Forbidden: not allowed to load"
                + " table (403)", false, 403, null, null);
    }

    @Test
    void a_lookup_refused_with_403_at_take_up_is_tried_again_and_goes_through() throws SourceException {
        TableConsumer c = consumer();
        topic.append(0, 3, i -> "n=" + i);
        tables.failLookups(lookupForbidden());
        c.step();
        assertThat(c.partitions().get(topic.partition(0))).as("one 403 may be a grant still on its way").isNull();
        StatusSnapshot waiting = control.status();
        assertThat(waiting.health()).isEqualTo(Health.DEGRADED);
        assertThat(waiting.reasons()).anySatisfy(r -> assertThat(r).contains("lake.events").contains("403"));

        tables.failLookups(null);
        intervals(c, 2);
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 2));
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(2));
        assertThat(control.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void a_lookup_refused_with_403_three_times_at_take_up_halts_the_partition_saying_so() throws SourceException {
        TableConsumer c = consumer();
        topic.own(1, false);
        topic.append(0, 3, i -> "n=" + i);
        tables.failLookups(lookupForbidden());
        for (int attempt = 1; attempt <= 3; attempt++) {
            assertThat(c.partitions().get(topic.partition(0))).as("before attempt %d", attempt).isNull();
            c.step();
            clock.advance(Duration.ofMillis(100));
            c.step();
            clock.advance(INTERVAL);
        }
        assertThat(tables.lookups()).as("three lookups, one per backoff, none after the halt").isEqualTo(3);
        assertThat(c.partitions().get(topic.partition(0))).isNotNull()
                .contains("table lake.events").contains("refused with 403 3 times in a row").contains("Forbidden");
        assertThat(control.status().health()).isEqualTo(Health.FAILED);
        assertThat(topic.stored(0)).isEmpty();
    }

    @Test
    void a_partition_halted_because_its_table_was_dropped_reads_on_once_the_table_is_created_again()
            throws SourceException {
        TableConsumer c = aTableDroppedAfterACommit();
        assertThat(c.partitions().get(topic.partition(0))).isNotNull().contains("was dropped from the catalog");
        assertThat(c.partitions().get(topic.partition(1))).isNotNull().contains("was dropped from the catalog");

        tables.createAgain(T);
        for (int i = 0; i < 4; i++) {
            clock.advance(INTERVAL);
            c.step();
            c.step();
        }

        assertThat(c.partitions()).as("no partition halted").containsOnlyKeys(topic.partition(0), topic.partition(1))
                .allSatisfy((p, halted) -> assertThat(halted).isNull());
        assertThat(offsets(tables.committed(T), 0)).as("from the group's offset, into the new table")
                .isEqualTo(range(3, 5));
        assertThat(offsets(tables.committed(T), 1)).isEqualTo(range(0, 2));
        assertThat(topic.stored(0)).isEqualTo(OptionalLong.of(5));
        assertThat(topic.stored(1)).isEqualTo(OptionalLong.of(2));
        assertThat(control.status().health()).isEqualTo(Health.OK);
        assertThat(control.tables().orElseThrow().replacements()).isEqualTo(1);
        assertThat(control.tables().orElseThrow().replaced()).singleElement().asString()
                .contains("table lake.events").contains("reading resumes from the group's offset")
                .contains("app/events/0 at 2").contains("app/events/1 at -1");
    }

    @Test
    void a_lookup_refused_with_403_for_a_routed_table_is_tried_again_not_dead_lettered() throws SourceException {
        TableConsumer c = consumer(TableRouting.byField("table"));
        topic.append(0, 3, i -> "table=" + T + ";n=" + i);
        tables.failLookups(lookupForbidden());
        c.step();
        assertThat(c.partitions().get(topic.partition(0))).as("one 403 may be a grant still on its way").isNull();
        assertThat(tables.deadLetters()).as("a refused lookup is not the record's fault").isEmpty();

        tables.failLookups(null);
        intervals(c, 2);
        assertThat(offsets(tables.committed(T), 0)).isEqualTo(range(0, 2));
        assertThat(tables.deadLetters()).isEmpty();
        assertThat(control.status().health()).isEqualTo(Health.OK);
    }
}
