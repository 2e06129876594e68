package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.LogCapture;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.in.AuditUseCase;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.LateRecords;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.RetrySettings;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.domain.completeness.FileEntry;
import dev.iggysink.domain.completeness.Markers;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.ObjectKey;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code late_records = "late_path"} (ADR 0016): a file whose first record's window its partition had already passed
 * goes under the topic's late/ folder, the marker of the old folder stays as it was, and the key lookup at
 * assignment finds such a file (a second LIST, and the claim's key) so that a member killed between the late file
 * and its commit leaves every record in exactly one object.
 */
class LateRecordsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String MARKER = "_COMPLETE";
    private static final Instant BASE = Instant.parse("2026-12-05T10:00:00Z");
    private static final long START = ChronoUnit.MICROS.between(Instant.EPOCH, BASE);
    private static final String TOPIC = "iggy/raw/application_logs/api_requests/";
    private static final String FOLDER = TOPIC + "2026-12-05/10/00";
    private static final String LATE = TOPIC + "late/2026-12-05/10/00";

    private final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
    private final CompletenessModelTest.FastClock clock = new CompletenessModelTest.FastClock();
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
    private final List<SinkService> sinks = new ArrayList<>();

    @AfterEach
    void stopAll() throws InterruptedException {
        store.releaseHeld();
        for (SinkService s : sinks) s.hurryStop();
        for (SinkService s : sinks) s.awaitStopped();
    }

    private SinkSettings settings(long count, LateRecords rule) {
        return new SinkSettings("s3", "S3 sink", true, 0, false, List.of(stream),
                new OutputSettings("iggy/raw", "{stream}/{topic}/{date}/{hour}/{minute}", OutputFormat.JSON_LINES,
                        Compression.NONE, true, false, ZoneId.of("UTC"), Optional.empty(), "snappy", "null",
                        "__missing__", Optional.of(MARKER), rule),
                RotationSettings.messages(count), new RetrySettings(3, Duration.ofMillis(10),
                RetrySettings.DEFAULT_MAX_DELAY),
                new DeliverySettings(64L << 20, ErrorTolerance.NONE, "_dlq", Duration.ofSeconds(300), 4), List.of());
    }

    private SinkService start(SinkSettings settings) {
        return start(settings, source);
    }

    private SinkService start(SinkSettings settings, ScriptedMessageSource member) {
        return start(settings, member, store);
    }

    private SinkService start(SinkSettings settings, ScriptedMessageSource member, ObjectStore to) {
        SinkService sink = new SinkService(settings, (s, t, g) -> member, s -> new LinesCodec(), to, clock,
                d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sinks.add(sink);
        sink.start();
        return sink;
    }

    /** Minute 0 gets two records and its marker; returns the marker's bytes. */
    private byte[] minuteZeroMarked(SinkService sink) {
        source.own(0, true);
        source.recordTimeMicros(START + 1_000_000L);
        source.append(0, List.of("a", "b"));
        await().atMost(WAIT).until(() -> {
            sink.flush();
            return store.objects().containsKey(FOLDER + "/" + MARKER);
        });
        return store.objects().get(FOLDER + "/" + MARKER);
    }

    /** Data objects under {@code folder}, by key. */
    private List<String> dataIn(String folder) {
        return store.objects().keySet().stream()
                .filter(k -> ObjectKey.parse(k).isPresent() && FileEntry.folderOf(k).equals(folder)).toList();
    }

    /** How many data objects hold each offset. */
    private Map<Long, Integer> copies() {
        Map<Long, Integer> seen = new TreeMap<>();
        store.objects().forEach((k, bytes) -> {
            if (ObjectKey.parse(k).isEmpty()) return;
            for (long o : LinesCodec.offsets(bytes)) seen.merge(o, 1, Integer::sum);
        });
        return seen;
    }

    @Test
    void a_late_record_goes_under_late_and_the_marker_of_its_folder_stays_as_it_was() throws Exception {
        SinkService sink = start(settings(2, LateRecords.LATE_PATH));
        byte[] first = minuteZeroMarked(sink);

        // minute 0 again, long after its folder was marked (the server's clock stepped back)
        source.recordTimeMicros(START + 2_000_000L);
        source.append(0, List.of("late", "late"));
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 3);
        // Two more publish intervals: a rewrite of the marker would have happened by now.
        long after = clock.micros() + 25_000_000L;
        await().atMost(WAIT).until(() -> clock.micros() > after);

        assertThat(store.objects().get(FOLDER + "/" + MARKER)).as("the marker is not rewritten").isEqualTo(first);
        assertThat(Markers.versionOf(first)).isEqualTo(1);
        assertThat(dataIn(FOLDER)).singleElement().asString().endsWith("-00000000000000000000-00000000000000000001.jsonl");
        assertThat(dataIn(LATE)).singleElement().asString()
                .isEqualTo(LATE + "/00000-00000000000000000002-00000000000000000003.jsonl");
        assertThat(store.objects().keySet()).as("late/ gets no marker").noneMatch(k -> k.contains("/late/")
                && k.endsWith(MARKER));
        assertThat(copies()).containsOnlyKeys(0L, 1L, 2L, 3L).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
    }

    @Test
    void by_default_a_late_record_goes_to_its_folder_and_the_marker_is_rewritten() throws Exception {
        SinkService sink = start(settings(2, LateRecords.REWRITE_MARKER));
        minuteZeroMarked(sink);
        source.recordTimeMicros(START + 2_000_000L);
        source.append(0, List.of("late", "late"));
        await().atMost(WAIT).until(() -> Markers.versionOf(store.objects().get(FOLDER + "/" + MARKER)) == 2);
        assertThat(dataIn(FOLDER)).hasSize(2);
        assertThat(store.objects().keySet()).noneMatch(k -> k.contains("/late/"));
    }

    /**
     * A stale version of the marker lands right after this member's version 2, as a plain PUT would write it: a
     * member of an earlier version of the sink (its rewrite was no compare-and-swap yet), or any writer on a store
     * that ignores If-Match. The late file is forgotten only once a read of the marker shows it listed, so the next
     * combine finds it missing and lists it again.
     */
    @Test
    void a_marker_rewrite_another_member_overwrote_lists_the_late_file_again_at_the_next_combine()
            throws Exception {
        String marker = FOLDER + "/" + MARKER;
        java.util.concurrent.atomic.AtomicReference<byte[]> stale = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean overwritten = new java.util.concurrent.atomic.AtomicBoolean();
        ObjectStore member = new ForwardingObjectStore(store) {
            @Override
            public boolean replace(String key, byte[] content, String contentType, String etag)
                    throws StoreException {
                boolean replaced = super.replace(key, content, contentType, etag);
                if (replaced && key.equals(marker) && stale.get() != null && overwritten.compareAndSet(false, true)) {
                    store.put(key, FileBytes.of(stale.get()), contentType); // the other writer's plain PUT
                }
                return replaced;
            }

            @Override
            public void close() {
            }
        };
        SinkService sink = start(settings(2, LateRecords.REWRITE_MARKER), source, member);
        stale.set(minuteZeroMarked(sink));
        source.recordTimeMicros(START + 2_000_000L);
        source.append(0, List.of("late", "late"));
        await().atMost(WAIT).until(overwritten::get);
        await().atMost(WAIT).until(() -> {
            sink.flush();
            return Markers.objectsOf(store.objects().get(marker), FOLDER).size() == 2;
        });
        assertThat(Markers.objectsOf(store.objects().get(marker), FOLDER)).extracting(FileEntry::key)
                .as("the marker lists").containsExactlyInAnyOrderElementsOf(dataIn(FOLDER));
        assertThat(dataIn(FOLDER)).hasSize(2);
    }

    /**
     * A member reads the marker to add its late file, then stalls before its PUT; meanwhile another member rewrites
     * the marker listing a late file of its own, reads it back listed and forgets it. The stalled member's rewrite
     * must not drop that file: it is a compare-and-swap on the version read (If-Match on its ETag), refused here, so
     * the member reads the marker again and lists both files.
     */
    @Test
    void a_member_stalled_between_reading_and_rewriting_a_marker_keeps_the_file_another_member_added_meanwhile()
            throws Exception {
        String marker = FOLDER + "/" + MARKER;
        String theirs = FOLDER + "/00001-00000000000000000000-00000000000000000000.jsonl";
        java.util.concurrent.atomic.AtomicBoolean stalled = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable otherMemberRewrites = () -> {
            try {
                byte[] read = store.get(marker);
                byte[] file = "{\"partition\":1}\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                store.put(theirs, file, "application/x-ndjson");
                List<FileEntry> listed = new ArrayList<>(Markers.objectsOf(read, FOLDER));
                listed.add(new FileEntry(FOLDER, theirs, 1, 0, 0, 1, file.length, -1, START + 1_500_000L,
                        START + 1_500_000L));
                store.put(marker, new Markers.Marker(FOLDER, START, START + 60_000_000L, listed)
                        .json(new Markers.Header(MARKER, "s3", "g", "application_logs", "api_requests"),
                                Markers.versionOf(read) + 1), "application/json");
            } catch (StoreException e) {
                throw new IllegalStateException(e);
            }
        };
        ObjectStore member = new ForwardingObjectStore(store) {
            /** The marker read for this member's late file: the other member's rewrite lands right after it. */
            private void stallAfterReading(String key) {
                if (key.equals(marker) && dataIn(FOLDER).size() == 2 && stalled.compareAndSet(false, true)) {
                    otherMemberRewrites.run();
                }
            }

            @Override
            public byte[] get(String key) throws StoreException {
                byte[] read = super.get(key);
                stallAfterReading(key);
                return read;
            }

            @Override
            public Versioned getVersioned(String key) throws StoreException {
                Versioned read = super.getVersioned(key);
                stallAfterReading(key);
                return read;
            }

            @Override
            public void close() {
            }
        };
        SinkService sink = start(settings(2, LateRecords.REWRITE_MARKER), source, member);
        minuteZeroMarked(sink);
        source.recordTimeMicros(START + 2_000_000L);
        source.append(0, List.of("late", "late"));
        String mine = FOLDER + "/00000-00000000000000000002-00000000000000000003.jsonl";
        await().atMost(WAIT).until(() -> stalled.get() && Markers.objectsOf(store.objects().get(marker), FOLDER)
                .stream().anyMatch(f -> f.key().equals(mine)));
        // Two more combines: a file left out would have been listed again by now, were it still remembered.
        long after = clock.micros() + 25_000_000L;
        await().atMost(WAIT).until(() -> clock.micros() > after);

        assertThat(dataIn(FOLDER)).hasSize(3).contains(theirs, mine);
        assertThat(Markers.objectsOf(store.objects().get(marker), FOLDER)).extracting(FileEntry::key)
                .as("the marker lists").containsExactlyInAnyOrderElementsOf(dataIn(FOLDER));
    }

    /**
     * Every rewrite of the marker refused, as when other members rewrite it between each read and write: a combine
     * tries a bounded number of rounds, the status says why the folder's marker lags, and the late file, still
     * remembered, is listed once a rewrite passes.
     */
    @Test
    void a_rewrite_refused_round_after_round_is_said_in_the_status_and_done_at_a_later_combine() throws Exception {
        String marker = FOLDER + "/" + MARKER;
        java.util.concurrent.atomic.AtomicBoolean contended = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
        ObjectStore member = new ForwardingObjectStore(store) {
            @Override
            public boolean replace(String key, byte[] content, String contentType, String etag)
                    throws StoreException {
                if (contended.get()) {
                    refused.incrementAndGet();
                    return false;
                }
                return super.replace(key, content, contentType, etag);
            }

            @Override
            public void close() {
            }
        };
        SinkService sink = start(settings(2, LateRecords.REWRITE_MARKER), source, member);
        minuteZeroMarked(sink);
        source.recordTimeMicros(START + 2_000_000L);
        source.append(0, List.of("late", "late"));
        await().atMost(WAIT).until(() -> sink.status().unmarked().stream()
                .anyMatch(u -> u.contains(marker) && u.contains("between each of " + Completeness.REWRITE_ATTEMPTS)));
        assertThat(refused.get()).as("rounds of the first combine, and the probe of If-Match")
                .isGreaterThanOrEqualTo(Completeness.REWRITE_ATTEMPTS + 1);
        assertThat(Markers.versionOf(store.objects().get(marker))).isEqualTo(1);

        contended.set(false);
        await().atMost(WAIT).until(() -> Markers.versionOf(store.objects().get(marker)) == 2);
        assertThat(Markers.objectsOf(store.objects().get(marker), FOLDER)).extracting(FileEntry::key)
                .containsExactlyInAnyOrderElementsOf(dataIn(FOLDER));
        await().atMost(WAIT).until(() -> sink.status().unmarked().isEmpty());
    }

    /**
     * A store that honours If-None-Match but ignores If-Match: the first rewrite of a marker, naming a version no
     * object has, is not refused there, so the sink says once that rewrites are plain PUTs on it (and what a stalled
     * member may then leave out), and the marker still lists the late file.
     */
    @Test
    void a_store_that_ignores_if_match_is_named_at_the_first_marker_rewrite() throws Exception {
        String marker = FOLDER + "/" + MARKER;
        java.util.concurrent.atomic.AtomicInteger replaces = new java.util.concurrent.atomic.AtomicInteger();
        ObjectStore ignoring = new ForwardingObjectStore(store) {
            @Override
            public boolean replace(String key, byte[] content, String contentType, String etag)
                    throws StoreException {
                replaces.incrementAndGet();
                store.put(key, content, contentType);
                return true;
            }

            @Override
            public void close() {
            }
        };
        LogCapture log = LogCapture.of(Completeness.class);
        try (log) {
            SinkService sink = start(settings(2, LateRecords.REWRITE_MARKER), source, ignoring);
            minuteZeroMarked(sink);
            source.recordTimeMicros(START + 2_000_000L);
            source.append(0, List.of("late", "late"));
            await().atMost(WAIT).until(() -> Markers.versionOf(store.objects().get(marker)) == 2);
        }
        List<String> logged = log.messages();
        assertThat(logged).filteredOn(m -> m.contains("ignored If-Match")).singleElement().asString()
                .contains(marker).contains("plain PUT");
        assertThat(replaces).hasValue(1);
        assertThat(Markers.objectsOf(store.objects().get(marker), FOLDER)).extracting(FileEntry::key)
                .containsExactlyInAnyOrderElementsOf(dataIn(FOLDER));
    }

    /**
     * A late file made durable while its partition's progress could not be published yet (it is published once per
     * interval; here its PUTs fail for a while) meets a combine that reads the previous progress, where the folder is
     * due and already marked: the file is not forgotten with the folder's listed files, so once published and
     * committed it is listed by version 2 of the marker (model seed 1466206 lost it, leaving version 1 for good).
     */
    @Test
    void a_late_file_durable_before_its_progress_is_published_is_listed_by_the_next_version() throws Exception {
        String marker = FOLDER + "/" + MARKER;
        java.util.concurrent.atomic.AtomicBoolean blocked = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger combines = new java.util.concurrent.atomic.AtomicInteger();
        ObjectStore member = new ForwardingObjectStore(store) {
            @Override
            public boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException {
                boolean created = super.create(key, content, metadata);
                // The progress that let the folder be marked stays the newest: it still lists the folder's file.
                if (created && key.equals(marker)) blocked.set(true);
                return created;
            }

            @Override
            public void put(String key, FileBytes content, String contentType, Map<String, String> metadata)
                    throws StoreException {
                if (blocked.get() && key.contains("_progress/")) {
                    throw new StoreException("slow down", true, 503, null, null);
                }
                super.put(key, content, contentType, metadata);
            }

            @Override
            public List<StoredObject> list(String prefix) throws StoreException {
                if (prefix.contains("_progress/") && dataIn(FOLDER).size() == 2) combines.incrementAndGet();
                return super.list(prefix);
            }

            @Override
            public void close() {
            }
        };
        SinkService sink = start(settings(2, LateRecords.REWRITE_MARKER), source, member);
        byte[] first = minuteZeroMarked(sink);
        assertThat(blocked).isTrue();
        source.recordTimeMicros(START + 2_000_000L);
        source.append(0, List.of("late", "late"));
        // Three combines after the late file landed, each reading the progress published before it.
        await().atMost(WAIT).until(() -> combines.get() >= 3);
        assertThat(store.objects().get(marker)).isEqualTo(first);
        blocked.set(false);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 3);
        long after = clock.micros() + 25_000_000L;
        await().atMost(WAIT).until(() -> clock.micros() > after);

        byte[] last = store.objects().get(marker);
        assertThat(Markers.objectsOf(last, FOLDER)).extracting(FileEntry::key).as("the marker lists")
                .containsExactlyInAnyOrderElementsOf(dataIn(FOLDER));
        assertThat(Markers.versionOf(last)).isEqualTo(2);
    }

    /**
     * A member is killed after its late file is durable and before its commit; the claim of that file is gone (the
     * lifecycle rule removed it). The next owner cuts differently (two more late records wait), so only the key
     * lookup's second LIST, of the late/ folder, keeps offsets 2-3 in one object.
     */
    @Test
    void a_late_file_whose_commit_was_lost_is_found_under_late_at_assignment_and_not_written_again()
            throws Exception {
        killedAfterALateFile();
        store.claims().keySet().forEach(k -> {
            try {
                store.delete(k);
            } catch (StoreException e) {
                throw new IllegalStateException(e);
            }
        });

        SinkService next = nextOwnerWithTwoMoreLateRecords(source);
        await().atMost(WAIT).until(() -> {
            next.flush();
            return source.stored(0).orElse(-1) == 5;
        });
        assertThat(copies()).as("every offset in exactly one object").containsOnlyKeys(0L, 1L, 2L, 3L, 4L, 5L)
                .allSatisfy((o, n) -> assertThat(n).as("copies of offset %d", o).isEqualTo(1));
        assertThat(dataIn(LATE)).containsExactly(LATE + "/00000-00000000000000000002-00000000000000000003.jsonl",
                LATE + "/00000-00000000000000000004-00000000000000000005.jsonl");
        assertThat(Markers.versionOf(store.objects().get(FOLDER + "/" + MARKER))).isEqualTo(1);

        // audit lists the topic's objects, late/ among them: every offset delivered once.
        Audit audit = new Audit(store);
        List<AuditUseCase.PartitionAudit> audits = audit.audit(
                audit.listPrefix("iggy/raw", "{stream}/{topic}/{date}/{hour}/{minute}", "application_logs",
                        "api_requests"), "_dlq", audit.deadLetterPrefix("iggy/raw", "_dlq", "application_logs",
                        "api_requests"), List.of(source.partition(0)), p -> source.stored(0), (k, c) -> Optional.empty());
        assertThat(audits).singleElement().satisfies(a -> {
            assertThat(a.ok()).isTrue();
            assertThat(a.overlaps()).isEmpty();
            assertThat(a.objects()).isEqualTo(3);
            assertThat(a.covered()).containsExactly(new AuditUseCase.Range(0, 5));
        });
    }

    /** A late folder sits under the template's fixed part, so audit's listing of the topic finds it. */
    @ParameterizedTest(name = "prefix \"{0}\", template {1}")
    @CsvSource(delimiter = '|', emptyValue = "", textBlock = """
            out | {stream}/{topic}/{date}/{hour} | out/app_logs/api_requests/late/2026-12-05/10
            ''  | {stream}/{topic}/{date}        | app_logs/api_requests/late/2026-12-05
            out | {date}/{stream}/{topic}        | out/late/2026-12-05/app_logs/api_requests
            a/b | lake/{topic}/{date}/{hour}     | a/b/lake/api_requests/late/2026-12-05/10
            """)
    void a_late_folder_is_inside_the_topics_listing(String prefix, String template, String expected) {
        OutputSettings output = OutputSettings.jsonLines(prefix, template);
        FileLayout layout = new FileLayout(output, "jsonl");
        PartitionRef p = new PartitionRef("app_logs", "api_requests", 0);
        String directory = dev.iggysink.domain.naming.PathTemplate.parse(template).render(p, START,
                ZoneId.of("UTC"), dev.iggysink.domain.naming.FieldLookup.NONE, "__missing__");
        String key = layout.key(layout.lateDirectory(p, directory), p, 0, 0);
        assertThat(key).isEqualTo(ObjectKey.of(prefix, expected.substring(prefix.isEmpty() ? 0 : prefix.length() + 1),
                0, 0, 0, "jsonl"));
        assertThat(key).startsWith(new Audit(store).listPrefix(prefix, template, "app_logs", "api_requests"));
    }

    /**
     * The same kill, the claim still there (and the late file held in flight, as an old owner's PUT may be): the
     * next owner adopts the claimed cut and its folder, late/, so the held PUT lands on the very same object.
     */
    @Test
    void a_claimed_late_cut_is_adopted_with_its_folder() throws Exception {
        SinkService old = start(settings(1000, LateRecords.LATE_PATH));
        minuteZeroMarked(old);
        // Held before the records arrive: a flush asked for earlier may seal their file at once.
        store.holdPuts(k -> k.startsWith(LATE + "/"));
        source.failAllCommits(new SourceException("commit timed out", true));
        source.recordTimeMicros(START + 2_000_000L);
        source.append(0, List.of("late", "late"));
        await().atMost(WAIT).until(() -> {
            old.flush();
            return store.heldCalls() == 1;
        });
        store.holdNoMore();
        assertThat(store.claims()).hasSize(1);
        old.hurryStop();

        // The partition moves to another member while the old owner's PUT is in flight.
        ScriptedMessageSource member = source.newMember();
        source.own(0, false);
        member.own(0, true);
        SinkService next = nextOwnerWithTwoMoreLateRecords(member);
        await().atMost(WAIT).until(() -> {
            next.flush();
            return member.stored(0).orElse(-1) == 5;
        });
        store.releaseHeld();
        old.awaitStopped();
        assertThat(copies()).as("every offset in exactly one object").containsOnlyKeys(0L, 1L, 2L, 3L, 4L, 5L)
                .allSatisfy((o, n) -> assertThat(n).as("copies of offset %d", o).isEqualTo(1));
        assertThat(dataIn(LATE)).containsExactly(LATE + "/00000-00000000000000000002-00000000000000000003.jsonl",
                LATE + "/00000-00000000000000000004-00000000000000000005.jsonl");
        assertThat(dataIn(FOLDER)).hasSize(1);
    }

    /** Same range, another key (its folder, or late/): two objects, so the second claim is told another cut. */
    @Test
    void a_claim_for_the_same_range_under_another_key_is_another_cut() throws StoreException {
        Claims claims = new Claims(store, "iggy/raw").in("s1");
        PartitionRef p = source.partition(0);
        String inFolder = ObjectKey.of("iggy/raw", "a/t/2026-12-05/10/00", 0, 0, 9, "jsonl");
        String inLate = ObjectKey.of("iggy/raw", "a/t/late/2026-12-05/10/00", 0, 0, 9, "jsonl");
        assertThat(claims.claim(p, 0, 9, inLate, null).outcome()).isEqualTo(Claims.Outcome.CREATED);
        assertThat(claims.claim(p, 0, 9, inFolder, null).outcome()).isEqualTo(Claims.Outcome.OTHER_CUT);
        assertThat(claims.claim(p, 0, 9, inLate, null).outcome()).isEqualTo(Claims.Outcome.SAME_CUT);
        assertThat(claims.claimed(p, 0, null)).hasValueSatisfying(c -> {
            assertThat(c.last()).isEqualTo(9);
            assertThat(c.names(inLate)).isTrue();
            assertThat(c.names(inFolder)).isFalse();
        });
    }

    /** Minute 0 marked, then two late records flushed into a durable late file whose commit never lands; killed. */
    private void killedAfterALateFile() throws Exception {
        SinkService sink = start(settings(1000, LateRecords.LATE_PATH));
        minuteZeroMarked(sink);
        source.failAllCommits(new SourceException("commit timed out", true));
        source.recordTimeMicros(START + 2_000_000L);
        source.append(0, List.of("late", "late"));
        await().atMost(WAIT).until(() -> {
            sink.flush();
            return dataIn(LATE).size() == 1;
        });
        sink.hurryStop();
        sink.awaitStopped();
        sinks.remove(sink);
        assertThat(source.stored(0)).hasValue(1);
    }

    /** Commits work again; two more records of minute 0 arrive, and {@code member} starts a sink. */
    private SinkService nextOwnerWithTwoMoreLateRecords(ScriptedMessageSource member) {
        source.failAllCommits(null);
        source.recordTimeMicros(START + 3_000_000L);
        source.append(0, List.of("late", "late"));
        return start(settings(1000, LateRecords.LATE_PATH), member);
    }
}
