package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.Health;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The review of the exactly-once promise (issue 33): the key lookup trusted key names alone, and an old owner's
 * upload landing late could leave records in two objects. Each scenario failed before the fix.
 */
class ExactlyOnceReviewTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
    private InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
    private final RunningSinks sinks = new RunningSinks();

    private SinkService start(SinkSettings settings, ScriptedMessageSource from) {
        return sinks.start(settings, from, store);
    }

    private SinkService start(SinkSettings settings, ScriptedMessageSource from, LinesCodec codec) {
        return sinks.start(settings, from, store, codec);
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        sinks.stopAll(store);
    }

    private SinkSettings settings(long count, ErrorTolerance tolerance, Duration shutdownTimeout) {
        SinkSettings base = TestSettings.countRotation(stream, count);
        return new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(), base.output(),
                base.rotation(), base.retry(),
                new DeliverySettings(64L << 20, tolerance, "_dlq", shutdownTimeout, 4), base.transforms());
    }

    private static String key(long first, long last) {
        return RunningSinks.key(first, last);
    }

    private Map<Long, Integer> coverage() {
        return RunningSinks.coverage(store);
    }

    private List<Long> deadLettered() {
        List<Long> out = new ArrayList<>();
        for (String k : store.objects().keySet()) {
            if (!k.contains("/_dlq/")) continue;
            String name = k.substring(k.lastIndexOf('/') + 1);
            out.add(Long.parseLong(name.substring(6, 26)));
        }
        return out;
    }

    // --- 1. a dead letter that never landed ---------------------------------------------------------------------

    @Test
    void a_file_is_not_uploaded_while_a_dead_letter_inside_its_range_is_not_durable_so_no_record_is_skipped()
            throws InterruptedException {
        source.append(0, 10, i -> i == 5 ? "BAD" + i : "r" + i);
        store.failKeys(k -> k.contains("/_dlq/"));
        SinkService first = start(settings(1000, ErrorTolerance.ALL, Duration.ofMillis(800)), source);
        await().atMost(WAIT).until(() -> first.status().partitions().stream()
                .anyMatch(p -> p.bufferedRecords() == 9));
        assertThat(first.stop().clean()).isFalse();
        // The file around offset 5 waited for its dead letter, which never landed: neither is in the store.
        assertThat(store.objects()).isEmpty();
        assertThat(source.stored(0)).isEmpty();

        store.failKeys(k -> false);
        SinkService second = start(settings(1000, ErrorTolerance.ALL, Duration.ofSeconds(5)), source);
        await().atMost(WAIT).until(() -> second.status().partitions().stream()
                .anyMatch(p -> p.bufferedRecords() == 9));
        assertThat(second.stop().clean()).isTrue();
        assertThat(source.stored(0)).hasValue(9);
        Map<Long, Integer> files = coverage();
        assertThat(deadLettered()).containsExactly(5L);
        assertThat(files.keySet()).containsExactly(0L, 1L, 2L, 3L, 4L, 6L, 7L, 8L, 9L);
        assertThat(files.values()).containsOnly(1);
    }

    @Test
    void a_file_whose_dead_letters_were_deleted_is_not_trusted_by_the_lookup() throws InterruptedException {
        source.append(0, 10, i -> i == 5 ? "BAD" + i : "r" + i);
        source.failAllCommits(new dev.iggysink.application.port.out.SourceException("commit timed out", true));
        SinkService first = start(settings(1000, ErrorTolerance.ALL, Duration.ofSeconds(2)), source);
        await().atMost(WAIT).until(() -> first.status().partitions().stream()
                .anyMatch(p -> p.bufferedRecords() == 9));
        first.stop();
        assertThat(store.objects()).containsKey(key(0, 9));
        store.objects().keySet().stream().filter(k -> k.contains("/_dlq/")).forEach(k -> {
            try {
                store.delete(k);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });

        source.failAllCommits(null);
        SinkService second = start(settings(1000, ErrorTolerance.ALL, Duration.ofSeconds(2)), source);
        await().atMost(WAIT).until(() -> second.status().health() == Health.FAILED);
        assertThat(second.status().reasons()).anySatisfy(r -> assertThat(r).contains(key(0, 9))
                .contains("1 are in no object"));
        assertThat(source.stored(0)).isEmpty();
    }

    // --- 2. files after a superseded first file ---------------------------------------------------------------

    /**
     * The previous owner's file 0-74 (cut by its stop) lands just after this member's lookup. This member's batch
     * seals 0-49, 50-99, 100-149, 150-199 at once: none of them may be uploaded once 0-49 is superseded, with claims
     * and without (a store that ignores conditional writes).
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void files_after_a_superseded_first_file_are_not_uploaded(boolean conditionalWrites) throws InterruptedException {
        if (!conditionalWrites) store = new InMemoryObjectStore().ignoringConditions();
        source.append(0, 200, i -> "r" + i);
        byte[] late = linesOf(0, 74);
        // The previous owner claimed 0-74 before uploading it (without conditional writes there are no claims).
        store.afterNextList(() -> {
            if (conditionalWrites) {
                store.seed(ClaimsOfTwoSinksTest.claimOfTestSink(source.partition(0), 0), new byte[0],
                        Map.of("iggy-offsets", "0-74", "iggy-first", "0/0/1773669751000000"));
            }
            store.seed(key(0, 74), late, stamps(0, 74));
        });
        SinkService sink = start(settings(50, ErrorTolerance.NONE, Duration.ofSeconds(5)), source);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 174);
        assertThat(sink.stop().clean()).isTrue();
        assertThat(source.stored(0)).hasValue(199);

        assertThat(coverage()).hasSize(200).allSatisfy((o, n) -> assertThat(n).as("copies of %s", o).isEqualTo(1));
        assertThat(store.objects()).containsKey(key(0, 74));
    }

    // --- 3. an object from an earlier life of the topic ---------------------------------------------------------

    @ParameterizedTest
    @ValueSource(ints = {150, 60})
    void an_object_from_an_earlier_life_of_the_topic_halts_the_partition_instead_of_skipping_records(int newRecords)
            throws InterruptedException {
        source.append(0, 100, i -> "old" + i);
        SinkService first = start(settings(100, ErrorTolerance.NONE, Duration.ofSeconds(5)), source);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 99);
        first.stop();
        assertThat(store.objects()).containsOnlyKeys(key(0, 99));

        // The topic is deleted and created again under the same name; the bucket keeps the old object.
        ScriptedMessageSource reborn = new ScriptedMessageSource("application_logs", "api_requests", 1);
        reborn.recordTimeMicros(1_773_669_752_000_000L); // a second later: the same hour's path
        reborn.append(0, newRecords, i -> "new" + i);
        SinkService second = start(settings(100, ErrorTolerance.NONE, Duration.ofSeconds(5)), reborn);
        await().atMost(WAIT).until(() -> second.status().health() == Health.FAILED);

        assertThat(second.status().reasons()).anySatisfy(r -> assertThat(r).contains(key(0, 99))
                .contains("earlier life").contains("Move or delete"));
        assertThat(reborn.stored(0)).as("nothing skipped").isEmpty();
        assertThat(second.fatalError()).isEmpty();
        assertThat(new String(store.objects().get(key(0, 99)))).startsWith("0:old0");
    }

    /**
     * The Rust sink, or a version of this sink from before objects carried metadata, wrote offsets 0-99; then the
     * topic was deleted and created again. The key alone says "durable": the content, whose records name their
     * offset and time, says otherwise.
     */
    @Test
    void an_object_without_metadata_from_an_earlier_life_of_the_topic_halts_the_partition_instead_of_skipping_records()
            throws InterruptedException {
        byte[] old = LinesCodec.timedLines(0, 99, 1_773_669_751_000_000L, "old");
        store.seed(key(0, 99), old, Map.of());
        ScriptedMessageSource reborn = new ScriptedMessageSource("application_logs", "api_requests", 1);
        reborn.recordTimeMicros(1_773_669_752_000_000L); // a second later: the same hour's path
        reborn.append(0, 100, i -> "new" + i);
        SinkService sink = start(settings(100, ErrorTolerance.NONE, Duration.ofSeconds(5)), reborn,
                LinesCodec.timed());
        await().atMost(WAIT).until(() -> sink.status().health() == Health.FAILED || reborn.stored(0).isPresent());

        assertThat(reborn.stored(0)).as("nothing skipped").isEmpty();
        assertThat(sink.status().reasons()).anySatisfy(r -> assertThat(r).contains(key(0, 99))
                .contains("earlier life").contains("Move or delete"));
        assertThat(store.objects().get(key(0, 99))).isEqualTo(old);
    }

    @Test
    void an_object_without_metadata_whose_last_record_is_not_the_partitions_halts_the_partition()
            throws InterruptedException {
        source.append(0, 50, i -> "r" + i);
        source.recordTimeMicros(1_773_669_753_000_000L);
        source.append(0, 50, i -> "r" + i);
        // Its first record is the partition's, its last one is not (the earlier life wrote all in one second).
        byte[] old = LinesCodec.timedLines(0, 99, 1_773_669_751_000_000L, "r");
        store.seed(key(0, 99), old, Map.of());
        SinkService sink = start(settings(100, ErrorTolerance.NONE, Duration.ofSeconds(5)), source,
                LinesCodec.timed());
        await().atMost(WAIT).until(() -> sink.status().health() == Health.FAILED || source.stored(0).isPresent());

        assertThat(source.stored(0)).as("nothing skipped").isEmpty();
        assertThat(sink.status().reasons()).anySatisfy(r -> assertThat(r).contains(key(0, 99))
                .contains("its last record is offset 99 at 1773669751000000 µs")
                .contains("offset 99 at 1773669753000000 µs"));
    }

    /** Its last records were dead-lettered: the key's range ends after its content, and the dead letters hold the rest. */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void an_object_without_metadata_whose_last_offsets_were_dead_lettered_is_trusted_only_with_its_dead_letters(
            boolean lettersThere) throws InterruptedException {
        source.append(0, 10, i -> "r" + i);
        store.seed(key(0, 9), LinesCodec.timedLines(0, 7, 1_773_669_751_000_000L, "r"), Map.of());
        if (lettersThere) {
            for (int o = 8; o <= 9; o++) {
                store.seed("iggy/raw/_dlq/application_logs/api_requests/" + String.format("%05d-%020d.json", 0, o),
                        new byte[0], Map.of());
            }
        }
        SinkService sink = start(settings(100, ErrorTolerance.ALL, Duration.ofSeconds(5)), source,
                LinesCodec.timed());
        await().atMost(WAIT).until(() -> sink.status().health() == Health.FAILED || source.stored(0).isPresent());

        if (lettersThere) {
            assertThat(source.stored(0)).hasValue(9);
        } else {
            assertThat(source.stored(0)).as("nothing skipped").isEmpty();
            assertThat(sink.status().reasons()).anySatisfy(r -> assertThat(r).contains(key(0, 9))
                    .contains("its key ends at 9 and the offsets between are in no dead-letter object"));
        }
        assertThat(store.objects().keySet().stream().filter(k -> !k.contains("/_dlq/")))
                .containsExactly(key(0, 9));
    }

    @Test
    void an_object_without_metadata_that_holds_the_partitions_records_is_committed_and_not_written_again()
            throws InterruptedException {
        source.append(0, 100, i -> "r" + i);
        byte[] genuine = LinesCodec.timedLines(0, 99, 1_773_669_751_000_000L, "r");
        store.seed(key(0, 99), genuine, Map.of());
        SinkService sink = start(settings(100, ErrorTolerance.NONE, Duration.ofSeconds(5)), source,
                LinesCodec.timed());
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 99);
        assertThat(sink.stop().clean()).isTrue();

        assertThat(store.objects()).containsOnlyKeys(key(0, 99));
        assertThat(store.objects().get(key(0, 99))).isEqualTo(genuine);
        assertThat(store.metadataOf(key(0, 99))).as("the seeded object, not one written again").isEmpty();
    }

    @Test
    void a_claim_left_by_an_earlier_life_of_the_topic_decides_nothing_and_is_removed() throws InterruptedException {
        String claim = ClaimsOfTwoSinksTest.claimOfTestSink(source.partition(0), 0);
        store.seed(claim, new byte[0], Map.of("iggy-offsets", "0-40", "iggy-first", "0/0/1773600000000000"));
        source.append(0, 100, i -> "r" + i);
        SinkService sink = start(settings(50, ErrorTolerance.NONE, Duration.ofSeconds(5)), source);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 99);
        assertThat(sink.stop().clean()).isTrue();

        assertThat(store.objects().keySet()).containsExactly(key(0, 49), key(50, 99));
        assertThat(store.claims()).isEmpty();
    }

    @Test
    void objects_carry_the_identity_of_their_first_and_last_record_and_their_record_count()
            throws InterruptedException {
        source.append(0, 10, i -> i == 3 ? "BAD" : "r" + i);
        SinkService sink = start(settings(1000, ErrorTolerance.ALL, Duration.ofSeconds(5)), source);
        await().atMost(WAIT).until(() -> sink.status().partitions().stream().anyMatch(p -> p.bufferedRecords() == 9));
        assertThat(sink.stop().clean()).isTrue();
        Map<String, String> meta = store.metadataOf(key(0, 9));
        assertThat(meta).containsEntry("iggy-offsets", "0-9").containsEntry("iggy-records", "9")
                .containsEntry("iggy-first", "0/0/1773669751000000")
                .containsEntry("iggy-last", "9/0/1773669751000000");
        String letter = store.objects().keySet().stream().filter(k -> k.contains("/_dlq/")).findFirst().orElseThrow();
        assertThat(store.metadataOf(letter)).containsEntry("iggy-offsets", "3-3").containsEntry("iggy-records", "1");
    }

    // --- the window: an old owner's upload in flight while the partition moves -----------------------------------

    /**
     * The old owner claimed 0-74 (cut by its stop) and its PUT is held; the new owner finds the claim and cuts the
     * same file, so when the held PUT lands it writes the same records under the same key.
     */
    @Test
    void an_old_owners_upload_landing_after_the_new_owner_uploaded_writes_the_same_object()
            throws Exception {
        source.append(0, 75, i -> "r" + i);
        SinkService old = start(settings(1000, ErrorTolerance.NONE, Duration.ofSeconds(30)), source);
        await().atMost(WAIT).until(() -> old.status().partitions().stream().anyMatch(p -> p.bufferedRecords() == 75));
        store.holdPuts(k -> k.equals(key(0, 74)));
        CompletableFuture<Boolean> oldStop = CompletableFuture.supplyAsync(() -> {
            try {
                return old.stop().clean();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(WAIT).until(() -> store.heldCalls() == 1);
        store.holdNoMore();
        assertThat(store.claims()).hasSize(1);

        // The partition moves to another member while the old owner's PUT is in flight.
        ScriptedMessageSource next = source.newMember();
        source.own(0, false);
        next.own(0, true);
        source.append(0, 75, i -> "r" + i);
        SinkService fresh = start(settings(1000, ErrorTolerance.NONE, Duration.ofSeconds(5)), next);
        await().atMost(WAIT).until(() -> fresh.status().partitions().stream()
                .anyMatch(p -> p.bufferedRecords() == 75 && p.committed() == 74));
        assertThat(fresh.stop().clean()).isTrue();
        assertThat(next.stored(0)).hasValue(149);

        store.releaseHeld();
        oldStop.get();
        assertThat(coverage()).hasSize(150).allSatisfy((o, n) -> assertThat(n).as("copies of %s", o).isEqualTo(1));
        assertThat(store.objects().keySet()).containsExactly(key(0, 74), key(75, 149));
        assertThat(store.claims()).as("claims at or below the committed offset are removed").isEmpty();
    }

    /**
     * The other order: the old owner's claim is held, the new owner claims, uploads, commits and removes its claim;
     * the old owner's claim then succeeds, but the object of another range starting there stops its upload.
     */
    @Test
    void an_old_owners_claim_landing_after_the_new_owner_committed_does_not_upload_a_second_copy()
            throws Exception {
        source.append(0, 75, i -> "r" + i);
        SinkService old = start(settings(1000, ErrorTolerance.NONE, Duration.ofSeconds(30)), source);
        await().atMost(WAIT).until(() -> old.status().partitions().stream().anyMatch(p -> p.bufferedRecords() == 75));
        store.holdPuts(k -> k.contains("_claims/"));
        CompletableFuture<Boolean> oldStop = CompletableFuture.supplyAsync(() -> {
            try {
                return old.stop().clean();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(WAIT).until(() -> store.heldCalls() >= 1);

        ScriptedMessageSource next = source.newMember();
        source.own(0, false);
        next.own(0, true);
        source.append(0, 75, i -> "r" + i);
        store.holdNoMore(); // the old owner's claim stays held
        SinkService fresh = start(settings(1000, ErrorTolerance.NONE, Duration.ofSeconds(5)), next);
        await().atMost(WAIT).until(() -> fresh.status().partitions().stream()
                .anyMatch(p -> p.bufferedRecords() == 150));
        assertThat(fresh.stop().clean()).isTrue();
        assertThat(next.stored(0)).hasValue(149);
        assertThat(store.claims()).isEmpty();

        store.releaseHeld();
        oldStop.get(); // clean or not, the partition is the new owner's: what counts is what the store holds
        assertThat(coverage()).hasSize(150).allSatisfy((o, n) -> assertThat(n).as("copies of %s", o).isEqualTo(1));
        assertThat(store.objects().keySet()).containsExactly(key(0, 149));
    }

    /**
     * Why a count cut needs its claim too, though every member cuts it alike from an agreed start (issue 46): the
     * old owner's count cut 50-99 is in flight when the partition moves; the new owner, whose memory budget is
     * tighter, would cut a file at 50 by memory pressure before offset 99. Without the old owner's claim at 50 both
     * files land, and offsets 50 on are in two objects; with it, the new owner cuts 50-99 as well (one object).
     */
    @Test
    void an_old_owners_count_cut_in_flight_decides_the_new_owners_cut_at_the_same_start() throws Exception {
        String payload = "x".repeat(96);
        store.holdPuts(k -> k.equals(key(50, 99)));
        source.append(0, 100, i -> payload);
        SinkService old = start(settings(50, ErrorTolerance.NONE, Duration.ofSeconds(30)), source);
        await().atMost(WAIT).until(() -> store.heldCalls() == 1 && source.stored(0).orElse(-1) == 49);
        store.holdNoMore(); // the old owner's PUT stays held

        ScriptedMessageSource next = source.newMember();
        source.own(0, false);
        next.own(0, true);
        SinkSettings roomy = settings(50, ErrorTolerance.NONE, Duration.ofSeconds(5));
        SinkSettings tight = new SinkSettings(roomy.key(), roomy.name(), true, 0, false, roomy.streams(),
                roomy.output(), roomy.rotation(), roomy.retry(),
                new DeliverySettings(3_000, ErrorTolerance.NONE, "_dlq", Duration.ofSeconds(5), 4),
                roomy.transforms());
        SinkService fresh = start(tight, next);
        await().atMost(WAIT).until(() -> next.stored(0).orElse(-1) > 49);
        store.releaseHeld();
        old.stop(); // waits for its upload: the held PUT lands now
        fresh.stop();

        assertThat(coverage()).as("objects %s", store.objects().keySet()).hasSize(100)
                .allSatisfy((o, n) -> assertThat(n).as("copies of %s", o).isEqualTo(1));
    }

    @Test
    void a_store_that_ignores_conditional_writes_turns_claims_off_and_the_sink_still_writes_every_record()
            throws InterruptedException {
        store = new InMemoryObjectStore().ignoringConditions();
        source.append(0, 120, i -> "r" + i);
        SinkService sink = start(settings(50, ErrorTolerance.NONE, Duration.ofSeconds(5)), source);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 99);
        assertThat(sink.stop().clean()).isTrue();
        assertThat(store.claims()).isEmpty();
        assertThat(store.createCalls()).as("the probe only").isEqualTo(2);
        assertThat(coverage()).hasSize(120).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
    }

    private static byte[] linesOf(long first, long last) {
        StringBuilder sb = new StringBuilder();
        for (long o = first; o <= last; o++) sb.append(o).append(":r").append(o).append('\n');
        return sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static Map<String, String> stamps(long first, long last) {
        return ObjectStamps.of(first, last, last - first + 1, first + "/0/1773669751000000",
                last + "/0/1773669751000000");
    }
}
