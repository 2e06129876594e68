package dev.iggysink.application.service;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.domain.completeness.FileEntry;
import dev.iggysink.domain.completeness.Markers;
import dev.iggysink.domain.completeness.PartitionProgress;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.KeySanitizer;
import dev.iggysink.domain.naming.PathTemplate;
import dev.iggysink.domain.rotation.RotationReason;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32C;

/**
 * Completeness markers of one topic (ADR 0016). For each owned partition it keeps the durable files of folders not
 * yet marked, publishes them with the partition's progress (one object per partition, at most once per interval)
 * <em>before</em> the offsets they cover are committed, then reads every partition's progress and writes the
 * markers that are due. {@link Committer} commits only what a published progress covers. Used by the consumer loop
 * thread only; {@link #waiting()} is read by the status page.
 */
final class Completeness {
    private static final System.Logger LOG = System.getLogger(Completeness.class.getName());
    /** How often a partition's progress is published (and markers combined): the commit waits for it. */
    static final Duration INTERVAL = Duration.ofSeconds(10);
    /**
     * The margin for the clocks of Iggy's server and this member: an idle partition counts as complete up to the
     * wall clock at which its end offset was read, less this.
     */
    static final Duration SKEW = Duration.ofSeconds(5);

    /** What this member knows of one owned partition in the current generation of its writer. */
    private static final class Track {
        long generation;
        /** Whether the previous owner's progress was read (a failed read is tried again before a publish). */
        boolean loaded;
        long groupOffset;
        /** Every file up to this offset is in {@link #files} (or in a marked folder) since the assignment. */
        long reach = Long.MIN_VALUE;
        long knownSince = Long.MIN_VALUE;
        /** Durable files in folders not known to be marked, by key (uncommitted ones too). */
        final Map<String, FileEntry> files = new LinkedHashMap<>();
        /** The offset the last published progress covers; commits may go up to it. */
        long published = Long.MIN_VALUE;
        /** The group's offset that progress said. */
        long publishedCommitted = Long.MIN_VALUE;
        /** The complete-before time that progress said, so an unchanged one is not written again. */
        long publishedBefore = Long.MIN_VALUE;
        /** The halt that progress said, so a halt that changes nothing else is still published. */
        Optional<String> publishedHeld = Optional.empty();
        boolean publishedIdle;
        Instant publishedAt = Instant.MIN;
        /** The key of the progress object this member published last for the partition. */
        String publishedKey;
        /** What the previous owner's progress said complete-before was, at the offset it covered. */
        long inheritedBefore = Long.MIN_VALUE;
        long inheritedAt = Long.MIN_VALUE;
        /** What the partition's newest progress said at the assignment, inherited or not: markers may follow it. */
        long progressBefore = Long.MIN_VALUE;

        Track(long generation) {
            this.generation = generation;
        }
    }

    private final ObjectStore store;
    private final String markerName;
    private final Markers.Header header;
    private final PathTemplate template;
    private final ZoneId zone;
    private final String progressPrefix;
    private final InstantSource clock;
    private final BooleanSupplier stopping;
    private final Duration interval;
    private final Map<PartitionRef, Track> tracks = new HashMap<>();
    /** What an assignment under way learnt from the key lookup, before its writer restarts. */
    private final Map<PartitionRef, Track> assigning = new HashMap<>();
    private final Map<PartitionRef, long[]> ends = new HashMap<>();
    /** Folders known to be marked (bounded: only to save requests). */
    private final Set<String> marked = new LinkedHashSet<>();
    private final IfMatch ifMatch = new IfMatch();
    private Instant combinedAt = Instant.MIN;
    /** Redriven objects awaiting a marker, by their key: the key of their entry below the progress prefix. */
    private final Map<String, String> redrivenEntries = new HashMap<>();
    private final List<String> redrivenListed = new ArrayList<>();
    private volatile String waiting;

    Completeness(ObjectStore store, String markerName, String sinkKey, String group, String stream, String topic,
                 String prefix, String pathTemplate, ZoneId zone, InstantSource clock, BooleanSupplier stopping,
                 Duration interval) {
        this.store = store;
        this.markerName = markerName;
        this.header = new Markers.Header(markerName, sinkKey, group, stream, topic);
        this.template = PathTemplate.parse(pathTemplate);
        this.zone = zone;
        this.progressPrefix = progressPrefix(prefix, group, pathTemplate, stream, topic);
        this.clock = clock;
        this.stopping = stopping;
        this.interval = interval;
    }

