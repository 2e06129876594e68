package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Run claims (docs/adr/0020-run-claims.md): a count cut claimed while the partition already holds the records of
 * more such files claims them all at once, and every member that meets the run cuts its files where the run does.
 */
class RunClaimsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String PAYLOAD = "x".repeat(96);

    private final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
    private final RunningSinks sinks = new RunningSinks();

    private SinkService start(SinkSettings settings, ScriptedMessageSource from) {
        return sinks.start(settings, from, store);
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        sinks.stopAll(store);
    }

    private SinkSettings settings(long count, long budget, ErrorTolerance tolerance) {
        SinkSettings base = TestSettings.countRotation(stream, count);
        return new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(), base.output(),
                base.rotation(), base.retry(),
                new DeliverySettings(budget, tolerance, "_dlq", Duration.ofSeconds(5), 4), base.transforms());
    }

    private static String key(long first, long last) {
        return RunningSinks.key(first, last);
    }

    private Map<Long, Integer> coverage() {
        return RunningSinks.coverage(store);
    }

    /**
     * The partition (300 records) moves to a member with a tight budget, which writes it to its end; then the old
     * owner's held PUT lands. Every offset must be in exactly one object.
     */
    private void movesToATightMemberWhileTheOldOwnersPutIsHeld(SinkService old) throws Exception {
        ScriptedMessageSource next = source.newMember();
        source.own(0, false);
        next.own(0, true);
        SinkService fresh = start(settings(50, 3_000, ErrorTolerance.NONE), next);
        await().atMost(WAIT).until(() -> next.stored(0).orElse(-1) == 299);
        store.releaseHeld();
        old.stop(); // waits for its upload: the held PUT lands now
        assertThat(fresh.stop().clean()).isTrue();

        assertThat(coverage()).as("objects %s", store.objects().keySet()).hasSize(300)
                .allSatisfy((o, n) -> assertThat(n).as("copies of %s", o).isEqualTo(1));
    }

    @Test
    void one_claim_decides_the_files_whose_records_the_partition_already_holds() throws InterruptedException {
        source.append(0, 1_000, i -> PAYLOAD);
        SinkService sink = start(settings(50, 64L << 20, ErrorTolerance.NONE), source);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 999);
        assertThat(sink.stop().clean()).isTrue();

        assertThat(coverage()).hasSize(1_000).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
        assertThat(store.objects().keySet()).hasSize(20).contains(key(0, 49), key(800, 849), key(950, 999));
        // The probe's two creates, then one run claim for files 0-799 (16 files, the most one run decides) and one
        // for 800-999 (four files).
        assertThat(store.createCalls()).isEqualTo(4);
        assertThat(store.claims()).as("claims committed past are removed").isEmpty();
    }

    @Test
    void a_file_whose_next_records_are_not_there_yet_is_claimed_alone() throws InterruptedException {
        SinkService sink = start(settings(50, 64L << 20, ErrorTolerance.NONE), source);
        for (int i = 0; i < 3; i++) {
            source.append(0, 50, n -> PAYLOAD);
            long end = 50L * (i + 1) - 1;
            await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == end);
        }
        assertThat(sink.stop().clean()).isTrue();
        assertThat(store.objects().keySet()).containsExactly(key(0, 49), key(50, 99), key(100, 149));
        assertThat(store.createCalls()).as("the probe's two, then one claim per file").isEqualTo(5);
    }

    /**
     * The old owner claimed offsets 0-299 as a run of six files and its PUT of 100-149 is in flight when the
     * partition moves. The new owner's memory budget is tight: on its own it would cut a file at 100 by memory
     * pressure before offset 149. No claim starts at 100, so the lookup must find the run below it and cut 100-149
     * as well; otherwise the late PUT puts offsets from 100 in two objects.
     */
    @Test
    void a_new_owner_arriving_inside_a_run_cuts_its_files_where_the_run_does() throws Exception {
        store.holdPuts(k -> k.equals(key(100, 149)));
        source.append(0, 300, i -> PAYLOAD);
        SinkService old = start(settings(50, 64L << 20, ErrorTolerance.NONE), source);
        await().atMost(WAIT).until(() -> store.heldCalls() == 1 && source.stored(0).orElse(-1) == 99
                && store.objects().containsKey(key(250, 299)));
        store.holdNoMore(); // the old owner's PUT stays held
        assertThat(store.claims()).hasSize(1);

        movesToATightMemberWhileTheOldOwnersPutIsHeld(old);
        assertThat(store.claims()).as("the new owner committed past the run and removed its claim").isEmpty();
    }

    /**
     * The old owner's PUT of the run's first file is in flight when the partition moves: the new owner's lookup meets
     * the run claim at the committed offset + 1 and cuts that file as the claim names it and the others where the run
     * does, although its budget is tight.
     */
    @Test
    void a_new_owner_arriving_at_a_runs_start_cuts_its_first_file_as_claimed_and_the_rest_as_the_run()
            throws Exception {
        store.holdPuts(k -> k.equals(key(0, 49)));
        source.append(0, 300, i -> PAYLOAD);
        SinkService old = start(settings(50, 64L << 20, ErrorTolerance.NONE), source);
        await().atMost(WAIT).until(() -> store.heldCalls() == 1 && store.objects().containsKey(key(250, 299)));
        store.holdNoMore();
        assertThat(source.stored(0)).isEmpty();

        movesToATightMemberWhileTheOldOwnersPutIsHeld(old);
        assertThat(store.objects().keySet()).hasSize(6).contains(key(0, 49), key(50, 99), key(250, 299));
    }

    @Test
    void a_file_of_a_run_whose_last_records_were_dead_lettered_ends_at_its_last_record() throws InterruptedException {
        source.append(0, 200, i -> i == 98 || i == 99 ? "BAD" + i : PAYLOAD);
        SinkService sink = start(settings(50, 64L << 20, ErrorTolerance.ALL), source);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 199);
        assertThat(sink.stop().clean()).isTrue();

        assertThat(store.objects().keySet()).contains(key(0, 49), key(50, 97), key(100, 149), key(150, 199));
        Map<Long, Integer> files = coverage();
        assertThat(files).hasSize(198).doesNotContainKeys(98L, 99L).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
    }

    @Test
    void a_run_claim_left_by_an_earlier_life_of_the_topic_decides_nothing_and_is_removed() throws Exception {
        String claim = ClaimsOfTwoSinksTest.claimOfTestSink(source.partition(0), 0);
        store.seed(claim, new byte[0], Map.of("iggy-offsets", "0-9", "iggy-run-end", "99",
                "iggy-first", "0/0/1773600000000000"));
        // The group's offset says 0-29 are written; the run below it names another record at its start.
        source.append(0, 100, i -> PAYLOAD);
        source.commit(source.partition(0), 29);
        SinkService sink = start(settings(50, 64L << 20, ErrorTolerance.NONE), source);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 79);
        assertThat(sink.stop().clean()).isTrue();

        assertThat(store.objects().keySet()).as("cut by the rotation, not by the stale run of 10-offset files")
                .containsExactly(key(30, 79), key(80, 99));
        assertThat(store.claims()).isEmpty();
    }
}
