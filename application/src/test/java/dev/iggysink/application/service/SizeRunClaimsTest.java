package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Run claims of size cuts (docs/adr/0022-run-claims-of-size-cuts.md): a size cut claimed while the partition
 * already holds more records claims the files after it at once, and every member that meets the run cuts its files
 * by the run's limits, whatever its own limits or memory budget would say.
 */
class SizeRunClaimsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final long SIZE = 5_000;
    /** Below one file: a member this tight cuts by memory pressure where the run's files go on. */
    private static final long TIGHT = 3_000;

    private final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
    private final RunningSinks sinks = new RunningSinks();

    @AfterEach
    void stopAll() throws InterruptedException {
        sinks.stopAll(store);
    }

    /** Payloads of 20 to 169 bytes, so that files of one size hold different numbers of records. */
    private static String payload(int offset) {
        return "x".repeat(20 + (offset * 37) % 150);
    }

    /** What the line codec counts for the record at {@code offset}: {@code <offset>:<payload>}. */
    private static long counted(int offset) {
        return String.valueOf(offset).length() + 1 + payload(offset).length();
    }

    /** The files a size rotation of {@code size} cuts from {@code from} up to {@code last}, as keys. */
    private static List<String> cuts(int from, int last, long size) {
        List<String> keys = new ArrayList<>();
        int first = from;
        long bytes = 0;
        for (int o = from; o <= last; o++) {
            bytes += counted(o);
            if (bytes >= size || o == last) {
                keys.add(RunningSinks.key(first, o));
                first = o + 1;
                bytes = 0;
            }
        }
        return keys;
    }

    private SinkSettings settings(long size, long budget, ErrorTolerance tolerance) {
        return TestSettings.sink(stream, RotationSettings.size(size), tolerance, budget, Duration.ofSeconds(5));
    }

    private static long lastOf(String key) {
        return Long.parseLong(key.substring(key.lastIndexOf('-') + 1, key.lastIndexOf('.')));
    }

    private void assertEveryOffsetOnce(int records) {
        assertThat(RunningSinks.coverage(store)).as("objects %s", store.objects().keySet()).hasSize(records)
                .allSatisfy((o, n) -> assertThat(n).as("copies of %s", o).isEqualTo(1));
    }

    @Test
    void one_claim_decides_the_size_cuts_of_records_the_partition_already_holds() throws InterruptedException {
        source.append(0, 2_000, SizeRunClaimsTest::payload);
        SinkService sink = sinks.start(settings(SIZE, 64L << 20, ErrorTolerance.NONE), source, store);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) >= lastOf(cuts(0, 1_999, SIZE).get(38)));
        sink.flush();
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 1_999);
        assertThat(sink.stop().clean()).isTrue();

        List<String> expected = cuts(0, 1_999, SIZE);
        assertThat(store.objects().keySet()).as("the files a size rotation cuts").containsExactlyInAnyOrderElementsOf(
                expected);
        assertEveryOffsetOnce(2_000);
        // The probe's two creates, then a claim per run of up to 16 files, and the one of each file cut past a
        // run's end: a handful, where one claim per file made as many as there are files.
        assertThat(expected).hasSizeGreaterThan(35);
        assertThat(store.createCalls()).isLessThanOrEqualTo(2 + 8);
        assertThat(store.claims()).as("claims committed past are removed").isEmpty();
    }

    @Test
    void a_file_whose_next_records_are_not_there_yet_is_claimed_alone() throws InterruptedException {
        SinkService sink = sinks.start(settings(SIZE, 64L << 20, ErrorTolerance.NONE), source, store);
        List<String> expected = cuts(0, 999, SIZE);
        int appended = 0;
        for (int i = 0; i < 3; i++) {
            int end = (int) lastOf(expected.get(i));
            source.append(0, end + 1 - appended, SizeRunClaimsTest::payload);
            appended = end + 1;
            await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == end);
        }
        assertThat(sink.stop().clean()).isTrue();
        assertThat(store.objects().keySet()).containsExactlyElementsOf(expected.subList(0, 3));
        assertThat(store.createCalls()).as("the probe's two, then one claim per file").isEqualTo(5);
    }

    /**
     * The old owner claimed the partition's 600 records as a run and its PUT of the run's third file is in flight
     * when the partition moves. The new owner's budget holds less than a file: on its own it would cut by memory
     * pressure. No claim starts where it begins, so its lookup must find the run below and cut by the run's limits;
     * otherwise the late PUT puts the third file's offsets in two objects.
     */
    @Test
    void a_new_owner_arriving_inside_a_run_cuts_by_its_limits_while_the_old_owners_put_is_held() throws Exception {
        List<String> expected = cuts(0, 599, SIZE);
        String third = expected.get(2);
        store.holdPuts(k -> k.equals(third));
        source.append(0, 600, SizeRunClaimsTest::payload);
        SinkService old = sinks.start(settings(SIZE, 64L << 20, ErrorTolerance.NONE), source, store);
        // All but the held file and the last, whose cut lies past the run's end (it waits for a flush).
        await().atMost(WAIT).until(() -> store.heldCalls() == 1 && store.objects().size() == expected.size() - 2
                && source.stored(0).orElse(-1) == lastOf(expected.get(1)));
        store.holdNoMore(); // the old owner's PUT stays held
        assertThat(store.claims()).as("one run claim").hasSize(1);

        ScriptedMessageSource next = source.newMember();
        source.own(0, false);
        next.own(0, true);
        SinkService fresh = sinks.start(settings(SIZE, TIGHT, ErrorTolerance.NONE), next, store);
        await().atMost(WAIT).until(() -> next.stored(0).orElse(-1) >= lastOf(expected.get(expected.size() - 2)));
        fresh.flush();
        await().atMost(WAIT).until(() -> next.stored(0).orElse(-1) == 599);
        store.releaseHeld();
        old.stop(); // waits for its upload: the held PUT lands now
        assertThat(fresh.stop().clean()).isTrue();

        assertEveryOffsetOnce(600);
        assertThat(store.objects().keySet()).containsAll(expected.subList(0, expected.size() - 1));
    }

    /**
     * A member whose own size limit is smaller arrives inside the run: it cuts the run's files by the run's limit
     * (the keys its maker cuts), then its own files by its own limit after the run's end.
     */
    @Test
    void a_member_of_another_size_limit_cuts_the_runs_files_by_the_runs_limit() throws Exception {
        List<String> expected = cuts(0, 599, SIZE);
        ScriptedMessageSource next = makerKilledWithItsSecondFileInFlight(expected);
        SinkService other = sinks.start(settings(SIZE / 2, 64L << 20, ErrorTolerance.NONE), next, store);
        source.append(0, 400, SizeRunClaimsTest::payload);
        await().atMost(WAIT).until(() -> next.stored(0).orElse(-1) >= 900);
        other.flush();
        await().atMost(WAIT).until(() -> next.stored(0).orElse(-1) == 999);
        store.releaseHeld();
        assertThat(other.stop().clean()).isTrue();

        assertEveryOffsetOnce(1_000);
        List<String> runFiles = expected.subList(0, expected.size() - 1);
        assertThat(store.objects().keySet()).containsAll(runFiles);
        // The file open at the run's end (599) is cut past it: the member's own limit cuts it at the next record
        // that has it reached, and the files after it.
        int straddling = (int) lastOf(runFiles.get(runFiles.size() - 1)) + 1;
        long bytes = 0;
        int end = straddling;
        for (; end < 1_000; end++) {
            bytes += counted(end);
            if (end >= 600 && bytes >= SIZE / 2) break;
        }
        assertThat(store.objects().keySet()).as("after the run, the member's own limit")
                .contains(RunningSinks.key(straddling, end)).containsAll(cuts(end + 1, 999, SIZE / 2));
    }

    /**
     * A member claims the partition's 600 records as a run, commits its first file, and is stopped at once while its
     * PUT of the second is held in flight; the partition goes to a new member, whose source is returned.
     */
    private ScriptedMessageSource makerKilledWithItsSecondFileInFlight(List<String> expected) {
        store.holdPuts(k -> k.equals(expected.get(1)));
        source.append(0, 600, SizeRunClaimsTest::payload);
        SinkService maker = sinks.start(settings(SIZE, 64L << 20, ErrorTolerance.NONE), source, store);
        await().atMost(WAIT).until(() -> store.heldCalls() == 1 && source.stored(0).orElse(-1) == lastOf(
                expected.get(0)));
        store.holdNoMore();
        maker.hurryStop();
        ScriptedMessageSource next = source.newMember();
        source.own(0, false);
        next.own(0, true);
        return next;
    }

    /**
     * A member that counts records otherwise (another format) cannot tell where the run's files end: it halts the
     * partition instead of writing a file that could overlap one of the run's still in flight.
     */
    @Test
    void a_member_that_counts_records_otherwise_halts_inside_the_run() throws Exception {
        List<String> expected = cuts(0, 599, SIZE);
        ScriptedMessageSource next = makerKilledWithItsSecondFileInFlight(expected);
        SinkService timed = sinks.start(settings(SIZE, 64L << 20, ErrorTolerance.NONE), next, store,
                LinesCodec.timed());
        await().atMost(WAIT).until(() -> !timed.status().reasons().isEmpty());
        assertThat(String.join("\n", timed.status().reasons())).contains("claimed as a run of files cut by size")
                .contains("lines;size=5000;count=-").contains("timed-lines");
        store.releaseHeld();
        Thread.sleep(200);
        assertThat(next.stored(0).orElse(-1)).isEqualTo(lastOf(expected.get(0)));
        assertThat(RunningSinks.coverage(store)).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
    }

    /**
     * The run's last record is a dead letter while a file is open: that file's cut lies past the run, so it is no
     * longer the run's, and a flush seals it (a run's file would wait for a record past the run's end).
     */
    @Test
    void a_dead_letter_at_the_runs_end_leaves_the_open_file_to_a_flush() throws InterruptedException {
        source.append(0, 300, i -> i == 299 ? "BAD" + i : payload(i));
        SinkService sink = sinks.start(settings(SIZE, 64L << 20, ErrorTolerance.ALL), source, store);
        List<String> expected = cuts(0, 298, SIZE);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) >= lastOf(expected.get(expected.size() - 2)));
        sink.flush();
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 299);
        assertThat(sink.stop().clean()).isTrue();

        assertThat(RunningSinks.coverage(store)).hasSize(299).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
        assertThat(store.objects().keySet()).containsAll(expected);
    }

    @Test
    void a_claim_names_the_runs_rule_and_end_apart_from_a_stride_runs() throws Exception {
        store.holdPuts(k -> k.endsWith(".jsonl"));
        source.append(0, 600, SizeRunClaimsTest::payload);
        SinkService sink = sinks.start(settings(SIZE, 64L << 20, ErrorTolerance.NONE), source, store);
        await().atMost(WAIT).until(() -> store.heldCalls() >= 1);
        Map<String, String> meta = store.metadataOf(store.claims().keySet().iterator().next());
        assertThat(meta).containsEntry("iggy-run-until", "599").containsEntry("iggy-run-rule", "lines;size=5000;count=-")
                .doesNotContainKey("iggy-run-end");
        store.releaseHeld();
        assertThat(sink.stop().clean()).isTrue();
    }
}
