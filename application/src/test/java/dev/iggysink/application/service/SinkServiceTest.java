package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.Health;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SinkServiceTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 3);
    private SinkService sink;

    private SinkService start(SinkSettings settings) {
        sink = new SinkService(settings, (s, t, g) -> source, s -> new LinesCodec(), store, InstantSource.system(),
                d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sink.start();
        return sink;
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (sink != null) sink.stop();
        assertThat(source.backwardStores()).as("stores that moved a group offset backwards").isEmpty();
    }

    /** Offsets found in the stored files of a partition, with how many files hold each. */
    private Map<Long, Integer> coverage(int partition) {
        Map<Long, Integer> seen = new TreeMap<>();
        store.objects().forEach((key, bytes) -> {
            var range = ObjectKey.parse(key);
            if (range.isEmpty() || range.get().partitionId() != partition || key.contains("/_dlq/")) return;
            long[] offsets = LinesCodec.offsets(bytes);
            assertThat(offsets[0]).as("first offset of %s", key).isEqualTo(range.get().firstOffset());
            assertThat(offsets[offsets.length - 1]).as("last offset of %s", key).isEqualTo(range.get().lastOffset());
            for (long o : offsets) seen.merge(o, 1, Integer::sum);
        });
        return seen;
    }

    @Test
    void every_record_lands_once_in_files_named_by_their_offsets_and_the_group_offset_follows() {
        for (int p = 0; p < 3; p++) source.append(p, 2500, i -> "{\"n\":" + i + "}");
        start(TestSettings.countRotation(stream, 1000));

        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 1999 && source.stored(1).orElse(-1) == 1999
                && source.stored(2).orElse(-1) == 1999);
        for (int p = 0; p < 3; p++) {
            Map<Long, Integer> seen = coverage(p);
            assertThat(seen).hasSize(2000);
            assertThat(seen.values()).containsOnly(1);
        }
        assertThat(store.objects().keySet()).contains(
                "iggy/raw/application_logs/api_requests/2026-03-16/14/00000-00000000000000000000-00000000000000000999.jsonl",
                "iggy/raw/application_logs/api_requests/2026-03-16/14/00001-00000000000000001000-00000000000000001999.jsonl");
        // The 500 records of each partition's open file are not committed until a stop seals them.
        assertThat(source.stored(0).getAsLong()).isEqualTo(1999);
    }

    @Test
    void graceful_stop_seals_uploads_and_commits_everything_read() throws InterruptedException {
        source.append(0, 150, i -> "r" + i);
        start(TestSettings.countRotation(stream, 100));
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 99);

        ShutdownReport report = sink.stop();
        sink = null;

        assertThat(report.clean()).isTrue();
        assertThat(source.stored(0).getAsLong()).isEqualTo(149);
        assertThat(coverage(0)).hasSize(150);
        assertThat(source.closed()).isTrue();
    }

    @Test
    void a_failing_upload_is_retried_and_nothing_is_committed_past_it_meanwhile() {
        store.failKeys(k -> k.contains("00000-00000000000000000100-"));
        source.append(0, 300, i -> "r" + i);
        start(TestSettings.countRotation(stream, 100));

        // 0-99 goes up; 100-199 keeps failing (and its partition reads no further than what it already had).
        await().atMost(WAIT).until(() -> store.objects().size() >= 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 99);
        assertThat(sink.status().health()).isEqualTo(Health.DEGRADED);
        assertThat(source.commitLog()).allSatisfy(c -> assertThat(Long.parseLong(c.split(":")[1])).isLessThan(100));

        store.failKeys(k -> false);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 299);
        assertThat(coverage(0)).hasSize(300);
        await().atMost(WAIT).until(() -> sink.status().health() == Health.OK);
    }

    @Test
    void a_store_outage_loses_nothing_and_the_sink_recovers_by_itself() {
        store.down(InMemoryObjectStore.unavailable());
        source.append(1, 500, i -> "r" + i);
        start(TestSettings.countRotation(stream, 100));

        // Nothing can be stored, and nothing is read until the store answers: which files of the partition are
        // already durable decides where reading starts.
        await().atMost(WAIT).until(() -> sink.status().reasons().stream()
                .anyMatch(r -> r.contains("object store failing")));
        assertThat(sink.status().health()).isEqualTo(Health.DEGRADED);
        assertThat(source.stored(1)).isEmpty();

        store.up();
        await().atMost(WAIT).until(() -> source.stored(1).orElse(-1) == 499);
        assertThat(coverage(1)).hasSize(500).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
    }

    @Test
    void a_bad_record_halts_its_partition_under_tolerance_none_and_nothing_past_it_is_committed()
            throws InterruptedException {
        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < 50; i++) payloads.add(i == 17 ? "BAD{" : "r" + i);
        source.append(0, payloads);
        source.append(1, 10, i -> "ok" + i);
        start(TestSettings.sink(stream, RotationSettings.messages(5), ErrorTolerance.NONE, 1 << 20,
                Duration.ofSeconds(5)));

        await().atMost(WAIT).until(() -> sink.status().health() == Health.FAILED);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 14 && source.stored(1).orElse(-1) == 9);
        assertThat(sink.status().reasons()).anySatisfy(r -> assertThat(r)
                .contains("stream application_logs, topic api_requests, partition 0, offset 17"));

        ShutdownReport report = sink.stop();
        sink = null;
        assertThat(report.clean()).isFalse();
        // The two records before the bad one are sealed at stop and committed; the bad one is not.
        assertThat(source.stored(0).getAsLong()).isEqualTo(16);
        assertThat(coverage(0).keySet()).doesNotContain(17L);
    }

    @Test
    void a_bad_record_goes_to_a_dead_letter_object_under_tolerance_all_and_the_partition_goes_on()
            throws InterruptedException {
        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < 20; i++) payloads.add(i == 7 ? "BAD\u0001" : "r" + i);
        source.append(0, payloads);
        start(TestSettings.sink(stream, RotationSettings.messages(5), ErrorTolerance.ALL, 1 << 20,
                Duration.ofSeconds(5)));

        String dlq = "iggy/raw/_dlq/application_logs/api_requests/00000-00000000000000000007.json";
        await().atMost(WAIT).until(() -> store.objects().containsKey(dlq));
        String letter = new String(store.objects().get(dlq), StandardCharsets.UTF_8);
        assertThat(letter).contains("\"offset\":7", "\"error\":\"payload is not valid JSON\"",
                "\"payload_base64\":\"QkFEAQ==\"");
        // Without a run claim files 0-4, 5-10 (without 7) and 11-15 are full and 16-19 waits for the stop; with one
        // (the partition holds all 20 records when 0-4 is claimed) the files are 0-4, 5-9 (without 7), 10-14, 15-19.
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) >= 15);
        assertThat(sink.stop().clean()).isTrue();
        sink = null;
        assertThat(source.stored(0).getAsLong()).isEqualTo(19);
        TreeSet<Long> files = new TreeSet<>(coverage(0).keySet());
        assertThat(files).hasSize(19).doesNotContain(7L);
    }

    @Test
    void a_revoked_partition_is_forgotten_and_re_read_from_the_group_offset_when_it_comes_back() {
        source.append(2, 250, i -> "r" + i);
        start(TestSettings.countRotation(stream, 100));
        await().atMost(WAIT).until(() -> source.stored(2).orElse(-1) == 199);
        await().atMost(WAIT).until(() -> sink.status().partitions().stream()
                .anyMatch(p -> p.partition() == 2 && p.bufferedRecords() == 50));

        source.own(2, false);
        await().atMost(WAIT).until(() -> sink.status().partitions().stream()
                .anyMatch(p -> p.partition() == 2 && !p.owned() && p.bufferedRecords() == 0));
        // Another member moved on meanwhile: it committed up to 299 (its objects are not in this test's store).
        source.append(2, 150, i -> "r" + i);
        source.store(2, 299);
        source.own(2, true);
        await().atMost(WAIT).until(() -> source.stored(2).orElse(-1) == 399);
        // Read again from 300, not from where this member had been (200): nothing of 200-299 written here.
        assertThat(coverage(2).keySet()).doesNotContainAnyElementsOf(
                java.util.stream.LongStream.range(200, 300).boxed().toList());
        assertThat(coverage(2)).containsKeys(300L, 399L);
    }

    @Test
    void after_the_source_rebuilds_its_session_the_partitions_restart_from_their_commits_with_identical_files() {
        source.append(0, 250, i -> "r" + i);
        start(TestSettings.countRotation(stream, 100));
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 199);

        source.newSession();
        source.append(0, 60, i -> "r" + i);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 299);
        assertThat(coverage(0)).hasSize(300).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
    }

    @Test
    void retryable_commit_failures_are_retried_and_offsets_only_move_forward() {
        source.failCommits(new SourceException("timeout", true));
        source.failCommits(new SourceException("timeout", true));
        source.append(0, 300, i -> "r" + i);
        start(TestSettings.countRotation(stream, 100));

        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 299);
        List<Long> commits = source.commitLog().stream().filter(c -> c.startsWith("0:"))
                .map(c -> Long.parseLong(c.substring(2))).toList();
        assertThat(commits).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void stop_with_the_store_down_reports_what_will_be_read_again() throws InterruptedException {
        source.append(0, 30, i -> "r" + i);
        SinkSettings settings = TestSettings.sink(stream, RotationSettings.messages(1000), ErrorTolerance.NONE,
                1 << 20, Duration.ofMillis(500));
        start(settings);
        await().atMost(WAIT).until(() -> sink.status().partitions().stream()
                .anyMatch(p -> p.partition() == 0 && p.bufferedRecords() == 30));
        store.down(InMemoryObjectStore.unavailable());

        ShutdownReport report = sink.stop();
        sink = null;

        assertThat(report.clean()).isFalse();
        assertThat(report.problems()).anySatisfy(p -> assertThat(p).contains("offsets from 0").contains("read again"));
        assertThat(source.stored(0)).isEmpty();
    }

    @Test
    void a_small_memory_budget_pauses_polling_instead_of_failing_and_delivers_everything() {
        for (int p = 0; p < 3; p++) source.append(p, 3000, i -> "x".repeat(100));
        start(TestSettings.sink(stream, RotationSettings.messages(500), ErrorTolerance.NONE, 64 * 1024,
                Duration.ofSeconds(5)));

        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) >= 2499 && source.stored(1).orElse(-1) >= 2499
                && source.stored(2).orElse(-1) >= 2499);
        for (int p = 0; p < 3; p++) assertThat(coverage(p).values()).containsOnly(1);
    }

    @Test
    void flush_seals_partial_files_at_once() {
        source.append(0, 42, i -> "r" + i);
        start(TestSettings.countRotation(stream, 1000));
        await().atMost(WAIT).until(() -> sink.status().partitions().stream()
                .anyMatch(p -> p.partition() == 0 && p.bufferedRecords() == 42));

        sink.flush();

        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 41);
        assertThat(coverage(0)).hasSize(42);
    }
}
