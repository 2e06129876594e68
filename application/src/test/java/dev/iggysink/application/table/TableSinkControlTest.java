package dev.iggysink.application.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryTables;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.application.status.TableStatus;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** What the admin endpoints see of a table sink: {@link TableSinkControl} over its {@link TableConsumer}s. */
class TableSinkControlTest {
    private static final String T = "lake.events";
    private static final Duration INTERVAL = Duration.ofSeconds(10);

    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:02:31Z"));
    private final ScriptedMessageSource topic = new ScriptedMessageSource("app", "events", 1);
    private final InMemoryTables tables = new InMemoryTables();
    private final List<Duration> commitTimes = new ArrayList<>();
    private final TableTally tally = new TableTally(commitTimes::add);
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final TableSinkControl control = new TableSinkControl(tally, clock, 1_000_000, Duration.ofMillis(100),
            () -> stopped.set(true));

    private TableConsumer consumer(ErrorTolerance errors) {
        TableSettings settings = new TableSettings(TableRouting.fixed(T), RotationPolicy.byCount(3), INTERVAL, 100,
                100, errors);
        TableConsumer c = new TableConsumer(topic, new LinesCodec(), tables, settings, clock,
                control.counting(SinkMetrics.NONE), tally);
        control.register("app/events", c);
        return c;
    }

    private PartitionStatus partition0() {
        return control.status().partitions().get(0);
    }

    @Test
    void status_shows_what_was_read_what_the_table_holds_and_the_lag_going_to_zero() throws SourceException {
        TableConsumer c = consumer(ErrorTolerance.NONE);
        topic.append(0, 7, i -> "n=" + i);
        c.step();

        StatusSnapshot before = control.status();
        assertThat(before.health()).isEqualTo(Health.OK);
        PartitionStatus p = before.partitions().get(0);
        assertThat(p.position()).isEqualTo(7);
        assertThat(p.committed()).isEqualTo(-1);
        assertThat(p.lag()).isEqualTo(7);
        assertThat(p.bufferedRecords()).isEqualTo(7); // two sealed files of 3, one open of 1
        assertThat(p.pendingFiles()).isEqualTo(2);
        assertThat(before.totals().recordsConsumed()).isEqualTo(7);
        TableStatus.Lane lane = control.tables().orElseThrow().lanes().get(0);
        assertThat(lane.table()).isEqualTo(T);
        assertThat(lane.read()).isEqualTo(6);
        assertThat(lane.tableOffset()).isEqualTo(-1);
        assertThat(control.tables().orElseThrow().totals().commits()).isZero();

        clock.advance(INTERVAL);
        c.step();

        assertThat(partition0().committed()).isEqualTo(6);
        assertThat(partition0().lag()).isZero();
        assertThat(partition0().bufferedRecords()).isZero();
        TableStatus after = control.tables().orElseThrow();
        assertThat(after.lanes().get(0).tableOffset()).isEqualTo(6);
        assertThat(after.lanes().get(0).groupOffset()).isEqualTo(6);
        assertThat(after.totals().commits()).isEqualTo(1);
        assertThat(after.totals().rowsCommitted()).isEqualTo(7);
        assertThat(after.totals().dataFiles()).isEqualTo(3);
        assertThat(commitTimes).hasSize(1);
        assertThat(control.rotationCounts()).containsEntry("count", 2L).containsEntry("schedule", 1L);

        topic.append(0, 2, i -> "late=" + i);
        clock.advance(TableConsumer.LAG_REFRESH);
        c.step();
        // read but not yet in the table: the backlog counts it until the commit
        assertThat(partition0().lag()).isEqualTo(2);
    }

    @Test
    void a_halted_partition_fails_the_sink_and_names_the_record() throws SourceException {
        TableConsumer c = consumer(ErrorTolerance.NONE);
        topic.append(0, List.of("n=0", "NOFIT n=x", "n=2"));
        c.step();

        StatusSnapshot status = control.status();
        assertThat(status.health()).isEqualTo(Health.FAILED);
        assertThat(status.reasons()).singleElement().asString()
                .contains("app/events/0 halted").contains("offset 1");
        assertThat(status.partitions().get(0).halted()).isTrue();
        assertThat(control.tables().orElseThrow().totals().badRecords()).isEqualTo(1);
        assertThat(control.tables().orElseThrow().lanes().get(0).halted()).isPresent();
    }

