package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.domain.completeness.FileEntry;
import dev.iggysink.domain.completeness.Markers;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.naming.KeyRange;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Redrive (ADR 0018): dead letters that the current configuration decodes go to one-record objects exactly once,
 * whatever step a run is stopped at and however often it runs again; the ones that still fail stay with their new
 * error; the audit counts each redriven record once.
 */
class RedriveTest {
    private static final String STREAM = "logs";
    private static final String TOPIC = "api";
    private static final PartitionRef P1 = new PartitionRef(STREAM, TOPIC, 1);
    private static final PartitionRef P2 = new PartitionRef(STREAM, TOPIC, 2);
    /** 2026-12-05T10:15:00Z */
    private static final long MICROS = 1_796_465_700_000_000L;
    private static final OutputSettings HOURLY = OutputSettings.jsonLines("out", "{stream}/{topic}/{date}/{hour}");
    private static final OutputSettings DAILY = OutputSettings.jsonLines("out", "{stream}/{topic}/{date}");
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-12-05T11:00:00Z"));

    private static SinkRecord record(PartitionRef p, long offset, String payload) {
        return new SinkRecord(p, offset, MICROS + offset, MICROS + offset, new MessageId(7, offset), List.of(),
                payload.getBytes(StandardCharsets.UTF_8));
    }

    private static String letterKey(SinkRecord r) {
        return DeadLetters.key("out", "_dlq", r);
    }

    /** A data object of the hourly layout, stamped as the sink stamps it, with {@code records} of its range. */
    private static void data(InMemoryObjectStore store, PartitionRef p, long first, long last, long records) {
        String key = ObjectKey.of("out", "logs/api/2026-12-05/10", p.partitionId(), first, last, "jsonl");
        store.seed(key, LinesCodec.timedLines(first, last, MICROS, "x"), ObjectStamps.of(first, last, records,
                ObjectStamps.stamp(record(p, first, "x")), ObjectStamps.stamp(record(p, last, "x"))));
    }

    private static void letter(InMemoryObjectStore store, SinkRecord r, String error) {
        store.seed(letterKey(r), DeadLetters.content(r, error), ObjectStamps.of(r));
    }

    /**
     * Partition 1: offsets 0-9 in one object holding 8 records; 3 and 7 dead-lettered under the old configuration and
     * decodable now. Partition 2: 0-4 in one object of 4 records; 2 dead-lettered and still bad.
     */
    private static InMemoryObjectStore planted() {
        InMemoryObjectStore store = new InMemoryObjectStore();
        data(store, P1, 0, 9, 8);
        letter(store, record(P1, 3, "{\"n\":3}"), "old schema refused it");
        letter(store, record(P1, 7, "{\"n\":7}"), "old schema refused it");
        data(store, P2, 0, 4, 4);
        letter(store, record(P2, 2, "BAD 2"), "old schema refused it");
        return store;
    }

    private static List<Redrive.Outcome> redrive(ObjectStore store, OutputSettings output, Redrive.Filter filter,
                                                 boolean dryRun) throws StoreException {
        return new Redrive(store, new LinesCodec(), output, "_dlq", STREAM, TOPIC, CLOCK)
                .run(p -> OptionalLong.of(p.partitionId() == 1 ? 9 : 4), filter, dryRun);
    }

    private static List<Audit.PartitionAudit> audit(ObjectStore store) throws StoreException {
        Audit audit = new Audit(store);
        return audit.audit("out/logs/api/", "_dlq", audit.deadLetterPrefix("out", "_dlq", STREAM, TOPIC),
                List.of(P1, P2), p -> OptionalLong.of(p.partitionId() == 1 ? 9 : 4), (k, c) -> Optional.empty());
    }

    /** The keys of the objects (not dead letters, not notes) holding {@code offset} of partition 1 by their key. */
    private static List<String> holders(InMemoryObjectStore store, long offset) {
        List<String> out = new ArrayList<>();
        for (String key : store.objects().keySet()) {
            if (key.contains("/_dlq/")) continue;
            Optional<KeyRange> r = ObjectKey.parse(key);
            if (r.isPresent() && r.get().partitionId() == 1 && r.get().firstOffset() == offset
                    && r.get().lastOffset() == offset) {
                out.add(key);
            }
        }
        return out;
    }

