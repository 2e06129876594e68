package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.iggysink.application.fakes.FaultyCodec;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.LogCapture;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.RetrySettings;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.naming.ObjectKey;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The scenarios of the delivery review: each one broke a promise of the README before it was fixed. */
class DeliveryHardeningTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 3);
    private RecordCodec codec = new LinesCodec();
    private SinkService sink;

    private SinkService start(SinkSettings settings) {
        return start(settings, source);
    }

    private SinkService start(SinkSettings settings, ScriptedMessageSource from) {
        sink = new SinkService(settings, (s, t, g) -> from, s -> codec, store, InstantSource.system(),
                d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sink.start();
        return sink;
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (sink != null) sink.stop();
        assertThat(source.backwardStores()).as("stores that moved a group offset backwards").isEmpty();
    }

    private static SinkSettings with(SinkSettings base, int uploadConcurrency, long budget, ErrorTolerance tolerance,
                                     Duration shutdownTimeout) {
        return new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(), base.output(),
                base.rotation(), base.retry(),
                new DeliverySettings(budget, tolerance, "_dlq", shutdownTimeout, uploadConcurrency),
                base.transforms());
    }

    private static SinkSettings withOutput(SinkSettings base, String prefix, String template, int maxOpenFiles) {
        OutputSettings o = base.output();
        OutputSettings output = new OutputSettings(prefix, template, o.format(), o.compression(), true, false,
                o.timezone(), Optional.empty(), "snappy", "null", "__missing__");
        RotationSettings r = base.rotation();
        RotationSettings rotation = new RotationSettings(r.mode(), r.maxFileSize(), r.maxMessagesPerFile(),
                r.rotateInterval(), r.rotateScheduleInterval(), maxOpenFiles);
        return new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(), output, rotation,
                base.retry(), base.delivery(), base.transforms());
    }

    private static SinkSettings withRetry(SinkSettings base, RetrySettings retry) {
        return new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(), base.output(),
                base.rotation(), retry, base.delivery(), base.transforms());
    }

    /** Offsets found in the stored (non dead-letter) files of a partition, with how many files hold each. */
    private Map<Long, Integer> coverage(int partition) {
        Map<Long, Integer> seen = new TreeMap<>();
        store.objects().forEach((key, bytes) -> {
            var range = ObjectKey.parse(key);
            if (range.isEmpty() || range.get().partitionId() != partition || key.contains("/_dlq/")) return;
            for (long o : LinesCodec.offsets(bytes)) seen.merge(o, 1, Integer::sum);
        });
        return seen;
    }

    private Optional<PartitionStatus> partition(int id) {
        return sink.status().partitions().stream().filter(p -> p.partition() == id).findFirst();
    }

    // --- 1. keys S3 cannot store -------------------------------------------------------------------------------

    @Test
    void a_record_whose_key_would_exceed_1024_bytes_is_a_bad_record_not_an_upload_retried_for_ever()
            throws InterruptedException {
        source.append(0, List.of("city=Pune", "city=" + "x".repeat(1100), "city=Pune"));
        start(with(withOutput(TestSettings.countRotation(stream, 1000), "", "{field:city}", 2), 4, 1 << 20,
                ErrorTolerance.ALL, Duration.ofSeconds(5)));

        String dlq = "_dlq/application_logs/api_requests/00000-00000000000000000001.json";
        await().atMost(WAIT).until(() -> store.objects().containsKey(dlq));
        assertThat(sink.stop().clean()).isTrue();
        sink = null;
        assertThat(store.objects()).containsKey("Pune/00000-00000000000000000000-00000000000000000002.jsonl");
        assertThat(source.stored(0)).hasValue(2);
    }

    @Test
    void under_tolerance_none_a_key_too_long_halts_the_partition_at_that_offset() {
        source.append(0, List.of("city=Pune", "city=" + "x".repeat(1100)));
        start(with(withOutput(TestSettings.countRotation(stream, 1000), "", "{field:city}", 2), 4, 1 << 20,
                ErrorTolerance.NONE, Duration.ofSeconds(5)));

        await().atMost(WAIT).until(() -> sink.status().health() == Health.FAILED);
        assertThat(sink.status().reasons()).anySatisfy(r -> assertThat(r)
                .contains("partition 0, offset 1").contains("1024"));
    }

    // --- 2. one stuck upload must not freeze the sink ----------------------------------------------------------

    @Test
    void an_upload_the_store_refuses_halts_its_partition_only_and_releases_its_memory() {
        store.refuseKeys(k -> k.contains("/00000-"));
        for (int p = 0; p < 3; p++) source.append(p, 3000, i -> "x".repeat(100));
        // The budget holds about 6 files: partition 0 alone would fill it if its refused files were kept.
        start(with(TestSettings.countRotation(stream, 100), 4, 64 * 1024, ErrorTolerance.NONE,
                Duration.ofSeconds(5)));

        await().atMost(WAIT).until(() -> source.stored(1).orElse(-1) == 2999 && source.stored(2).orElse(-1) == 2999);
        assertThat(sink.status().health()).isEqualTo(Health.FAILED);
        assertThat(sink.status().reasons()).anySatisfy(r -> assertThat(r)
                .contains("partition 0").contains("403"));
        assertThat(source.stored(0)).isEmpty();
        await().atMost(WAIT).until(() -> partition(0).map(p -> p.halted() && p.bufferedBytes() == 0).orElse(false));
    }

    @Test
    void uploads_retrying_on_one_partition_do_not_hold_the_pool_against_the_others() {
        store.failKeys(k -> k.contains("/00000-"));
        source.append(0, 300, i -> "r" + i);
        source.append(1, 300, i -> "r" + i);
        start(with(TestSettings.countRotation(stream, 100), 1, 1 << 20, ErrorTolerance.NONE,
                Duration.ofSeconds(5)));

        await().atMost(WAIT).until(() -> source.stored(1).orElse(-1) == 299);
        assertThat(sink.status().health()).isEqualTo(Health.DEGRADED);
        store.failKeys(k -> false);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 299);
    }

    // --- 3. every outcome of an upload reaches the ledger ------------------------------------------------------

    @Test
    void a_runtime_exception_from_the_store_is_retried_like_a_transient_failure() {
        int[] thrown = {0};
        store.throwOnKeys(k -> k.contains("00000-00000000000000000100-") && thrown[0]++ < 2,
                () -> new IllegalStateException("adapter bug"));
        source.append(0, 300, i -> "r" + i);
        start(TestSettings.countRotation(stream, 100));

        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 299);
        assertThat(coverage(0)).hasSize(300).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
    }

    @Test
    void a_file_that_cannot_be_finished_halts_its_partition_and_the_stop_does_not_wait_for_it() {
        codec = new FaultyCodec().finishFails(() -> new IllegalStateException("compressor broke"));
        source.append(0, 150, i -> "r" + i);
        start(with(TestSettings.countRotation(stream, 100), 4, 1 << 20, ErrorTolerance.NONE,
                Duration.ofSeconds(60)));

        await().atMost(WAIT).until(() -> sink.status().health() == Health.FAILED);
        assertThat(sink.status().reasons()).anySatisfy(r -> assertThat(r)
                .contains("partition 0").contains("compressor broke"));
        // Bounded so that a stop waiting for the 60 s shutdown timeout fails the test instead of passing slowly.
        ShutdownReport report = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> sink.stop());
        sink = null;
        assertThat(report.clean()).isFalse();
        assertThat(source.stored(0)).isEmpty();
    }

    @Test
    void an_error_in_the_upload_pool_reaches_the_ledger_stops_the_sink_and_frees_the_budget() throws Exception {
        store.throwOnKeys(k -> true, () -> new StackOverflowError("simulated"));
        source.append(0, 100, i -> "r" + i);
        start(with(TestSettings.countRotation(stream, 100), 4, 1 << 20, ErrorTolerance.NONE,
                Duration.ofSeconds(60)));

        await().atMost(WAIT).until(() -> sink.fatalError().isPresent());
        assertThat(sink.status().health()).isEqualTo(Health.FAILED);
        ShutdownReport report = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> sink.awaitStopped());
        sink = null;
        assertThat(report.clean()).isFalse();
        assertThat(source.stored(0)).isEmpty();
    }

    // --- 4. an Error on the consumer thread -------------------------------------------------------------------

    @Test
    void an_error_while_encoding_stops_the_sink_uncleanly_and_uploads_nothing_half_written() throws Exception {
        codec = new FaultyCodec().appendFails(offset -> offset == 25 ? new InternalError("simulated, as an OutOfMemoryError would") : null);
        source.append(0, 40, i -> "r" + i);
        start(TestSettings.countRotation(stream, 10));

        ShutdownReport report = sink.awaitTermination();
        sink = null;

        assertThat(report.clean()).isFalse();
        assertThat(report.fatalError()).hasValueSatisfying(e -> assertThat(e).contains("InternalError"));
        assertThat(coverage(0).keySet()).allSatisfy(o -> assertThat(o).isLessThan(20));
        assertThat(source.stored(0).orElse(-1)).isLessThan(20);
    }

    // --- 5. exactly once for every seal, read back from the keys ----------------------------------------------

    @Test
    void a_flushed_file_whose_commit_was_lost_is_found_by_its_key_and_not_written_again()
            throws InterruptedException {
        source.append(0, 150, i -> "r" + i);
        source.failAllCommits(new SourceException("commit timed out", true));
        start(TestSettings.countRotation(stream, 100));
        await().atMost(WAIT).until(() -> store.objects().size() == 1); // 0-99 by count
        sink.flush(); // 100-149, cut where a replay would not cut
        await().atMost(WAIT).until(() -> store.objects().size() == 2);
        assertThat(sink.stop().clean()).isFalse(); // the commits never landed
        assertThat(source.stored(0)).isEmpty();

        source.failAllCommits(null);
        source.append(0, 100, i -> "r" + i);
        start(TestSettings.countRotation(stream, 100));
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 249);

        assertThat(coverage(0)).hasSize(250).allSatisfy((o, n) -> assertThat(n).as("copies of %s", o).isEqualTo(1));
        assertThat(store.objects().keySet()).contains(
                "iggy/raw/application_logs/api_requests/2026-03-16/14/00000-00000000000000000100-00000000000000000149.jsonl",
                "iggy/raw/application_logs/api_requests/2026-03-16/14/00000-00000000000000000150-00000000000000000249.jsonl");
    }

    @Test
    void files_sealed_at_a_stop_whose_commits_were_lost_are_recovered_on_every_partition()
            throws InterruptedException {
        for (int p = 0; p < 3; p++) source.append(p, 42, i -> "r" + i);
        source.failAllCommits(new SourceException("commit timed out", true));
        start(TestSettings.countRotation(stream, 100));
        await().atMost(WAIT).until(() -> sink.status().partitions().stream()
                .filter(p -> p.bufferedRecords() == 42).count() == 3);
        sink.stop();
        assertThat(store.objects()).hasSize(3);

        source.failAllCommits(null);
        int listsBefore = store.listCalls();
        int headsBefore = store.headCalls();
        start(TestSettings.countRotation(stream, 100));
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 41 && source.stored(1).orElse(-1) == 41
                && source.stored(2).orElse(-1) == 41);
        // The cost of the lookup (README, delivery guarantee): one LIST and one HEAD (its metadata) per partition
        // here, for the file it found; no record follows it, so no second LIST and no HEAD of a claim.
        assertThat(store.listCalls() - listsBefore).isEqualTo(3);
        assertThat(store.headCalls() - headsBefore).isEqualTo(3);
        assertThat(sink.stop().clean()).isTrue();
        sink = null;
        assertThat(store.objects()).hasSize(3);
        assertThat(store.overwrites()).isZero();
    }

    @Test
    void an_old_owners_file_landing_after_the_lookup_is_found_before_the_first_upload_and_not_written_twice() {
        source.append(0, 150, i -> "r" + i);
        // The partition's previous owner sealed 0-49 at its stop and claimed it; its upload lands just after this
        // member looked.
        String late = "iggy/raw/application_logs/api_requests/2026-03-16/14/"
                + "00000-00000000000000000000-00000000000000000049.jsonl";
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 50; i++) lines.append(i).append(":r").append(i).append('\n');
        store.afterNextList(() -> {
            try {
                store.create(ClaimsOfTwoSinksTest.claimOfTestSink(source.partition(0), 0), new byte[0],
                        Map.of("iggy-offsets", "0-49"));
                store.put(late, lines.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8), "x");
            } catch (dev.iggysink.application.port.out.StoreException e) {
                throw new IllegalStateException(e);
            }
        });
        start(TestSettings.countRotation(stream, 100));

        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 149);
        assertThat(coverage(0)).hasSize(150).allSatisfy((o, n) -> assertThat(n).as("copies of %s", o).isEqualTo(1));
    }

    @Test
    void an_upload_of_a_partition_this_member_lost_ends_at_once_and_is_never_tried_again() {
        java.util.function.Predicate<String> partition0 = k -> k.contains("/00000-");
        store.failKeys(partition0);
        source.append(0, 100, i -> "r" + i);
        // The first retry would come 30 s later: the upload must end when the partition is lost, not then.
        start(withRetry(TestSettings.countRotation(stream, 100),
                new RetrySettings(3, Duration.ofSeconds(30), Duration.ofSeconds(30))));
        await().atMost(WAIT).until(() -> sink.status().reasons().stream()
                .anyMatch(r -> r.startsWith("object store failing")));
        assertThat(sink.status().totals().bufferedBytes()).isPositive();
        int attempts = store.putAttempts(partition0);

        // The group moves partition 0 away while its file waits for its next attempt.
        source.own(0, false);
        source.newSession();

        await().atMost(WAIT).until(() -> sink.status().totals().bufferedBytes() == 0);
        store.failKeys(k -> false);
        source.append(1, 100, i -> "r" + i);
        await().atMost(WAIT).until(() -> source.stored(1).orElse(-1) == 99);
        assertThat(store.putAttempts(partition0)).as("PUTs of the lost partition's file").isEqualTo(attempts);
        assertThat(store.objects().keySet()).noneSatisfy(k -> assertThat(k).contains("/00000-"));
        assertThat(source.stored(0)).isEmpty();
    }

    // --- 6. polling is fair ------------------------------------------------------------------------------------

    @Test
    void a_partition_whose_polls_keep_failing_does_not_stop_the_others() {
        source.failPollsOf(0, new SourceException("partition 0 unavailable", true));
        for (int p = 0; p < 3; p++) source.append(p, 200, i -> "r" + i);
        start(TestSettings.countRotation(stream, 100));

        await().atMost(WAIT).until(() -> source.stored(1).orElse(-1) == 199 && source.stored(2).orElse(-1) == 199);
        assertThat(sink.status().health()).isEqualTo(Health.DEGRADED);
        source.healPolls(0);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 199);
    }

    @Test
    void while_a_batch_is_encoded_the_next_partitions_poll_is_already_under_way() {
        for (int p = 0; p < 3; p++) source.append(p, 2_000, i -> "r" + i);
        start(TestSettings.countRotation(stream, 500));

        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 1999 && source.stored(1).orElse(-1) == 1999
                && source.stored(2).orElse(-1) == 1999);
        List<String> threads = source.pollThreads();
        long ahead = threads.stream().filter(t -> t.startsWith("fetch-")).count();
        // Each pass over the partitions starts one further: a poll made ahead for the partition after the last one
        // of a pass used to be kept unused until the end of the next pass, so all the others were polled while the
        // consumer waited (1 in 3 ahead here).
        assertThat(ahead).as("polls made ahead of the consumer, of %d", threads.size())
                .isGreaterThanOrEqualTo(threads.size() * 3L / 4);
    }

    @Test
    void a_source_that_polls_without_waiting_has_its_polls_started_by_the_consumer_and_every_record_written_once() {
        source.pollWithoutWaiting();
        for (int p = 0; p < 3; p++) source.append(p, 2_000, i -> "r" + i);
        start(TestSettings.countRotation(stream, 500));

        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 1999 && source.stored(1).orElse(-1) == 1999
                && source.stored(2).orElse(-1) == 1999);
        assertThat(source.pollThreads()).isNotEmpty().allMatch(t -> t.startsWith("consume-"));
        // Each partition's objects cover its offsets 0..1999 once: the key names the first and last offset.
        java.util.Map<Integer, java.util.TreeMap<Long, Long>> ranges = new java.util.HashMap<>();
        for (String key : store.objects().keySet()) {
            String[] parts = key.substring(key.lastIndexOf('/') + 1, key.indexOf('.', key.lastIndexOf('/')))
                    .split("-");
            ranges.computeIfAbsent(Integer.parseInt(parts[0]), k -> new java.util.TreeMap<>())
                    .put(Long.parseLong(parts[1]), Long.parseLong(parts[2]));
        }
        assertThat(ranges).containsOnlyKeys(0, 1, 2);
        for (java.util.TreeMap<Long, Long> r : ranges.values()) {
            long next = 0;
            for (java.util.Map.Entry<Long, Long> e : r.entrySet()) {
                assertThat(e.getKey()).isEqualTo(next);
                next = e.getValue() + 1;
            }
            assertThat(next).isEqualTo(2000);
        }
    }

    // --- 7. smaller ones ---------------------------------------------------------------------------------------

    @Test
    void a_partition_is_read_from_the_offset_committed_when_it_arrives_not_the_one_seen_at_start() {
        source.append(1, 300, i -> "r" + i);
        // Between the sink's start and its first poll of partition 1, the member that owned it committed 199.
        source.beforeNextPoll(1, () -> source.store(1, 199));
        start(TestSettings.countRotation(stream, 50));

        await().atMost(WAIT).until(() -> source.stored(1).orElse(-1) == 299);
        assertThat(coverage(1).keySet()).allSatisfy(o -> assertThat(o).isGreaterThan(199));
    }

    @Test
    void partitions_added_while_the_sink_runs_are_polled() {
        start(TestSettings.countRotation(stream, 10));
        await().atMost(WAIT).until(() -> sink.status().partitions().size() == 3);
        int added = source.addPartition();
        source.append(added, 30, i -> "r" + i);

        await().atMost(WAIT).until(() -> source.stored(added).orElse(-1) == 29);
    }

    @Test
    void a_halted_partition_that_moved_away_before_the_stop_still_makes_the_stop_unclean()
            throws InterruptedException {
        source.append(0, List.of("r0", "BAD", "r2"));
        start(TestSettings.countRotation(stream, 100));
        await().atMost(WAIT).until(() -> sink.status().health() == Health.FAILED);
        // The partition moves to another member: the stop's commit of offset 0 is refused as revoked.
        source.own(0, false);

        ShutdownReport report = sink.stop();
        sink = null;
        assertThat(report.clean()).isFalse();
        assertThat(report.problems()).anySatisfy(p -> assertThat(p).contains("offset 1"));
    }

    @Test
    void a_store_that_never_recovered_is_not_reported_recovered_at_stop() throws InterruptedException {
        LogCapture log = LogCapture.of(Uploader.class);
        try (log) {
            source.append(0, 100, i -> "r" + i);
            start(with(TestSettings.countRotation(stream, 1000), 4, 1 << 20, ErrorTolerance.NONE,
                    Duration.ofMillis(300)));
            await().atMost(WAIT).until(() -> partition(0).map(p -> p.bufferedRecords() == 100).orElse(false));
            store.down(InMemoryObjectStore.unavailable());
            sink.flush();
            await().atMost(WAIT).until(() -> sink.status().reasons().stream()
                    .anyMatch(r -> r.startsWith("object store failing")));
            sink.stop();
            sink = null;
        }
        List<String> logged = log.messages();
        assertThat(logged).anySatisfy(m -> assertThat(m).contains("degraded"));
        assertThat(logged).noneSatisfy(m -> assertThat(m).contains("recovered"));
    }

    @Test
    void memory_pressure_pauses_polling_and_keeps_buffered_bytes_near_the_budget() {
        long budget = 64 * 1024;
        for (int p = 0; p < 3; p++) source.append(p, 3000, i -> "x".repeat(100));
        store.failKeys(k -> true);
        start(with(TestSettings.countRotation(stream, 500), 4, budget, ErrorTolerance.NONE, Duration.ofSeconds(5)));

        // With the store down nothing frees memory: polling must stop near the budget, not read everything.
        await().atMost(WAIT).until(() -> sink.status().totals().bufferedBytes() >= budget);
        long consumed = sink.status().totals().recordsConsumed();
        await().during(Duration.ofMillis(500)).atMost(WAIT)
                .until(() -> sink.status().totals().recordsConsumed() == consumed);
        assertThat(sink.status().totals().bufferedBytes()).isLessThan(budget + 100 * 104);
        assertThat(consumed).isLessThan(9000);

        store.failKeys(k -> false);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) >= 2499 && source.stored(1).orElse(-1) >= 2499
                && source.stored(2).orElse(-1) >= 2499);
        for (int p = 0; p < 3; p++) assertThat(coverage(p).values()).containsOnly(1);
    }
}