    @Test
    void a_failed_commit_degrades_the_sink_until_a_commit_goes_through() throws SourceException {
        TableConsumer c = consumer(ErrorTolerance.NONE);
        topic.append(0, 3, i -> "n=" + i);
        tables.nextCommitLandsThenTimesOut();
        c.step();
        clock.advance(INTERVAL);
        c.step();

        StatusSnapshot failing = control.status();
        assertThat(failing.health()).isEqualTo(Health.DEGRADED);
        assertThat(failing.reasons()).hasSize(2).anySatisfy(r -> assertThat(r)
                .contains("1 table commit(s) in a row failed")).anySatisfy(r -> assertThat(r)
                .startsWith("catalog, table lake.events failing since").contains("read timed out"));
        assertThat(control.tables().orElseThrow().totals().failedCommits()).isEqualTo(1);

        topic.append(0, 3, i -> "m=" + i);
        c.step();
        clock.advance(INTERVAL);
        c.step();
        assertThat(control.status().health()).isEqualTo(Health.OK);
        assertThat(control.tables().orElseThrow().totals().failuresInRow()).isZero();
    }

    @Test
    void pause_stops_reading_but_commits_go_on_and_flush_commits_at_once() throws SourceException {
        TableConsumer c = consumer(ErrorTolerance.NONE);
        topic.append(0, 2, i -> "n=" + i);
        c.step();
        control.pause("test");
        topic.append(0, 2, i -> "m=" + i);
        assertThat(c.step()).isZero();
        assertThat(control.status().health()).isEqualTo(Health.PAUSED);
        assertThat(control.status().pausedSince()).contains(clock.instant());

        control.flush(); // before the commit interval: the open file is sealed and committed now
        clock.advance(TableConsumer.LAG_REFRESH); // the end offsets are read again while paused too
        c.step();
        assertThat(tables.commits()).isEqualTo(1);
        assertThat(partition0().committed()).isEqualTo(1);
        assertThat(partition0().lag()).isEqualTo(2); // the two records not read while paused
        assertThat(control.rotationCounts()).containsExactly(java.util.Map.entry("flush", 1L));

        control.resume();
        assertThat(c.step()).isEqualTo(2);
        assertThat(control.status().health()).isEqualTo(Health.OK);
        control.requestStop();
        assertThat(stopped).isTrue();
        assertThat(c.drain()).isTrue();
        assertThat(control.rotationCounts()).containsOnly(java.util.Map.entry("flush", 1L),
                java.util.Map.entry("shutdown", 1L));

        topic.append(0, 1, i -> "o=" + i);
        c.step();
        clock.advance(INTERVAL);
        c.step();
        assertThat(control.rotationCounts()).containsEntry("schedule", 1L);
    }

    @Test
    void a_loop_that_stopped_publishing_is_stuck_and_a_loop_that_ended_fails_the_sink() throws SourceException {
        TableConsumer c = consumer(ErrorTolerance.NONE);
        c.step();
        assertThat(control.status().stuck()).isEmpty();
        clock.advance(TableSinkControl.STUCK_AFTER.plusSeconds(1));
        assertThat(control.status().stuck()).singleElement().asString().contains("app/events");

        control.trouble("app/events", "Iggy failed, trying again: connection refused");
        assertThat(control.status().health()).isEqualTo(Health.DEGRADED);
        control.trouble("app/events", null);
        control.failed("app/events", "app/events: topic not found");
        assertThat(control.status().health()).isEqualTo(Health.FAILED);
        assertThat(control.status().reasons()).containsExactly("app/events: topic not found");
        assertThat(control.status().stuck()).isEmpty(); // ended, so a restart would not help
    }
}