    /** The end state every run must reach: each redriven offset in exactly one object, notes, no letters. */
    private static void assertRedrivenOnce(InMemoryObjectStore store) throws StoreException {
        for (long o : new long[] {3, 7}) {
            String letter = letterKey(record(P1, o, ""));
            assertThat(holders(store, o)).as("objects holding offset %d", o).hasSize(1);
            String target = holders(store, o).get(0);
            assertThat(store.metadataOf(target)).containsEntry(Redrive.REDRIVEN_FROM, letter)
                    .containsEntry(ObjectStamps.OFFSETS, o + "-" + o).containsEntry(ObjectStamps.RECORDS, "1");
            assertThat(new String(store.get(target), StandardCharsets.UTF_8)).isEqualTo(o + ":{\"n\":" + o + "}\n");
            assertThat(store.objects()).doesNotContainKey(letter);
            DeadLetters.Letter note = DeadLetters.parse(store.get(DeadLetters.redrivenKey("out", "_dlq", letter)));
            assertThat(note.redrivenTo()).isEqualTo(target);
            assertThat(note.offset()).isEqualTo(o);
            assertThat(note.error()).isEqualTo("old schema refused it");
        }
        String stillBad = letterKey(record(P2, 2, ""));
        assertThat(DeadLetters.parse(store.get(stillBad)).error()).isEqualTo("payload is not valid JSON");
        List<Audit.PartitionAudit> audits = audit(store);
        assertThat(audits.get(0).overlaps()).isEmpty();
        assertThat(audits.get(0).gaps()).isEmpty();
        assertThat(audits.get(0).deadLettered()).isEmpty();
        assertThat(audits.get(0).covered()).extracting(Object::toString).containsExactly("0-9");
        assertThat(audits.get(1).deadLettered()).containsExactly(2L);
        assertThat(audits.get(1).ok()).isTrue();
    }

    @Test
    void decodable_dead_letters_go_to_the_sinks_key_once_and_the_bad_one_stays_with_its_new_error() throws Exception {
        InMemoryObjectStore store = planted();

        List<Redrive.Outcome> outcomes = redrive(store, HOURLY, Redrive.Filter.ALL, false);

        assertThat(outcomes).extracting(Redrive.Outcome::offset, Redrive.Outcome::action).containsExactly(
                org.assertj.core.groups.Tuple.tuple(3L, Redrive.Action.REDRIVEN),
                org.assertj.core.groups.Tuple.tuple(7L, Redrive.Action.REDRIVEN),
                org.assertj.core.groups.Tuple.tuple(2L, Redrive.Action.STILL_FAILS));
        assertThat(outcomes.get(0).detail()).isEqualTo(
                "out/logs/api/2026-12-05/10/00001-00000000000000000003-00000000000000000003.jsonl");
        assertThat(outcomes.get(2).detail()).isEqualTo("payload is not valid JSON");
        assertRedrivenOnce(store);
        Map<String, byte[]> after = snapshot(store);

        List<Redrive.Outcome> again = redrive(store, HOURLY, Redrive.Filter.ALL, false);

        assertThat(again).extracting(Redrive.Outcome::action).containsExactly(Redrive.Action.STILL_FAILS);
        assertThat(snapshot(store)).isEqualTo(after);
    }

    /**
     * A dead letter redriven into a folder that already has its completeness marker: the marker is written again
     * listing the redriven object too (size, CRC32C, offsets, one record), with the next version, as for a late
     * record (ADR 0016, 0018).
     */
    private static final OutputSettings MARKED = new OutputSettings("out", "{stream}/{topic}/{date}/{hour}",
            OutputFormat.JSON_LINES, Compression.NONE, true, false, ZoneId.of("UTC"), Optional.empty(), "snappy",
            "null", "__missing__", Optional.of("_COMPLETE"));
    private static final String FOLDER = "out/logs/api/2026-12-05/10";
    private static final String MARKER = FOLDER + "/_COMPLETE";

