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
        final long generation;
        /** Whether the previous owner's progress was read (a failed read is tried again before a publish). */
        boolean loaded;
        long groupOffset;
        long knownSince = Long.MIN_VALUE;
        /** Durable files in folders not known to be marked, by key (uncommitted ones too). */
        final Map<String, FileEntry> files = new LinkedHashMap<>();
        /** The offset the last published progress covers; commits may go up to it. */
        long published = Long.MIN_VALUE;
        /** The complete-before time that progress said, so an unchanged one is not written again. */
        long publishedBefore = Long.MIN_VALUE;
        Instant publishedAt = Instant.MIN;
        /** What the previous owner's progress said complete-before was, at the offset it covered. */
        long inheritedBefore = Long.MIN_VALUE;
        long inheritedAt = Long.MIN_VALUE;

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
    /** Files the key lookup committed at an assignment still under way: (first, last, entry or null). */
    private final Map<PartitionRef, List<Object[]>> recovered = new HashMap<>();
    private final Map<PartitionRef, long[]> ends = new HashMap<>();
    /** Folders known to be marked (bounded: only to save requests). */
    private final Set<String> marked = new LinkedHashSet<>();
    private Instant combinedAt = Instant.MIN;
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

    String progressKey(int partition) {
        return progressPrefix + String.format("%05d", partition) + ".progress";
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

    /** The key lookup found a durable file and committed it, during an assignment still under way. */
    void recovered(PartitionRef partition, String key, long size, long first, long last, Map<String, String> meta,
                   boolean deadLetter) {
        FileEntry entry = null;
        if (!deadLetter) {
            long records = ObjectStamps.records(meta).orElse(last - first + 1);
            long firstMicros = stampMicros(meta.get(ObjectStamps.FIRST));
            long lastMicros = stampMicros(meta.get(ObjectStamps.LAST));
            long crc = -1;
            try {
                crc = crc32c(FileBytes.of(store.get(key)));
            } catch (StoreException e) {
                LOG.log(Level.DEBUG, "reading " + key + " for its checksum failed: " + e.getMessage());
            }
            if (firstMicros >= 0 && lastMicros >= 0) {
                entry = new FileEntry(FileEntry.folderOf(key), key, partition.partitionId(), first, last, records,
                        size, crc, firstMicros, lastMicros);
            }
        }
        recovered.computeIfAbsent(partition, p -> new ArrayList<>()).add(new Object[] {first, last, entry});
    }

    /**
     * The writer was assigned the partition: the group's offset was {@code groupOffset}, the key lookup committed up
     * to {@code committed}. Takes over the previous owner's progress when it covers the group's offset.
     */
    void assigned(PartitionWriter w, long groupOffset, long committed) {
        Track t = new Track(w.generation());
        t.groupOffset = groupOffset;
        tracks.put(w.partition(), t);
        load(w.partition(), t, committed);
    }

    private void load(PartitionRef p, Track t, long committed) {
        Optional<PartitionProgress> before;
        try {
            before = readProgress(p.partitionId());
        } catch (StoreException e) {
            LOG.log(Level.DEBUG, "reading the progress of " + p + " failed; trying again: " + e.getMessage());
            return;
        }
        t.loaded = true;
        List<Object[]> found = recovered.getOrDefault(p, List.of());
        recovered.remove(p);
        long covered = before.map(PartitionProgress::committed).orElse(-1L);
        boolean inherits = before.isPresent() ? covered >= t.groupOffset : t.groupOffset < 0;
        if (inherits) {
            for (FileEntry f : before.map(PartitionProgress::files).orElse(List.of())) {
                if (f.lastOffset() <= committed) t.files.put(f.key(), f);
            }
            t.knownSince = before.map(PartitionProgress::knownSinceMicros).orElse(Long.MIN_VALUE);
            if (before.isPresent() && before.get().committed() <= committed) {
                t.inheritedBefore = before.get().completeBeforeMicros();
                t.inheritedAt = before.get().committed();
            }
        }
        found.sort((a, b) -> Long.compare((Long) a[0], (Long) b[0]));
        long reach = inherits ? Math.max(covered, t.groupOffset) : t.groupOffset;
        boolean gap = !inherits;
        for (Object[] r : found) {
            if ((Long) r[0] > reach + 1) gap = true;
            reach = Math.max(reach, (Long) r[1]);
            if (r[2] != null) t.files.put(((FileEntry) r[2]).key(), (FileEntry) r[2]);
        }
        if (gap) {
            // Files up to the group's offset are not all known: only windows after the next record can be marked.
            t.files.clear();
            t.knownSince = Long.MAX_VALUE;
            for (Object[] r : found) {
                if ((Long) r[0] > t.groupOffset && r[2] != null) {
                    FileEntry f = (FileEntry) r[2];
                    t.knownSince = Math.min(t.knownSince, f.firstMicros());
                }
            }
            LOG.log(Level.INFO, "partition " + p + ": no progress object covers offset " + t.groupOffset
                    + "; its folders are marked from its next record's window on");
        }
    }

    private Optional<PartitionProgress> readProgress(int partition) throws StoreException {
        try {
            return PartitionProgress.decode(store.get(progressKey(partition)));
        } catch (StoreException e) {
            if (e.httpStatus() == 404) return Optional.empty();
            throw e;
        }
    }

    /** A file of the writer's current generation is durable. */
    void durable(PartitionWriter w, UploadResult result) {
        Track t = tracks.get(w.partition());
        if (t == null || t.generation != w.generation()) return;
        var file = result.job().file();
        if (file.reason() == RotationReason.DEAD_LETTER) return;
        long lastMicros = stampMicros(result.job().metadata().get(ObjectStamps.LAST));
        if (t.knownSince == Long.MAX_VALUE) t.knownSince = file.firstTimestampMicros();
        t.files.put(file.key(), new FileEntry(FileEntry.folderOf(file.key()), file.key(),
                file.partition().partitionId(), file.firstOffset(), file.lastOffset(), file.recordCount(),
                result.bytes(), result.crc32c(), file.firstTimestampMicros(),
                lastMicros < 0 ? file.firstTimestampMicros() : lastMicros));
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
                load(w.partition(), t, w.lastCommitted());
                if (!t.loaded) continue;
            }
            long upTo = w.committable().orElse(w.lastCommitted());
            long before = completeBefore(w, t, upTo);
            // Forgetting marked folders' files must not make the partition look less complete than it was.
            if (upTo >= t.published) before = Math.max(before, t.publishedBefore);
            if (t.knownSince == Long.MAX_VALUE && idle(w, upTo)) {
                // Nothing was read since the gap: every record up to it was stamped before the end was read.
                t.knownSince = ends.get(w.partition())[1] + SKEW.toNanos() / 1_000L;
            }
            if (upTo == t.published && before == t.publishedBefore) continue;
            List<FileEntry> files = new ArrayList<>();
            for (FileEntry f : t.files.values()) if (f.lastOffset() <= upTo) files.add(f);
            PartitionProgress progress = new PartitionProgress(w.partition().partitionId(), upTo, before,
                    t.knownSince, w.haltReason(), files);
            try {
                store.put(progressKey(w.partition().partitionId()), FileBytes.of(progress.encode()), "text/plain");
                t.published = upTo;
                t.publishedBefore = before;
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
     * No record of the partition past {@code upTo} is older than this: the time of the last record up to it (Iggy
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
        for (PartitionWriter w : writers) {
            int id = w.partition().partitionId();
            partitions.add(id);
            try {
                readProgress(id).ifPresent(p -> progress.put(id, p));
            } catch (StoreException e) {
                waiting = "reading the progress of partition " + id + " failed: " + e.getMessage();
                return;
            }
        }
        Markers.Plan plan = Markers.plan(partitions, progress, first -> template.window(first, zone));
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
        if (!known && store.create(key, m.json(header, 1), Map.of())) {
            LOG.log(Level.INFO, "folder " + m.folder() + " is complete: wrote " + key + " (" + m.records()
                    + " records in " + m.files().size() + " objects)");
            forget(m.folder());
            return;
        }
        List<FileEntry> mine = new ArrayList<>();
        for (Track t : tracks.values()) {
            for (FileEntry f : t.files.values()) if (f.folder().equals(m.folder())) mine.add(f);
        }
        if (!known || !mine.isEmpty()) {
            byte[] existing = store.get(key);
            Map<String, FileEntry> listed = new LinkedHashMap<>();
            for (FileEntry f : Markers.objectsOf(existing, m.folder())) listed.put(f.key(), f);
            List<String> late = new ArrayList<>();
            for (FileEntry f : m.files()) {
                if (listed.putIfAbsent(f.key(), f) == null) late.add(f.key());
            }
            if (!late.isEmpty()) {
                int version = Markers.versionOf(existing) + 1;
                store.put(key, FileBytes.of(new Markers.Marker(m.folder(), m.fromMicros(), m.toMicros(),
                        new ArrayList<>(listed.values())).json(header, version)), "application/json");
                LOG.log(Level.WARNING, "late records in the marked folder " + m.folder() + ": " + late + " were"
                        + " written there after its marker; " + key + " now lists them (version " + version + ")");
            }
        }
        forget(m.folder());
    }

    private void forget(String folder) {
        marked.add(folder);
        if (marked.size() > 10_000) marked.remove(marked.iterator().next());
        for (Track t : tracks.values()) t.files.values().removeIf(f -> f.folder().equals(folder));
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
