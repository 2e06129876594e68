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
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.domain.retry.Backoff;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The table sink through a 30 s outage of its catalog and of its warehouse store, stepped as the runner steps it
 * (every 5 ms, the default poll interval) on a manual clock: the catalog is tried again with capped backoff, each
 * outage logs one line when it starts and one when it ends, health names it, lag stays the backlog, and afterwards
 * every record is in the table exactly once.
 */
class TableOutageTest {
    private static final String T = "lake.events";
    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofMillis(5);

    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:02:31Z"));
    private final ScriptedMessageSource topic = new ScriptedMessageSource("app", "events", 2);
    private final InMemoryTables tables = new InMemoryTables();
    private final TableTally tally = new TableTally(took -> { },
            new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), Backoff.DEFAULT_JITTER),
            "catalog http://rest:8181", "warehouse store http://minio:9000");
    private final TableSinkControl control = new TableSinkControl(tally, clock, 1 << 20, POLL, () -> { });
    private final TableConsumer consumer = new TableConsumer(topic, new LinesCodec(), tables,
            new TableSettings(TableRouting.fixed(T), RotationPolicy.byCount(3), INTERVAL, 100, 100, ErrorTolerance.ALL),
            clock, new SinkMetrics() { }, tally);
    private final List<LogRecord> logs = new ArrayList<>();
    private final Logger logger = Logger.getLogger("dev.iggysink.application.table");
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            synchronized (logs) {
                logs.add(r);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        logger.addHandler(capture);
        control.register("app/events", consumer);
    }

    @AfterEach
    void stopListening() {
        logger.removeHandler(capture);
    }

    private List<LogRecord> logged(Level atLeast) {
        synchronized (logs) {
            return logs.stream().filter(r -> r.getLevel().intValue() >= atLeast.intValue()).toList();
        }
    }

    /** Steps the loop for {@code span} at the poll interval, as the runner does. */
    private void run(Duration span) throws SourceException {
        for (Duration d = Duration.ZERO; d.compareTo(span) < 0; d = d.plus(POLL)) {
            consumer.step();
            clock.advance(POLL);
        }
    }

    private List<Long> committedOffsets(int partition) {
        List<Long> out = new ArrayList<>();
        for (InMemoryTables.DataFile f : tables.committed(T)) {
            if (f.partition().partitionId() == partition) out.addAll(f.offsets());
        }
        return out;
    }

    @Test
    void a_catalog_outage_is_retried_with_backoff_logged_once_each_way_and_lag_stays_the_backlog()
            throws SourceException {
        topic.append(0, 6, i -> "a=" + i);
        topic.append(1, 6, i -> "b=" + i);
        run(INTERVAL.plusSeconds(1));
        assertThat(committedOffsets(0)).isEqualTo(range(0, 5));
        int before = logged(Level.WARNING).size();

        tables.catalogDown("Connection refused: rest/10.0.0.7:8181");
        topic.append(0, 9, i -> "a2=" + i);
        topic.append(1, 9, i -> "b2=" + i);
        int callsBefore = tables.catalogCalls();
        run(Duration.ofSeconds(30));

        List<LogRecord> warnings = logged(Level.WARNING).subList(before, logged(Level.WARNING).size());
        assertThat(warnings).as("one line when the outage starts, whatever the loop tries meanwhile: %s",
                warnings.stream().limit(3).map(LogRecord::getMessage).toList()).hasSizeLessThanOrEqualTo(2);
        assertThat(tables.catalogCalls() - callsBefore).as("tried again with backoff capped at 10 s, not every poll")
                .isBetween(2, 12);
        StatusSnapshot status = control.status();
        assertThat(status.health()).isEqualTo(Health.DEGRADED);
        assertThat(status.reasons()).anySatisfy(r -> assertThat(r).contains("catalog http://rest:8181")
                .contains("Connection refused"));
        assertThat(status.partitions()).as("the partitions stay listed with the group's offset")
                .extracting(PartitionStatus::partition).containsExactly(0, 1);
        assertThat(status.partitions()).allSatisfy(p -> assertThat(p.lag()).isEqualTo(9));
        assertThat(tally.outageSummaries(clock.instant())).singleElement().asString().contains("catalog http://rest:8181")
                .contains("failed attempt");

        tables.catalogDown(null);
        run(Duration.ofSeconds(25));
        assertThat(committedOffsets(0)).isEqualTo(range(0, 14));
        assertThat(committedOffsets(1)).isEqualTo(range(0, 14));
        assertThat(control.status().health()).isEqualTo(Health.OK);
        assertThat(tally.outageSummaries(clock.instant())).isEmpty();
        assertThat(logged(Level.INFO)).anySatisfy(r -> assertThat(r.getMessage()).contains("recovered"));
    }

    @Test
    void a_store_refusing_data_files_makes_health_degraded_naming_it_until_it_answers_again() throws SourceException {
        topic.append(0, 6, i -> "a=" + i);
        tables.storeDown(new StoreException("writing a data file of lake.events failed: Unable to execute HTTP"
                + " request: Connect to minio:9000 failed: Connection refused", true, 0, null, null));
        run(INTERVAL.plusSeconds(5));
        StatusSnapshot status = control.status();
        assertThat(status.health()).isEqualTo(Health.DEGRADED);
        assertThat(status.reasons()).anySatisfy(r -> assertThat(r).contains("warehouse store http://minio:9000")
                .contains("Connection refused"));
        assertThat(status.reasons()).as("the store failed, no commit did").noneSatisfy(r -> assertThat(r)
                .contains("table commit(s) in a row failed"));
        assertThat(tally.totals().failuresInRow()).isZero();
        assertThat(logged(Level.WARNING)).hasSizeLessThanOrEqualTo(2);

        tables.storeDown(null);
        run(INTERVAL.plusSeconds(15));
        assertThat(committedOffsets(0)).isEqualTo(range(0, 5));
        assertThat(control.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void a_store_refusing_data_files_with_403_degrades_health_then_fails_it_after_three_attempts()
            throws SourceException {
        topic.append(0, 6, i -> "a=" + i);
        tables.storeDown(new StoreException("writing a data file of lake.events failed: Access Denied (Service: S3,"
                + " Status Code: 403)", false, 403, null, null));
        run(INTERVAL.plusSeconds(1));
        StatusSnapshot first = control.status();
        assertThat(first.health()).as("one refusal may be a grant still on its way: %s", first.reasons())
                .isEqualTo(Health.DEGRADED);
        assertThat(first.reasons()).anySatisfy(r -> assertThat(r).contains("warehouse store http://minio:9000")
                .contains("Access Denied"));

        run(INTERVAL.multipliedBy(3));
        StatusSnapshot refused = control.status();
        assertThat(refused.health()).isEqualTo(Health.FAILED);
        assertThat(refused.reasons()).anySatisfy(r -> assertThat(r).contains("halted").contains("lake.events")
                .contains("Access Denied"));
        assertThat(committedOffsets(0)).isEmpty();

        int attempts = tables.stageAttempts();
        run(INTERVAL.multipliedBy(3));
        assertThat(tables.stageAttempts()).as("a file the store refused for good is not written again at each commit")
                .isEqualTo(attempts);
    }

    @Test
    void a_flush_asked_for_while_the_catalog_backs_off_is_made_once_it_answers() throws SourceException {
        topic.own(1, false);
        topic.append(0, 2, i -> "a=" + i);
        run(POLL); // partition 0 taken up: its 2 records wait in an open file
        tables.catalogDown("Connection refused: rest/10.0.0.7:8181");
        topic.own(1, true);
        run(POLL); // taking up partition 1 fails: the catalog is asked again after its backoff
        consumer.flush();
        run(POLL);
        tables.catalogDown(null);
        run(Duration.ofSeconds(3));
        assertThat(committedOffsets(0)).as("the flush seals and commits the open file well before the commit interval")
                .isEqualTo(range(0, 1));
    }

    @Test
    void an_unexpected_error_taking_a_partition_up_is_retried_with_backoff_logged_once_and_named_in_health()
            throws SourceException {
        topic.append(0, 3, i -> "a=" + i);
        tables.failLookupsWith(new IllegalStateException("Cannot parse snapshot summary property sink.offsets"));
        int callsBefore = tables.catalogCalls();
        run(Duration.ofSeconds(30));

        assertThat(logged(Level.SEVERE)).as("one error line when it starts, not one per poll").hasSize(1);
        assertThat(tables.catalogCalls() - callsBefore).as("tried again with backoff capped at 10 s, not every poll")
                .isBetween(2, 25);
        StatusSnapshot status = control.status();
        assertThat(status.health()).isEqualTo(Health.DEGRADED);
        assertThat(status.reasons()).anySatisfy(r -> assertThat(r).contains("catalog http://rest:8181")
                .contains("IllegalStateException").contains("Cannot parse snapshot summary"));

        tables.failLookupsWith(null);
        run(Duration.ofSeconds(25));
        assertThat(committedOffsets(0)).isEqualTo(range(0, 2));
        assertThat(control.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void a_table_whose_commits_keep_failing_backs_off_alone_while_the_others_commit_on_schedule_and_health_names_it()
            throws SourceException {
        String healthy = "lake.t1";
        String failing = "lake.t2";
        TableSinkControl own = new TableSinkControl(tally, clock, 1 << 20, POLL, () -> { });
        TableConsumer routed = new TableConsumer(topic, new LinesCodec(), tables,
                new TableSettings(TableRouting.byField("table"), RotationPolicy.byCount(1_000), INTERVAL, 100, 100,
                        ErrorTolerance.ALL), clock, new SinkMetrics() { }, tally);
        own.register("app/events", routed);
        tables.failCommitsTo(failing, new StoreException("commit to table lake.t2 failed: Service Unavailable"
                + " (Status Code: 503)", true, 503, null, null));
        topic.own(1, false);

        // partition 1 (all of lake.t2) comes 9.5 s after partition 0 (all of lake.t1): the failing table's commits
        // fall just before the healthy one's are due
        Instant start = clock.instant();
        List<Instant> healthyCommits = new ArrayList<>();
        List<String> flaps = new ArrayList<>();
        boolean failedOnce = false;
        int snapshots = 0;
        for (Duration d = Duration.ZERO; d.compareTo(Duration.ofSeconds(60)) < 0; d = d.plus(POLL)) {
            if (d.toMillis() % 1_000 == 0) topic.append(0, 1, i -> "table=" + healthy + ";n=" + i);
            if (d.equals(Duration.ofMillis(9_500))) {
                topic.own(1, true);
                topic.append(1, 3, i -> "table=" + failing + ";n=" + i);
            }
            routed.step();
            if (tables.snapshotCount(healthy) != snapshots) {
                snapshots = tables.snapshotCount(healthy);
                healthyCommits.add(clock.instant());
            }
            failedOnce |= tally.totals().failedCommits() > 0;
            if (failedOnce) {
                StatusSnapshot status = own.status();
                if (status.health() == Health.OK || status.reasons().stream().noneMatch(r -> r.contains(failing))
                        || status.reasons().stream().anyMatch(r -> r.contains(healthy))) {
                    flaps.add(Duration.between(start, clock.instant()).toMillis() + " ms: " + status.health() + " "
                            + status.reasons());
                }
            }
            clock.advance(POLL);
        }

        assertThat(failedOnce).isTrue();
        assertThat(flaps).as("while lake.t2 fails, health is degraded naming it (and only it) at every turn")
                .isEmpty();
        assertThat(healthyCommits).as("lake.t1 commits every interval").hasSizeGreaterThanOrEqualTo(5);
        for (int i = 1; i < healthyCommits.size(); i++) {
            assertThat(Duration.between(healthyCommits.get(i - 1), healthyCommits.get(i)))
                    .as("lake.t1's commit %d waits for its interval only, not for lake.t2's backoff: %s", i,
                            healthyCommits)
                    .isLessThanOrEqualTo(INTERVAL.plus(POLL));
        }
        assertThat(tables.committed(failing)).isEmpty();
        assertThat(topic.stored(1)).isEmpty();
    }
}