    /** {@link #planted()} with the folder's marker, as the sink wrote it, listing its two data objects. */
    private static List<FileEntry> markFolder(InMemoryObjectStore store) throws StoreException {
        List<FileEntry> first = new ArrayList<>();
        for (String key : List.copyOf(store.objects().keySet())) {
            Optional<KeyRange> r = ObjectKey.parse(key);
            if (r.isEmpty() || key.contains("/_dlq/")) continue;
            byte[] bytes = store.get(key);
            long records = ObjectStamps.records(store.metadataOf(key)).getAsLong();
            first.add(new FileEntry(FOLDER, key, r.get().partitionId(), r.get().firstOffset(), r.get().lastOffset(),
                    records, bytes.length, crc(bytes), MICROS + r.get().firstOffset(), MICROS + r.get().lastOffset()));
        }
        assertThat(first).hasSize(2);
        store.seed(MARKER, new Markers.Marker(FOLDER, MICROS - 900_000_000L, MICROS + 2_700_000_000L, first)
                .json(new Markers.Header("_COMPLETE", "s3", "g", STREAM, TOPIC), 1), Map.of());
        return first;
    }

    private static List<Redrive.Outcome> redriveMarked(ObjectStore store) throws StoreException {
        return new Redrive(store, new LinesCodec(), MARKED, "_dlq", STREAM, TOPIC, CLOCK).markers("s3", "g")
                .run(p -> OptionalLong.of(p.partitionId() == 1 ? 9 : 4), Redrive.Filter.ALL, false);
    }

    /** The marker lists the data objects and each redriven object once, with its size and CRC32C: 14 records. */
    private static void assertMarkerListsRedriven(InMemoryObjectStore store, List<FileEntry> first)
            throws StoreException {
        byte[] after = store.get(MARKER);
        List<FileEntry> listed = Markers.objectsOf(after, FOLDER);
        List<String> expected = new ArrayList<>(List.of(first.get(0).key(), first.get(1).key()));
        for (long o : new long[] {3, 7}) {
            String target = holders(store, o).get(0);
            expected.add(target);
            byte[] bytes = store.get(target);
            FileEntry e = listed.stream().filter(f -> f.key().equals(target)).findFirst().orElseThrow();
            assertThat(e).as(target).isEqualTo(new FileEntry(FOLDER, target, 1, o, o, 1, bytes.length, crc(bytes),
                    MICROS + o, MICROS + o));
        }
        assertThat(listed).extracting(FileEntry::key).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(new String(after, StandardCharsets.UTF_8)).contains("\"records\": 14,");
        assertThat(Markers.versionOf(after)).isGreaterThan(1);
    }

    /**
     * A dead letter redriven into a folder that already has its completeness marker: the marker is written again
     * listing the redriven object too (size, CRC32C, offsets, one record), with the next version, as for a late
     * record (ADR 0016, 0018).
     */
    @Test
    void a_record_redriven_into_a_marked_folder_is_listed_by_the_next_version_of_its_marker() throws Exception {
        InMemoryObjectStore store = planted();
        List<FileEntry> first = markFolder(store);

        List<Redrive.Outcome> outcomes = redriveMarked(store);

        assertThat(outcomes).extracting(Redrive.Outcome::action).containsExactly(Redrive.Action.REDRIVEN,
                Redrive.Action.REDRIVEN, Redrive.Action.STILL_FAILS);
        assertThat(holders(store, 3)).containsExactly(outcomes.get(0).detail());
        assertThat(holders(store, 7)).containsExactly(outcomes.get(1).detail());
        assertMarkerListsRedriven(store, first);
    }

    /** Killed before or after any write, and run again: the marker lists each redriven object once. */
    @Test
    void a_redrive_killed_at_any_write_and_run_again_leaves_the_marker_listing_each_redriven_object_once()
            throws Exception {
        InMemoryObjectStore counted = planted();
        markFolder(counted);
        Crashing counting = new Crashing(counted, Integer.MAX_VALUE, false);
        redriveMarked(counting);
        int writes = counting.calls;
        assertThat(writes).isEqualTo(11); // per letter a note, a target, its entry, the marker, a delete; the bad one
        for (int at = 1; at <= writes; at++) {
            for (boolean afterIt : new boolean[] {false, true}) {
                InMemoryObjectStore store = planted();
                List<FileEntry> first = markFolder(store);
                Crashing crashing = new Crashing(store, at, afterIt);
                assertThatThrownBy(() -> redriveMarked(crashing)).isInstanceOf(Killed.class);

                redriveMarked(store);

                String where = "killed " + (afterIt ? "after" : "before") + " write " + at;
                assertThat(holders(store, 3)).as(where).hasSize(1);
                assertThat(holders(store, 7)).as(where).hasSize(1);
                assertMarkerListsRedriven(store, first);
            }
        }
    }

