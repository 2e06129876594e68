package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lag is the partition's backlog (its end offset in Iggy minus the group's committed offset), read on a timer of its
 * own: it grows while polling is paused, while the store is down and while polls back off, when the last poll's
 * answer would freeze it.
 */
class BacklogSignalsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Past the lag's refresh period: the next turn of the loop reads the end offsets again. */
    private static final Duration PAST_REFRESH = Duration.ofSeconds(10);

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("s", "t", 1);
    /** One hour after the time the fake stamps its records with (2026-03-16T14:02:31Z). */
    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T15:02:31Z"));
    private SinkService sink;

    private void start(long recordsPerFile) {
        sink = new SinkService(TestSettings.countRotation(TestSettings.stream("s", "t"), recordsPerFile),
                (s, t, g) -> source, s -> new LinesCodec(), store, clock, d -> Thread.sleep(Math.min(d.toMillis(), 20)),
                SinkMetrics.NONE);
        sink.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        store.up();
        if (sink != null) sink.stop();
    }

    private PartitionStatus partition() {
        return sink.status().partitions().stream().filter(p -> p.partition() == 0).findFirst().orElseThrow();
    }

    /** Until the source has not been polled for a while: the loop saw the pause, the stall or the backoff. */
    private void awaitNoMorePolls() {
        long[] last = {-1};
        await().pollInterval(Duration.ofMillis(50)).during(Duration.ofMillis(400)).atMost(WAIT).until(() -> {
            long now = source.polls();
            boolean same = now == last[0];
            last[0] = now;
            return same;
        });
    }

    /** 150 records read, 0-99 durable and committed, 100-149 in the open file. */
    private void readFirst150() {
        source.append(0, 150, i -> "r" + i);
        start(100);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 99 && partition().position() == 150);
    }

    @Test
    void while_paused_lag_counts_the_records_stored_since_not_what_the_last_poll_saw() {
        readFirst150();
        sink.pause();
        awaitNoMorePolls();

        source.append(0, 300, i -> "late" + i); // offsets 150-449, none read
        clock.advance(PAST_REFRESH);

        await().atMost(WAIT).untilAsserted(() -> assertThat(partition().lag()).as("449 - 99").isEqualTo(350));
        assertThat(partition().position()).as("paused: nothing more read").isEqualTo(150);
    }

    @Test
    void during_a_store_outage_lag_grows_with_the_backlog_and_falls_when_the_store_is_back() {
        readFirst150();
        store.down(InMemoryObjectStore.unavailable());
        sink.flush(); // 100-149 sealed; its upload fails and is retried: the partition reads no further
        await().atMost(WAIT).until(() -> partition().lastError().isPresent());
        awaitNoMorePolls();

        source.append(0, 500, i -> "late" + i); // offsets 150-649
        clock.advance(PAST_REFRESH);
        await().atMost(WAIT).untilAsserted(() -> assertThat(partition().lag()).as("649 - 99").isEqualTo(550));

        store.up();
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 649); // 150-649 in files of 100
        await().atMost(WAIT).untilAsserted(() -> assertThat(partition().lag()).as("649 - 649").isZero());
    }

    @Test
    void the_age_of_the_oldest_record_not_yet_durable_grows_while_it_waits_and_is_0_once_committed() {
        readFirst150(); // every record stamped 2026-03-16T14:02:31Z, one hour before the clock
        await().atMost(WAIT).untilAsserted(() -> assertThat(partition().oldestPending())
                .hasValue(Instant.parse("2026-03-16T14:02:31Z")));
        assertThat(sink.status().oldestPendingAgeSeconds()).isEqualTo(3600);

        store.down(InMemoryObjectStore.unavailable());
        sink.flush();
        clock.advance(Duration.ofSeconds(90));
        assertThat(sink.status().oldestPendingAgeSeconds()).as("still not durable").isEqualTo(3690);

        store.up();
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 149);
        await().atMost(WAIT).untilAsserted(() -> assertThat(partition().oldestPending()).isEmpty());
        assertThat(sink.status().oldestPendingAgeSeconds()).isZero();
    }

    @Test
    void the_oldest_pending_record_is_the_one_after_the_commit_point_with_its_own_time() {
        source.append(0, 100, i -> "old" + i); // 0-99 at 14:02:31
        source.recordTimeMicros(Instant.parse("2026-03-16T14:30:00Z").toEpochMilli() * 1000);
        source.append(0, 50, i -> "new" + i); // 100-149 at 14:30
        start(100);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 99 && partition().position() == 150);

        await().atMost(WAIT).untilAsserted(() -> assertThat(partition().oldestPending())
                .hasValue(Instant.parse("2026-03-16T14:30:00Z")));
    }

    @Test
    void paused_is_its_own_health_with_since_when_and_who_asked_and_resume_ends_it() {
        readFirst150();
        assertThat(sink.status().health()).isEqualTo(Health.OK);
        Instant pausedAt = clock.instant();
        sink.pause("POST /pause from 10.0.0.7");
        clock.advance(Duration.ofSeconds(30));
        sink.pause("POST /pause from 10.0.0.8");

        StatusSnapshot paused = sink.status();
        assertThat(paused.health()).isEqualTo(Health.PAUSED);
        assertThat(paused.pausedSince()).as("the first request counts").hasValue(pausedAt);
        assertThat(paused.reasons()).singleElement().asString().contains("paused since " + pausedAt)
                .contains("POST /pause from 10.0.0.7");

        store.down(InMemoryObjectStore.unavailable());
        sink.flush();
        await().atMost(WAIT).until(() -> sink.status().health() == Health.DEGRADED);
        assertThat(sink.status().reasons()).as("paused and the store down: both told")
                .anySatisfy(r -> assertThat(r).contains("paused since"))
                .anySatisfy(r -> assertThat(r).contains("object store"));
        store.up();

        sink.resume();
        await().atMost(WAIT).until(() -> sink.status().health() == Health.OK);
        assertThat(sink.status().pausedSince()).isEmpty();
    }

    @Test
    void a_loop_that_stops_coming_round_is_stuck_and_not_while_it_merely_waits() throws Exception {
        readFirst150();
        clock.advance(Duration.ofMinutes(10)); // idle and paused loops come round all the same
        sink.pause();
        await().atMost(WAIT).untilAsserted(() -> assertThat(sink.status().stuck()).isEmpty());
        sink.resume();

        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch polling = new CountDownLatch(1);
        source.beforeNextPoll(0, () -> {
            polling.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        source.append(0, 1, i -> "wedge");
        polling.await();
        clock.advance(SinkService.STUCK_AFTER.plusSeconds(1));
        assertThat(sink.status().stuck()).singleElement().asString()
                .contains("consumer loop of s/t has not come round for 301 s");

        release.countDown();
        await().atMost(WAIT).untilAsserted(() -> assertThat(sink.status().stuck()).isEmpty());
    }

    @Test
    void while_polls_of_a_partition_back_off_lag_still_follows_its_end() {
        readFirst150();
        source.failPollsOf(0, new SourceException("Iggy answered error 3 to poll", true));
        awaitNoMorePolls(); // the partition's backoff runs on the (manual) clock: it stays due only once moved on

        source.append(0, 300, i -> "late" + i);
        clock.advance(PAST_REFRESH);

        await().atMost(WAIT).untilAsserted(() -> assertThat(partition().lag()).as("449 - 99").isEqualTo(350));
        source.healPolls(0);
    }
}