    /**
     * {@code [prefix/]_progress/<group>-<template hash>/<stream>/<topic>/}: the sink's own namespace, so two sinks of
     * one group with other templates, or two groups on one prefix, never read each other's progress.
     */
    static String progressPrefix(String prefix, String group, String pathTemplate, String stream, String topic) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(pathTemplate.getBytes(StandardCharsets.UTF_8));
        return (prefix.isEmpty() ? "" : prefix + "/") + "_progress/" + KeySanitizer.sanitize(group) + "-"
                + String.format("%08x", crc.getValue()) + "/" + KeySanitizer.sanitize(stream) + "/"
                + KeySanitizer.sanitize(topic) + "/";
    }

    /**
     * A partition's progress objects sort by what they cover ({@code <partition>/<listed up to + 1>-<committed + 1>}),
     * and the newest counts: a late PUT of a member that lost the partition (a zombie) cannot hide a newer one.
     */
    String progressKey(PartitionProgress p) {
        return progressPrefix + String.format("%05d/%020d-%020d.progress", p.partition(), p.listedUpTo() + 1,
                p.committed() + 1);
    }

    /**
     * Where redrive leaves an object it wrote (ADR 0018) for the member that marks the object's folder: below the
     * progress prefix, which that member lists anyway, so an idle redrive costs no request.
     */
    static String redrivenKey(String progressPrefix, FileEntry f) {
        return progressPrefix + REDRIVEN + String.format("%05d-%020d.json", f.partition(), f.firstOffset());
    }

    private static final String REDRIVEN = "redriven/";

    /**
     * Redrive made {@code f} durable: it is left for the member that marks its folder, and when the folder is marked
     * already, its marker is written again listing it (the late-record rule). The entry stays until a member that
     * marks finds it listed, so a marker written over by a concurrent rewrite is mended at its next interval.
     */
    static void redriven(ObjectStore store, String markerName, Markers.Header header, String progressPrefix,
                         PathTemplate template, ZoneId zone, FileEntry f) throws StoreException {
        store.put(redrivenKey(progressPrefix, f), FileBytes.of(new Markers.Marker(f.folder(), f.firstMicros(),
                f.lastMicros(), List.of(f)).json(header, 1)), "application/json");
        long[] w = template.window(f.firstMicros(), zone);
        Markers.Marker m = new Markers.Marker(f.folder(), w[0], w[1], List.of(f));
        if (store.metadata(m.key(markerName)).isPresent()) relist(store, m.key(markerName), header, m, "redriven", null);
    }

    /**
     * How many times in a row a marker rewrite reads and merges again after another member's rewrite won; past that
     * the next combine (one interval later) tries again, the late files still remembered.
     */
    static final int REWRITE_ATTEMPTS = 5;

    /**
     * Writes the marker {@code key} again as the union of what it lists and {@code m}'s objects, one version up,
     * when {@code m} names one it lacks; returns what it was read to list (all of {@code m}'s objects when it lacked
     * none). The write is a compare-and-swap on the version read (If-Match on its ETag): a member that stalls
     * between its read and its write cannot replace a version another member wrote meanwhile, whose objects it has
     * not seen; refused, it reads that version and merges again.
     */
    private static List<FileEntry> relist(ObjectStore store, String key, Markers.Header header, Markers.Marker m,
                                          String why, IfMatch ifMatch) throws StoreException {
        for (int attempt = 1; ; attempt++) {
            ObjectStore.Versioned existing = store.getVersioned(key);
            List<FileEntry> read = Markers.objectsOf(existing.content(), m.folder());
            Map<String, FileEntry> listed = new LinkedHashMap<>();
            for (FileEntry f : read) listed.put(f.key(), f);
            List<String> late = new ArrayList<>();
            for (FileEntry f : m.files()) {
                if (listed.putIfAbsent(f.key(), f) == null) late.add(f.key());
            }
            if (late.isEmpty()) return new ArrayList<>(listed.values());
            int version = Markers.versionOf(existing.content()) + 1;
            byte[] body = new Markers.Marker(m.folder(), m.fromMicros(), m.toMicros(),
                    new ArrayList<>(listed.values())).json(header, version);
            boolean replaced = false;
            if (ifMatch != null && ifMatch.honoured == null) {
                // The first rewrite names a version no object has: a store that honours If-Match refuses it and
                // writes nothing; one that ignores it writes this body, as a plain PUT would, and is said once.
                replaced = store.replace(key, body, "application/json", IfMatch.NO_VERSION);
                ifMatch.honoured = !replaced;
                if (replaced) {
                    LOG.log(Level.WARNING, "the object store ignored If-Match (a PUT of " + key + " naming no version"
                            + " of it was not refused): a marker written again is a plain PUT there, so a member that"
                            + " stalls between reading a marker and writing it may leave out of it a late object"
                            + " another member listed meanwhile (the object stays in its folder: audit finds it)");
                }
            }
            if (replaced || store.replace(key, body, "application/json", existing.etag())) {
                LOG.log(Level.WARNING, why + " records in the marked folder " + m.folder() + ": " + late + " were"
                        + " written there after its marker; " + key + " now lists them (version " + version + ")");
                // What it added counts as listed only once a later read shows it there: a store that ignores
                // If-Match, or a member of an earlier version writing a plain PUT, may still replace this version.
                return read;
            }
            if (attempt == REWRITE_ATTEMPTS) {
                throw new StoreException("rewriting " + key + " to list " + late + ": another member rewrote it "
                        + "between each of " + REWRITE_ATTEMPTS + " reads and the write that followed (412); tried"
                        + " again at the next combine", true, 0, null, null);
            }
            LOG.log(Level.DEBUG, key + " was rewritten by another member since it was read (version "
                    + Markers.versionOf(existing.content()) + "); reading it again");
        }
    }

    /** Whether the store honours If-Match, learnt at this topic's first marker rewrite (null until then). */
    static final class IfMatch {
        /** An ETag no object has: S3's are quoted hex digests. */
        static final String NO_VERSION = "\"iggy-sink-no-such-version\"";
        volatile Boolean honoured;
    }

    /** Publishes {@code progress}, then deletes the object its writer published before, if another. */
    private void publish(Track t, PartitionProgress progress) throws StoreException {
        String key = progressKey(progress);
        store.put(key, FileBytes.of(progress.encode()), "text/plain");
        if (t.publishedKey != null && !t.publishedKey.equals(key)) {
            try {
                store.delete(t.publishedKey);
            } catch (StoreException e) {
                LOG.log(Level.DEBUG, "deleting " + t.publishedKey + " failed: " + e.getMessage());
            }
        }
        t.publishedKey = key;
    }

    /** The CRC32C of a file's bytes: the one its maker computed, or read once more here; -1 when unreadable. */
    static long crc32c(FileBytes content) {
        OptionalLong known = content.crc32c();
        if (known.isPresent()) return known.getAsLong();
        CRC32C crc = new CRC32C();
        try {
            content.forEachChunk(crc::update);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return crc.getValue();
    }

    /** Each partition's end offset, read at {@code readAt} (taken before the request was sent). */
    void ends(Map<PartitionRef, Long> endOffsets, Instant readAt) {
        long at = micros(readAt);
        endOffsets.forEach((p, end) -> ends.put(p, new long[] {end, at}));
    }

    /**
     * The key lookup found a durable file and is about to commit it (an assignment under way): it is listed in the
     * partition's progress first, so no commit ever runs ahead of the progress (ADR 0016).
     */
    void recovered(PartitionRef partition, String key, long size, long first, long last, Map<String, String> meta,
                   boolean deadLetter, boolean late) throws StoreException {
        try {
            // A file under late/ belongs to no folder's marker: only the offsets it reaches are published.
            listRecovered(partition, key, size, first, last, meta, deadLetter || late);
        } catch (StoreException e) {
            // A failure here says nothing about LIST: the assignment waits and tries again.
            throw e.retryable() ? e : new StoreException("publishing the progress of " + partition + " failed: "
                    + e.getMessage(), true, e.httpStatus(), null, e);
        }
    }

    private void listRecovered(PartitionRef partition, String key, long size, long first, long last,
                               Map<String, String> meta, boolean deadLetter) throws StoreException {
        Track t = assigning.get(partition);
        if (t == null) {
            t = new Track(-1);
            load(partition, t, first - 1);
            assigning.put(partition, t);
        }
        // The lookup skips to the group's offset when another member committed meanwhile: files before are unknown.
        if (first - 1 <= t.reach) t.reach = Math.max(t.reach, last);
        if (!deadLetter) {
            long records = ObjectStamps.records(meta).orElse(last - first + 1);
            long firstMicros = stampMicros(meta.get(ObjectStamps.FIRST));
            long lastMicros = stampMicros(meta.get(ObjectStamps.LAST));
            long crc = crc32c(FileBytes.of(store.get(key)));
            if (t.knownSince == Long.MAX_VALUE) t.knownSince = firstMicros;
            t.files.put(key, new FileEntry(FileEntry.folderOf(key), key, partition.partitionId(), first, last,
                    records, size, crc, firstMicros, lastMicros < 0 ? firstMicros : lastMicros));
        }
        List<FileEntry> files = new ArrayList<>(t.files.values());
        PartitionProgress progress = new PartitionProgress(partition.partitionId(), first - 1, last,
                t.inheritedAt <= first - 1 ? t.inheritedBefore : Long.MIN_VALUE, t.knownSince, Optional.empty(),
                files);
        publish(t, progress);
    }

    /**
     * The writer was assigned the partition: the group's offset was {@code groupOffset}, the key lookup committed up
     * to {@code committed}. Takes over the previous owner's progress when it lists files up to the group's offset.
     */
    void assigned(PartitionWriter w, long groupOffset, long committed) {
        Track t = assigning.remove(w.partition());
        if (t == null) {
            t = new Track(w.generation());
            try {
                load(w.partition(), t, groupOffset);
            } catch (StoreException e) {
                LOG.log(Level.DEBUG, "reading the progress of " + w.partition() + " failed; trying again: "
                        + e.getMessage());
                t.groupOffset = groupOffset;
            }
        }
        t.generation = w.generation();
        // Files listed but not committed, that the lookup did not find again, will be written again.
        t.files.values().removeIf(f -> f.lastOffset() > committed);
        if (t.reach < committed && t.knownSince != Long.MAX_VALUE) {
            t.files.clear();
            t.knownSince = Long.MAX_VALUE;
            LOG.log(Level.INFO, "partition " + w.partition() + ": the files up to offset " + committed + " are not all"
                    + " known (another member committed them meanwhile); its folders are marked from its next"
                    + " record's window on");
        }
        tracks.put(w.partition(), t);
    }

    private void load(PartitionRef p, Track t, long groupOffset) throws StoreException {
        t.groupOffset = groupOffset;
        Optional<PartitionProgress> before = readProgress(p.partitionId());
        t.loaded = true;
        t.progressBefore = before.map(PartitionProgress::completeBeforeMicros).orElse(Long.MIN_VALUE);
        boolean inherits = before.isPresent() ? before.get().listedUpTo() >= groupOffset : groupOffset < 0;
        // Without a progress that lists the files up to the group's offset, knownSince stands for those before it.
        t.reach = inherits ? before.map(PartitionProgress::listedUpTo).orElse(-1L) : groupOffset;
        if (inherits && before.isPresent()) {
            for (FileEntry f : before.get().files()) t.files.put(f.key(), f);
            t.knownSince = before.get().knownSinceMicros();
            t.inheritedBefore = before.get().completeBeforeMicros();
            t.inheritedAt = before.get().committed();
        } else if (!inherits) {
            // Files up to the group's offset are not all known: only windows after the next record can be marked.
            t.knownSince = Long.MAX_VALUE;
            LOG.log(Level.INFO, "partition " + p + ": no progress object lists its files up to offset " + groupOffset
                    + "; its folders are marked from its next record's window on");
        }
    }

    /** The newest progress object of each partition; older ones (a zombie's late PUT, a failed delete) are removed. */
    private Map<Integer, String> newestProgress() throws StoreException {
        Map<Integer, String> newest = new TreeMap<>();
        List<String> older = new ArrayList<>();
        redrivenListed.clear();
        for (var o : store.list(progressPrefix)) {
            String rest = o.key().substring(progressPrefix.length());
            if (rest.startsWith(REDRIVEN)) {
                redrivenListed.add(o.key());
                continue;
            }
            int slash = rest.indexOf('/');
            if (slash != 5 || !rest.endsWith(".progress")) continue;
            int partition;
            try {
                partition = Integer.parseInt(rest.substring(0, slash));
            } catch (NumberFormatException e) {
                continue;
            }
            String before = newest.put(partition, o.key());
            if (before != null) older.add(before.compareTo(o.key()) < 0 ? before : o.key());
            if (before != null && before.compareTo(o.key()) > 0) newest.put(partition, before);
        }
        for (String key : older) {
            try {
                store.delete(key);
            } catch (StoreException e) {
                LOG.log(Level.DEBUG, "deleting " + key + " failed: " + e.getMessage());
            }
        }
        return newest;
    }

    /** The newest progress of {@code partition}; listed again when a newer one replaced it meanwhile. */
    private Optional<PartitionProgress> readProgress(int partition) throws StoreException {
        for (int attempt = 1; ; attempt++) {
            String key = newestProgress().get(partition);
            try {
                return readProgress(key);
            } catch (StoreException e) {
                if (e.httpStatus() != 404 || attempt == 3) throw e;
            }
        }
    }

    private Optional<PartitionProgress> readProgress(String key) throws StoreException {
        if (key == null) return Optional.empty();
        return PartitionProgress.decode(store.get(key));
    }

    /** An assignment starts: what an earlier attempt learnt from the key lookup is void. */
    void assignmentStarts(PartitionRef partition) {
        assigning.remove(partition);
    }

    /** A file of the writer's current generation is durable. */
    void durable(PartitionWriter w, UploadResult result) {
        Track t = tracks.get(w.partition());
        if (t == null || t.generation != w.generation()) return;
        var file = result.job().file();
        if (w.routedLate(file.key())) {
            LOG.log(Level.WARNING, "late records: " + file.key() + " holds offsets " + file.firstOffset() + "-"
                    + file.lastOffset() + " of " + w.partition() + ", whose window its partition had already passed;"
                    + " it went under late/ and the folder's marker stays as it is (late_records = \"late_path\")");
            return;
        }
        if (file.reason() == RotationReason.DEAD_LETTER) return;
        long lastMicros = stampMicros(result.job().metadata().get(ObjectStamps.LAST));
        if (t.knownSince == Long.MAX_VALUE) t.knownSince = file.firstTimestampMicros();
        t.files.put(file.key(), new FileEntry(FileEntry.folderOf(file.key()), file.key(),
                file.partition().partitionId(), file.firstOffset(), file.lastOffset(), file.recordCount(),
                result.bytes(), result.crc32c(), file.firstTimestampMicros(),
                lastMicros < 0 ? file.firstTimestampMicros() : lastMicros));
    }

    /**
     * The rule of {@code late_records = "late_path"}: a record that opens a file is late when its window ends at or
     * before a time its partition has passed: a complete-before time its progress said (this member's or the
     * previous owner's), or a record read before it in this generation (whose file may be committed and published
     * before this one). So no file ever goes to a folder whose marker its partition's progress may already allow:
     * the folder's marker is never rewritten, and the late file goes under late/ instead.
     */
    boolean late(PartitionWriter w, long recordMicros, long latestBefore) {
        long passed = latestBefore;
        Track t = tracks.get(w.partition());
        if (t != null && t.generation == w.generation()) {
            passed = Math.max(passed, Math.max(t.publishedBefore, Math.max(t.inheritedBefore, t.progressBefore)));
        }
        return passed != Long.MIN_VALUE && template.window(recordMicros, zone)[1] <= passed;
    }

    /**
     * How far the writer may commit now: up to what its published progress covers. {@code wanted} is its commit
     * point.
     */
    OptionalLong allowed(PartitionWriter w, OptionalLong wanted) {
        if (wanted.isEmpty()) return wanted;
        Track t = tracks.get(w.partition());
        if (t == null || t.generation != w.generation() || t.published <= w.lastCommitted()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Math.min(wanted.getAsLong(), t.published));
    }

    /**
     * Once per interval (on every turn while stopping): publishes the progress of every owned partition whose
     * progress moved, then writes the markers now due.
     */
    void publishAndCombine(List<PartitionWriter> writers) {
        Instant now = clock.instant();
        boolean hurry = stopping.getAsBoolean();
        boolean published = false;
        for (PartitionWriter w : writers) {
            Track t = tracks.get(w.partition());
            if (t == null || t.generation != w.generation() || !w.owned()) continue;
            if (!hurry && now.isBefore(t.publishedAt.plus(interval))) continue;
            if (!t.loaded) {
                try {
                    load(w.partition(), t, t.groupOffset);
                } catch (StoreException e) {
                    w.error("reading the progress of completeness markers failed: " + e.getMessage());
                    continue;
                }
            }
            long upTo = w.committable().orElse(w.lastCommitted());
            long committed = w.lastCommitted();
            long before = completeBefore(w, t, committed);
            // Forgetting marked folders' files must not make the partition look less complete than it was.
            if (committed >= t.publishedCommitted) before = Math.max(before, t.publishedBefore);
            if (t.knownSince == Long.MAX_VALUE && idle(w, committed)) {
                // Nothing was read since the gap: every record up to it was stamped before the end was read.
                t.knownSince = ends.get(w.partition())[1] + SKEW.toNanos() / 1_000L;
            }
            Optional<String> held = w.haltReason();
            boolean idle = idle(w, committed);
            if (upTo == t.published && committed == t.publishedCommitted && before == t.publishedBefore
                    && held.equals(t.publishedHeld) && idle == t.publishedIdle) {
                continue;
            }
            List<FileEntry> files = new ArrayList<>();
            for (FileEntry f : t.files.values()) if (f.lastOffset() <= upTo) files.add(f);
            PartitionProgress progress = new PartitionProgress(w.partition().partitionId(), committed, upTo, before,
                    t.knownSince, held, idle, files);
            try {
                publish(t, progress);
                t.published = upTo;
                t.publishedCommitted = committed;
                t.publishedBefore = before;
                t.publishedHeld = held;
                t.publishedIdle = idle;
                t.publishedAt = now;
                published = true;
            } catch (StoreException e) {
                w.error("publishing the progress of completeness markers failed: " + e.getMessage());
            }
        }
        if (!now.isBefore(combinedAt.plus(interval)) || hurry && published) {
            combinedAt = now;
            combine(writers);
        }
    }

    /**
     * No record of the partition past {@code upTo} (its committed offset) is older than this: the time of the last record up to it (Iggy
     * stamps records on append, so times do not decrease along offsets), or, when nothing past it existed when the
     * end offset was last read, that moment less {@link #SKEW}.
     */
    private long completeBefore(PartitionWriter w, Track t, long upTo) {
        long before = Long.MIN_VALUE;
        if (t.inheritedAt <= upTo) before = t.inheritedBefore;
        for (FileEntry f : t.files.values()) if (f.lastOffset() <= upTo) before = Math.max(before, f.lastMicros());
        if (idle(w, upTo)) before = Math.max(before, ends.get(w.partition())[1] - SKEW.toNanos() / 1_000L);
        return before;
    }

    /** Whether the partition held nothing past {@code upTo} when its end offset was last read. */
    private boolean idle(PartitionWriter w, long upTo) {
        long[] end = ends.get(w.partition());
        return end != null && end[0] <= upTo && w.position() - 1 <= upTo && !w.halted();
    }

    private void combine(List<PartitionWriter> writers) {
        List<Integer> partitions = new ArrayList<>();
        Map<Integer, PartitionProgress> progress = new TreeMap<>();
        try {
            Map<Integer, String> newest = newestProgress();
            for (PartitionWriter w : writers) {
                int id = w.partition().partitionId();
                partitions.add(id);
                String key = newest.get(id);
                Optional<PartitionProgress> read;
                try {
                    read = readProgress(key);
                } catch (StoreException e) {
                    if (e.httpStatus() != 404) throw e;
                    read = readProgress(id);
                }
                read.ifPresent(p -> progress.put(id, p));
            }
        } catch (StoreException e) {
            waiting = "reading the progress objects failed (tried again in " + interval.toSeconds() + " s): "
                    + e.getMessage();
            return;
        }
        List<FileEntry> redriven = new ArrayList<>();
        redrivenEntries.clear();
        try {
            for (String key : redrivenListed) {
                for (FileEntry f : Markers.objectsOf(store.get(key), "")) {
                    FileEntry e = new FileEntry(FileEntry.folderOf(f.key()), f.key(), f.partition(), f.firstOffset(),
                            f.lastOffset(), f.records(), f.size(), f.crc32c(), f.firstMicros(), f.lastMicros());
                    redriven.add(e);
                    redrivenEntries.put(e.key(), key);
                }
            }
        } catch (StoreException e) {
            if (e.httpStatus() != 404) {
                waiting = "reading what redrive wrote failed (tried again in " + interval.toSeconds() + " s): "
                        + e.getMessage();
                return;
            }
        }
        Markers.Plan plan = Markers.plan(partitions, progress, redriven, first -> template.window(first, zone));
        for (Markers.Marker m : plan.due()) {
            try {
                write(m);
            } catch (StoreException e) {
                waiting = "writing the marker " + m.key(markerName) + " failed: " + e.getMessage();
                return;
            }
        }
        waiting = plan.oldestWaiting().orElse(null);
    }

    /** Creates the marker; when one exists, makes sure it lists every object this member knows in its folder. */
    private void write(Markers.Marker m) throws StoreException {
        String key = m.key(markerName);
        boolean known = marked.contains(m.folder());
        List<String> entries = new ArrayList<>();
        for (FileEntry f : m.files()) {
            if (redrivenEntries.containsKey(f.key())) entries.add(redrivenEntries.get(f.key()));
        }
        List<FileEntry> listedNow = m.files();
        if (!known && store.create(key, m.json(header, 1), Map.of())) {
            LOG.log(Level.INFO, "folder " + m.folder() + " is complete: wrote " + key + " (" + m.records()
                    + " records in " + m.files().size() + " objects)");
        } else {
            boolean mine = false;
            for (Track t : tracks.values()) {
                for (FileEntry f : t.files.values()) mine |= f.folder().equals(m.folder());
            }
            if (!known || mine || !entries.isEmpty()) {
                listedNow = relist(store, key, header, m, entries.isEmpty() ? "late" : "late or redriven",
                        ifMatch);
            }
        }
        forget(m.folder(), listedNow);
        Set<String> listedKeys = new HashSet<>();
        for (FileEntry f : listedNow) listedKeys.add(f.key());
        List<String> done = new ArrayList<>();
        for (FileEntry f : m.files()) {
            if (listedKeys.contains(f.key()) && redrivenEntries.containsKey(f.key())) {
                done.add(redrivenEntries.get(f.key()));
            }
        }
        dropRedriven(done);
    }

    /** The marker lists these redriven objects now: their entries have done their part. */
    private void dropRedriven(List<String> entries) {
        for (String e : entries) {
            try {
                store.delete(e);
            } catch (StoreException x) {
                LOG.log(Level.DEBUG, "deleting " + e + " failed: " + x.getMessage());
            }
        }
    }

    /**
     * Forgets the files of a marked folder that its marker lists. A late file made durable after the progress this
     * plan was read from (its partition publishes once per interval, the combine on its own timer) is not listed
     * yet: it stays, to be published and added by the marker's next version.
     */
    private void forget(String folder, List<FileEntry> listed) {
        marked.add(folder);
        if (marked.size() > 10_000) marked.remove(marked.iterator().next());
        Set<String> keys = new HashSet<>();
        for (FileEntry f : listed) keys.add(f.key());
        for (Track t : tracks.values()) t.files.values().removeIf(f -> keys.contains(f.key()));
    }

    /** Why the oldest folder of this topic holding records is not marked yet; empty when none waits. */
    Optional<String> waiting() {
        return Optional.ofNullable(waiting);
    }

    private static long stampMicros(String stamp) {
        if (stamp == null) return -1;
        int slash = stamp.lastIndexOf('/');
        try {
            return Long.parseLong(stamp.substring(slash + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static long micros(Instant i) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, i);
    }
}