    private static long crc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return crc.getValue();
    }

    /** Stops the run at its n-th write or delete: before the call reaches the store, or after it did. */
    private static final class Crashing extends ForwardingObjectStore {
        private final int at;
        private final boolean afterIt;
        private int calls;

        Crashing(ObjectStore to, int at, boolean afterIt) {
            super(to);
            this.at = at;
            this.afterIt = afterIt;
        }

        private void step(StoreCall call) throws StoreException {
            if (++calls == at && !afterIt) throw new Killed();
            call.run();
            if (calls == at) throw new Killed();
        }

        @Override
        public void put(String key, FileBytes content, String contentType, Map<String, String> metadata)
                throws StoreException {
            step(() -> super.put(key, content, contentType, metadata));
        }

        @Override
        public void delete(String key) throws StoreException {
            step(() -> super.delete(key));
        }

        @Override
        public boolean replace(String key, byte[] content, String contentType, String etag) throws StoreException {
            boolean[] replaced = new boolean[1];
            step(() -> replaced[0] = super.replace(key, content, contentType, etag));
            return replaced[0];
        }

        @Override
        public boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException {
            throw new AssertionError("redrive does not create");
        }
    }

    private interface StoreCall {
        void run() throws StoreException;
    }

    private static final class Killed extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    @Test
    void a_run_killed_before_or_after_any_write_and_a_second_run_write_each_record_once() throws Exception {
        int writes = 0;
        InMemoryObjectStore counted = planted();
        Crashing counting = new Crashing(counted, Integer.MAX_VALUE, false);
        redrive(counting, HOURLY, Redrive.Filter.ALL, false);
        writes = counting.calls;
        assertThat(writes).isEqualTo(7); // per letter a note, a target, a delete; the bad letter's new error

        for (int at = 1; at <= writes; at++) {
            for (boolean afterIt : new boolean[] {false, true}) {
                for (OutputSettings second : List.of(HOURLY, DAILY)) {
                    InMemoryObjectStore store = planted();
                    Crashing crashing = new Crashing(store, at, afterIt);
                    assertThatThrownBy(() -> redrive(crashing, HOURLY, Redrive.Filter.ALL, false))
                            .isInstanceOf(Killed.class);

                    redrive(store, second, Redrive.Filter.ALL, false);

                    String where = "killed " + (afterIt ? "after" : "before") + " write " + at + ", second run "
                            + second.pathTemplate();
                    assertThat(holders(store, 3)).as(where).hasSize(1);
                    assertThat(holders(store, 7)).as(where).hasSize(1);
                    assertRedrivenOnce(store);
                }
            }
        }
    }

    @Test
    void filters_take_a_partition_an_offset_range_or_an_error_text() throws Exception {
        InMemoryObjectStore store = planted();
        letter(store, record(P2, 3, "{\"n\":33}"), "field city missing");

        assertThat(redrive(store, HOURLY, new Redrive.Filter(OptionalInt.of(2), 0, Long.MAX_VALUE, Optional.empty()),
                true)).extracting(Redrive.Outcome::offset).containsExactly(2L, 3L);
        assertThat(redrive(store, HOURLY, new Redrive.Filter(OptionalInt.empty(), 3, 6, Optional.empty()), true))
                .extracting(Redrive.Outcome::partition, Redrive.Outcome::offset).containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, 3L), org.assertj.core.groups.Tuple.tuple(2, 3L));
        List<Redrive.Outcome> byError = redrive(store, HOURLY,
                new Redrive.Filter(OptionalInt.empty(), 0, Long.MAX_VALUE, Optional.of("city")), false);

        assertThat(byError).extracting(Redrive.Outcome::partition, Redrive.Outcome::offset, Redrive.Outcome::action)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(2, 3L, Redrive.Action.REDRIVEN));
        assertThat(store.objects()).containsKeys(letterKey(record(P1, 3, "")), letterKey(record(P1, 7, "")))
                .doesNotContainKey(letterKey(record(P2, 3, "")));
    }

    private static Map<String, byte[]> snapshot(InMemoryObjectStore store) {
        Map<String, byte[]> out = new TreeMap<>(store.objects());
        out.replaceAll((k, v) -> v.clone());
        return new TreeMap<>(out) {
            @Override
            public boolean equals(Object o) {
                if (!(o instanceof Map<?, ?> m) || !m.keySet().equals(keySet())) return false;
                for (Map.Entry<String, byte[]> e : entrySet()) {
                    if (!Arrays.equals(e.getValue(), (byte[]) m.get(e.getKey()))) return false;
                }
                return true;
            }
        };
    }

    @Test
    void a_dry_run_says_what_would_happen_and_writes_nothing() throws Exception {
        InMemoryObjectStore store = planted();
        Map<String, byte[]> before = snapshot(store);

        List<Redrive.Outcome> outcomes = redrive(store, HOURLY, Redrive.Filter.ALL, true);

        assertThat(outcomes).extracting(Redrive.Outcome::action).containsExactly(Redrive.Action.REDRIVEN,
                Redrive.Action.REDRIVEN, Redrive.Action.STILL_FAILS);
        assertThat(outcomes.get(1).detail()).endsWith("/00001-00000000000000000007-00000000000000000007.jsonl");
        assertThat(snapshot(store)).isEqualTo(before);
    }

    @Test
    void a_dead_letter_above_the_committed_offset_is_left_to_the_sink() throws Exception {
        InMemoryObjectStore store = planted();
        SinkRecord late = record(P1, 12, "{\"n\":12}");
        letter(store, late, "old schema refused it");

        List<Redrive.Outcome> outcomes = redrive(store, HOURLY, Redrive.Filter.ALL, false);

        assertThat(outcomes).filteredOn(o -> o.offset() == 12).singleElement().satisfies(o -> {
            assertThat(o.action()).isEqualTo(Redrive.Action.NOT_COMMITTED);
            assertThat(o.detail()).isEqualTo("the group's committed offset is 9");
        });
        assertThat(store.objects()).containsKey(letterKey(late));
        assertThat(holders(store, 12)).isEmpty();
    }

    @Test
    void a_record_the_sink_read_again_after_the_fix_is_not_written_twice() throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        data(store, P1, 0, 9, 10);
        SinkRecord stale = record(P1, 3, "{\"n\":3}");
        letter(store, stale, "old schema refused it");

        List<Redrive.Outcome> outcomes = redrive(store, HOURLY, Redrive.Filter.ALL, false);

        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.action()).isEqualTo(Redrive.Action.ALREADY_DELIVERED);
            assertThat(o.detail()).endsWith("/00001-00000000000000000000-00000000000000000009.jsonl");
        });
        assertThat(holders(store, 3)).isEmpty();
        assertThat(store.objects()).doesNotContainKey(letterKey(stale));
        assertThat(audit(store).get(0).overlaps()).isEmpty();
    }

    @Test
    void the_audit_calls_a_redriven_object_inside_a_whole_object_an_overlap() throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        data(store, P1, 0, 9, 10);
        SinkRecord r = record(P1, 3, "{\"n\":3}");
        String target = ObjectKey.of("out", "logs/api/2026-12-05/10", 1, 3, 3, "jsonl");
        Map<String, String> meta = new java.util.HashMap<>(ObjectStamps.of(r));
        meta.put(Redrive.REDRIVEN_FROM, letterKey(r));
        store.seed(target, LinesCodec.timedLines(3, 3, MICROS, "x"), meta);

        assertThat(audit(store).get(0).overlaps()).singleElement().asString().startsWith(target + " overlaps ");
    }

    @Test
    void a_dead_letter_reads_back_as_the_record_it_was() {
        SinkRecord r = new SinkRecord(P1, 42, MICROS, MICROS, new MessageId(-1, -2), List.of(),
                "a \"quoted\"\n\u0001 payload".getBytes(StandardCharsets.UTF_8));

        DeadLetters.Letter letter = DeadLetters.parse(DeadLetters.content(r, "bad \"field\"\t\u0002"));

        assertThat(letter.record()).isEqualTo(r);
        assertThat(letter.error()).isEqualTo("bad \"field\"\t\u0002");
        assertThat(letter.redrivenTo()).isNull();
        assertThat(DeadLetters.parse(DeadLetters.note(r, "e", "k/00001-x.jsonl", Instant.EPOCH)).redrivenTo())
                .isEqualTo("k/00001-x.jsonl");
        assertThatThrownBy(() -> DeadLetters.parse("{\"stream\":\"s\"}".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("no field \"topic\"");
    }
}
