package dev.iggysink.application.service;

import dev.iggysink.application.audit.AuditPace;
import dev.iggysink.application.audit.AuditQueue;
import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.port.in.AuditUseCase.PartitionAudit;
import dev.iggysink.application.port.in.AuditUseCase.Range;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.Sleeper;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.KeyRange;
import dev.iggysink.domain.naming.ObjectKey;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sink's own continuous audit (issue 48): the checks of {@code audit} ({@link Audit}), run inside the sink on the
 * recent window of every partition this member owns, within a budget of store requests per minute.
 *
 * <p>Two kinds of work share the budget. After each commit, every object the commit passed is read back with one
 * HEAD and its metadata compared with what was written ({@link ObjectStamps}: offsets, record count, identity of the
 * first and last record): the PUT's answer proves the object was stored then, not that it is still the same object
 * once its offsets are committed (a lifecycle rule, an operator, or another writer of the same key may have been
 * there since). In rounds, each topic's objects are listed (where keys sort by time, only those from the oldest window
 * on, see {@link Target#keysSortByTime}) and each owned partition's last {@link #WINDOW_OBJECTS}
 * objects are checked as {@code audit} checks them: gaps up to the group's offset (a deleted object, or a group
 * offset ahead of the store), overlaps (a duplicate range), objects whose key disagrees with their metadata (read
 * once per object), and claims left behind past a commit. Under first-offset keys (ADR 0019) a key names only where
 * its file starts: the end comes from the same one read of the metadata (or from the commit that wrote it), which is
 * kept, so an object is read once however many rounds see it. A window with a finding stays open from where the finding
 * is until a round finds it clean. Content is not parsed: that is what {@code audit} does with the whole object.
 *
 * <p>Runs on its own thread ({@link #run}); {@link #committed} is called by the consumer loops, {@link #status} by
 * anyone.
 */
final class SelfAudit implements Runnable {
    private static final System.Logger LOG = System.getLogger(SelfAudit.class.getName());
    /** How many of a partition's most recent objects a round checks (more when a finding keeps the window open). */
    static final int WINDOW_OBJECTS = 16;
    /** Rounds start no more often than this; a budget that allows more leaves the rest unspent. */
    static final Duration ROUND_INTERVAL = Duration.ofSeconds(10);
    /** Committed objects waiting for their HEAD beyond this are not checked one by one (rounds still list them). */
    static final int QUEUE_LIMIT = 10_000;
    /** A LIST request returns at most this many keys. */
    private static final int KEYS_PER_LIST = 1000;
    private static final Pattern CLAIM = Pattern.compile("(\\d{5,})-(\\d{20})\\.claim");
    private static final List<String> STAMPS = List.of(ObjectStamps.OFFSETS, ObjectStamps.RECORDS,
            ObjectStamps.FIRST, ObjectStamps.LAST);

    /** An object a commit passed, with the metadata it was written with. */
    record Committed(PartitionRef partition, String key, long lastOffset, Map<String, String> metadata) {
    }

    /**
     * One topic: where its objects, dead letters and claims are listed. {@code claimPrefix} is empty when the sink
     * claims nothing there. {@code interleaved}: several files of a partition are open at once
     * ({@code max_open_files_per_partition > 1}), so their key ranges overlap by design and an overlap is a note,
     * not a failure. {@code firstOffsetKeys}: keys may name only the first offset (ADR 0019). {@code keysSortByTime}:
     * a partition's later files sort after its earlier ones (its path template's, {@code PathTemplate.keysSortByTime}),
     * so a round lists the keys from the oldest window on, not the topic's whole history.
     */
    record Target(String stream, String topic, String listPrefix, String excludeSegment, String deadLetterPrefix,
                  String claimPrefix, boolean interleaved, boolean firstOffsetKeys, boolean keysSortByTime) {
        Target(String stream, String topic, String listPrefix, String excludeSegment, String deadLetterPrefix,
               String claimPrefix, boolean interleaved, boolean firstOffsetKeys) {
            this(stream, topic, listPrefix, excludeSegment, deadLetterPrefix, claimPrefix, interleaved,
                    firstOffsetKeys, false);
        }

        Target(String stream, String topic, String listPrefix, String excludeSegment, String deadLetterPrefix,
               String claimPrefix, boolean interleaved) {
            this(stream, topic, listPrefix, excludeSegment, deadLetterPrefix, claimPrefix, interleaved, false);
        }

        Target(String stream, String topic, String listPrefix, String excludeSegment, String deadLetterPrefix,
               String claimPrefix) {
            this(stream, topic, listPrefix, excludeSegment, deadLetterPrefix, claimPrefix, false);
        }
    }

    private final ObjectStore store;
    private final List<Target> targets;
    private final Supplier<Collection<PartitionStatus>> partitions;
    private final InstantSource clock;
    private final AuditPace pace;

    private final AuditQueue<Committed> queue = new AuditQueue<>(QUEUE_LIMIT);
    /** Committed objects read back without any stamp: a store that keeps no user metadata; the latest of them. */
    private long unstamped;
    private String lastUnstamped;

    // Owned by the auditing thread.
    private long verified;
    private final Map<PartitionRef, Window> windows = new LinkedHashMap<>();
    /** Committed objects not found as written, by key; checked again each round until they are. */
    private final Map<String, Suspect> suspects = new LinkedHashMap<>();
    /**
     * Keys whose metadata was read and found right, per partition; only those of its current window (and the object
     * just before it) are kept. An object listed with another size is read again.
     */
    private final Map<PartitionRef, Map<String, Known>> checked = new HashMap<>();
    /** Per partition, the first key (in the store's order) of the objects committed since its last round. */
    private final Map<PartitionRef, String> committedSince = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile AuditStatus status;
    /** Claims the uploader will still delete (their batch waits or is on its way): not left behind. */
    private volatile java.util.function.Predicate<String> removalPending = key -> false;

    /** What the last round found of one partition. */
    /**
     * {@code firstKey}, {@code lastKey}: the first and the last of its objects' keys in the store's order, null when
     * it has none; {@code newestLast}: the last offset its objects reach (-1: none).
     */
    private record Window(Target target, PartitionRef partition, long from, long committed, int objects, Instant at,
                          List<String> gaps, List<String> overlaps, List<String> mismatches, List<String> notes,
                          int claimsLeft, long stickyFrom, String firstKey, String lastKey, long newestLast) {
        boolean failing() {
            return !gaps.isEmpty() || !overlaps.isEmpty() || !mismatches.isEmpty();
        }
    }

    private record Suspect(Committed object, String problem) {
    }

    /**
     * A listed object. {@code firstOnly}: its key names only its first offset, and {@code range} ends there until its
     * metadata is read.
     */
    private record Listed(KeyRange range, String key, long size, boolean firstOnly) {
    }

    /** An object found right: the size it was listed with (-1 until first listed) and its last offset. */
    private record Known(long size, long last) {
    }

    SelfAudit(ObjectStore store, List<Target> targets, Supplier<Collection<PartitionStatus>> partitions,
              int requestsPerMinute, InstantSource clock, Sleeper sleeper, BooleanSupplier stopping) {
        this.pace = new AuditPace(requestsPerMinute, ROUND_INTERVAL, clock, sleeper, stopping);
        this.store = store;
        this.targets = List.copyOf(targets);
        this.partitions = partitions;
        this.clock = clock;
        this.status = AuditStatus.none(requestsPerMinute);
    }

    /** Objects a commit passed: each is read back once the budget allows. Called by the consumer loops. */
    void committed(List<Committed> objects) {
        for (Committed c : objects) {
            queue.add(c);
            if (ObjectKey.parse(c.key()).or(() -> ObjectKey.parseFirst(c.key())).isPresent()) {
                committedSince.merge(c.partition(), c.key(), (a, b) -> a.compareTo(b) <= 0 ? a : b);
            }
        }
    }

    AuditStatus status() {
        return status;
    }

    @Override
    public void run() {
        pace.run(this::round, this::failed);
    }

    /** One round: the committed objects waiting to be read back, then every topic's owned partitions. */
    synchronized void round() throws InterruptedException, StoreException {
        verifyCommitted();
        for (Target t : targets) audit(t);
        pace.ended();
        publish();
    }

    private synchronized void failed(Exception e) {
        pace.failed(e);
        LOG.log(Level.WARNING, "self-audit round failed; trying again in " + ROUND_INTERVAL.toSeconds() + " s: "
                + e.getMessage());
        publish();
    }

    private void verifyCommitted() throws InterruptedException, StoreException {
        // At most half a minute's budget per round, so rounds go on under a steady stream of commits.
        int allowed = Math.max(1, pace.perMinute() / 2);
        for (int i = 0; i < allowed && !pace.stopping(); i++) {
            Committed c = queue.poll();
            if (c == null) return;
            verify(c);
            verified++;
            // A long queue takes most of a minute at the budget's pace: /status and the meters follow it meanwhile.
            if (verified % 16 == 0) publish();
        }
    }

    /** Reads {@code c} back; a problem stays open (and is read again each round) until the object is as written. */
    private boolean verify(Committed c) throws InterruptedException, StoreException {
        pace.spend(1);
        Optional<Map<String, String>> found = store.metadata(c.key());
        Optional<String> problem;
        if (found.isEmpty()) {
            problem = Optional.of(c.key() + " was committed (offsets up to " + c.lastOffset() + " of "
                    + c.partition() + ") and is not in the store");
        } else if (!c.metadata().isEmpty() && !ObjectStamps.stamped(found.get())
                && !found.get().containsKey(ObjectStamps.OFFSETS)) {
            // Present, but the store returned no metadata at all: one that keeps none cannot be judged by it.
            unstamped++;
            lastUnstamped = c.key();
            problem = Optional.empty();
        } else {
            problem = differs(c, found.get());
        }
        if (problem.isPresent()) {
            if (!suspects.containsKey(c.key())) LOG.log(Level.ERROR, "self-audit: " + problem.get());
            suspects.put(c.key(), new Suspect(c, problem.get()));
            return false;
        }
        suspects.remove(c.key());
        checked.computeIfAbsent(c.partition(), p -> new HashMap<>())
                .putIfAbsent(c.key(), new Known(-1, c.lastOffset()));
        return true;
    }

    private static Optional<String> differs(Committed c, Map<String, String> found) {
        for (String name : STAMPS) {
            String wrote = c.metadata().get(name);
            if (wrote != null && !wrote.equals(found.get(name))) {
                return Optional.of(c.key() + " is not the object committed: its metadata " + name + " is "
                        + found.get(name) + ", the sink wrote " + wrote);
            }
        }
        return Optional.empty();
    }

    private void audit(Target t) throws InterruptedException, StoreException {
        Map<PartitionRef, Long> owned = new LinkedHashMap<>();
        for (PartitionStatus s : partitions.get()) {
            if (s.owned() && s.stream().equals(t.stream()) && s.topic().equals(t.topic())) {
                owned.put(new PartitionRef(s.stream(), s.topic(), s.partition()), s.committed());
            }
        }
        windows.keySet().removeIf(p -> p.stream().equals(t.stream()) && p.topic().equals(t.topic())
                && !owned.containsKey(p));
        checked.keySet().removeIf(p -> !owned.containsKey(p) && p.stream().equals(t.stream())
                && p.topic().equals(t.topic()));
        if (owned.isEmpty()) return;
        for (Suspect s : List.copyOf(suspects.values())) {
            if (owned.containsKey(s.object().partition())) verify(s.object());
            else if (s.object().partition().stream().equals(t.stream())
                    && s.object().partition().topic().equals(t.topic())) suspects.remove(s.object().key());
        }
        // The group's offsets are read before the listing: every object they need is in the store by then.
        Map<PartitionRef, String> since = new HashMap<>();
        for (PartitionRef p : owned.keySet()) {
            String first = committedSince.remove(p);
            if (first != null) since.put(p, first);
        }
        List<String[]> ranges = t.keysSortByTime() ? ranges(owned, since) : null;
        List<StoredObject> listed;
        if (ranges == null) {
            listed = list(t.listPrefix(), "", "");
        } else {
            listed = new ArrayList<>();
            for (String[] r : ranges) listed.addAll(list(t.listPrefix(), r[0], r[1]));
        }
        Map<Integer, List<Long>> claims = t.claimPrefix().isEmpty() ? Map.of() : claims(t.claimPrefix());
        Map<PartitionRef, Window> found = windows(t, owned, listed, claims);
        // A key outside those ranges (a record time from a clock that went back) is not in that listing: a gap is said
        // only when the whole listing has it too.
        if (ranges != null && found.values().stream().anyMatch(w -> !w.gaps().isEmpty())) {
            found = windows(t, owned, list(t.listPrefix(), "", ""), claims);
        }
        for (Window w : found.values()) {
            Window before = windows.get(w.partition());
            if (w.failing() && (before == null || !before.failing())) {
                LOG.log(Level.ERROR, "self-audit of " + w.partition() + " found: " + String.join("; ", problems(w)));
            } else if (!w.failing() && before != null && before.failing()) {
                LOG.log(Level.INFO, "self-audit of " + w.partition() + " finds it whole again from offset "
                        + w.from());
            }
            windows.put(w.partition(), w);
        }
    }

    /**
     * What a round lists of a topic whose keys sort by time ({@link Target#keysSortByTime}): key ranges
     * {@code {start-after, until}} ({@code until} empty: to the end), or null for the whole topic. Each owned
     * partition's window as the last round saw it (up to any key with its newest object's first offset), and, from
     * the first object this member committed since (else the newest known) of each partition whose group offset has
     * passed its newest object, everything after: its new objects sort there. A partition without objects sets no bound; one whose group offset moves without a window object
     * to start from, or one given to this member since, takes the whole topic (its objects may be anywhere).
     */
    private List<String[]> ranges(Map<PartitionRef, Long> owned, Map<PartitionRef, String> since) {
        List<String[]> ranges = new ArrayList<>();
        String tail = null;
        for (Map.Entry<PartitionRef, Long> e : owned.entrySet()) {
            Window w = windows.get(e.getKey());
            if (w == null) return null;
            boolean moved = e.getValue() > w.newestLast();
            if (w.firstKey() == null) {
                if (moved) return null;
                continue;
            }
            ranges.add(new String[] {justBefore(w.firstKey()), sameStart(w.lastKey())});
            // Its new objects sort from the first this member committed since; without one, from its newest known.
            String from = since.getOrDefault(e.getKey(), w.lastKey());
            if (moved && (tail == null || from.compareTo(tail) < 0)) tail = from;
        }
        if (tail != null) ranges.add(new String[] {justBefore(tail), ""});
        ranges.sort(Comparator.comparing((String[] r) -> r[0]));
        List<String[]> merged = new ArrayList<>();
        for (String[] r : ranges) {
            String[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (last != null && (last[1].isEmpty() || r[0].compareTo(last[1]) < 0)) {
                if (!last[1].isEmpty() && (r[1].isEmpty() || r[1].compareTo(last[1]) > 0)) last[1] = r[1];
            } else {
                merged.add(r.clone());
            }
        }
        return merged;
    }

    /** A start-after that lists {@code key} itself: it without its last character sorts just before it. */
    private static String justBefore(String key) {
        return key.substring(0, key.length() - 1);
    }

    /**
     * The last key that starts a file where {@code key}'s starts: another cut of the same start (its end differs) sorts
     * beside it, and is an overlap to be seen.
     */
    private static String sameStart(String key) {
        int name = key.lastIndexOf('/') + 1;
        int dash = key.indexOf('-', name);
        if (dash < 0 || key.length() < dash + 21) return key;
        return key.substring(0, dash + 21) + Character.MAX_VALUE;
    }

    /** The window of each owned partition of {@code t}, from the keys {@code listed}. Logs nothing. */
    private Map<PartitionRef, Window> windows(Target t, Map<PartitionRef, Long> owned, List<StoredObject> listed,
                                              Map<Integer, List<Long>> claims)
            throws InterruptedException, StoreException {
        Map<Integer, List<Listed>> byPartition = new HashMap<>();
        for (StoredObject o : listed) {
            if (!t.excludeSegment().isEmpty() && o.key().contains("/" + t.excludeSegment() + "/")) continue;
            Optional<KeyRange> r = ObjectKey.parse(o.key());
            boolean firstOnly = false;
            if (r.isEmpty() && t.firstOffsetKeys() && !("/" + o.key()).contains("/" + Claims.NAME + "/")) {
                r = ObjectKey.parseFirst(o.key());
                firstOnly = r.isPresent();
            }
            if (r.isEmpty()) continue;
            byPartition.computeIfAbsent(r.get().partitionId(), k -> new ArrayList<>())
                    .add(new Listed(r.get(), o.key(), o.size(), firstOnly));
        }
        List<StoredObject> letters = null;
        Instant now = clock.instant();
        Map<PartitionRef, Window> out = new LinkedHashMap<>();
        for (Map.Entry<PartitionRef, Long> e : owned.entrySet()) {
            PartitionRef p = e.getKey();
            long committed = e.getValue();
            List<Listed> all = new ArrayList<>(byPartition.getOrDefault(p.partitionId(), List.of()));
            all.sort(Comparator.comparingLong((Listed a) -> a.range().firstOffset())
                    .thenComparingLong(a -> a.range().lastOffset()));
            Window before = windows.get(p);
            long from = all.isEmpty() ? 0 : all.get(Math.max(0, all.size() - WINDOW_OBJECTS)).range().firstOffset();
            if (before != null && before.failing()) from = Math.min(from, before.stickyFrom());
            // A key naming only its first offset may end inside the window: the object just before it is read too.
            int justBefore = -1;
            for (int i = 0; i < all.size(); i++) if (all.get(i).range().firstOffset() < from) justBefore = i;
            List<Listed> window = new ArrayList<>();
            String firstKey = null;
            String lastKey = null;
            for (int i = 0; i < all.size(); i++) {
                Listed a = all.get(i);
                boolean inside = a.firstOnly() ? a.range().firstOffset() >= from || i == justBefore
                        : a.range().lastOffset() >= from;
                if (!inside) continue;
                window.add(a);
                if (firstKey == null || a.key().compareTo(firstKey) < 0) firstKey = a.key();
                if (lastKey == null || a.key().compareTo(lastKey) > 0) lastKey = a.key();
            }
            List<String> mismatches = new ArrayList<>();
            Map<String, Known> known = checked.computeIfAbsent(p, x -> new HashMap<>());
            known.keySet().retainAll(window.stream().map(Listed::key).toList());
            List<KeyRange> ranges = new ArrayList<>();
            List<String> keys = new ArrayList<>();
            for (Listed a : window) {
                Optional<KeyRange> range = range(a, known, mismatches);
                if (range.isEmpty() || range.get().lastOffset() < from) continue;
                ranges.add(range.get());
                keys.add(a.key());
            }
            PartitionAudit coverage = Audit.coverage(p, committed, ranges, keys, mismatches);
            List<Range> gaps = new ArrayList<>();
            for (Range g : coverage.gaps()) {
                if (g.last() < from) continue;
                gaps.add(new Range(Math.max(from, g.first()), g.last()));
            }
            if (!gaps.isEmpty()) {
                // A dead-lettered record is delivered; its offset is no gap.
                if (letters == null) letters = list(t.deadLetterPrefix());
                List<Long> dead = new ArrayList<>();
                for (StoredObject o : letters) {
                    DeadLetters.offset(o.key().substring(t.deadLetterPrefix().length()), p.partitionId())
                            .ifPresent(dead::add);
                }
                dead.sort(null);
                List<Range> left = new ArrayList<>();
                for (Range g : gaps) left.addAll(Audit.without(g, dead));
                gaps = left;
            }
            List<String> gapLines = new ArrayList<>();
            for (Range g : gaps) gapLines.add(gapLine(p, g, committed, ranges, keys));
            List<String> overlapLines = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            for (String o : coverage.overlaps()) {
                if (t.interleaved()) notes.add(p + ": " + o + " (files open at once interleave their ranges)");
                else overlapLines.add(p + ": " + o);
            }
            int claimsLeft = 0;
            long passed = before == null ? -1 : Math.min(before.committed(), committed);
            // A run claim stays until its run's end is committed (ADR 0020): only the greatest claim at or below the
            // committed offset can be one whose run goes on past it, so only that one is read.
            long greatest = -1;
            for (long first : claims.getOrDefault(p.partitionId(), List.of())) {
                if (first <= passed) greatest = Math.max(greatest, first);
            }
            boolean runGoesOn = greatest >= 0 && runGoesOnPast(t, p, greatest, passed);
            for (long first : claims.getOrDefault(p.partitionId(), List.of())) {
                // Removed by the commit past it (asynchronously): one left a round after that is left behind.
                if (first <= passed && !(runGoesOn && first == greatest)) {
                    claimsLeft++;
                    notes.add(p + ": the claim of the file from offset " + first + " is still in the store,"
                            + " though offset " + passed + " is committed (a lifecycle rule on the claims prefix"
                            + " removes it)");
                }
            }
            long sticky = from;
            for (Range g : gaps) sticky = Math.min(sticky, g.first());
            long newestLast = -1;
            for (KeyRange r : ranges) newestLast = Math.max(newestLast, r.lastOffset());
            out.put(p, new Window(t, p, from, committed, ranges.size(), now, gapLines, overlapLines, mismatches,
                    notes, claimsLeft, sticky, firstKey, lastKey, newestLast));
        }
        return out;
    }

    /**
     * The range of a listed object: known since its commit's read-back or an earlier round while its size stays the
     * same, else read (one HEAD) and its metadata checked against its key. Empty when a first-offset key is gone since
     * the listing or its metadata names no range from its first offset (a mismatch).
     */
    private Optional<KeyRange> range(Listed a, Map<String, Known> known, List<String> mismatches)
            throws InterruptedException, StoreException {
        String key = a.key();
        Known k = known.get(key);
        if (k != null && k.size() == -1) { // read back after its commit, listed now
            k = new Known(a.size(), k.last());
            known.put(key, k);
        }
        if (k != null && k.size() == a.size()) return Optional.of(ended(a, k.last()));
        Suspect suspect = suspects.get(key);
        if (suspect != null) return Optional.of(ended(a, suspect.object().lastOffset()));
        known.remove(key);
        pace.spend(1);
        Optional<Map<String, String>> metadata = store.metadata(key);
        // Gone since the listing: the next round sees the gap (a first-offset key's end is not known meanwhile).
        if (metadata.isEmpty()) return a.firstOnly() ? Optional.empty() : Optional.of(a.range());
        Optional<KeyRange> range = a.firstOnly()
                ? Audit.firstOffsetRange(key, a.range(), metadata.get(), mismatches) : Optional.of(a.range());
        if (range.isEmpty()) return range;
        Optional<String> problem = Audit.metadataProblem(key, range.get(), metadata.get());
        if (problem.isPresent()) mismatches.add(problem.get());
        else known.put(key, new Known(a.size(), range.get().lastOffset()));
        return range;
    }

    /** {@code a}'s range: its key's, or, for a key naming only its first offset, up to {@code last}. */
    private static KeyRange ended(Listed a, long last) {
        KeyRange r = a.range();
        return a.firstOnly() && last >= r.firstOffset() ? new KeyRange(r.partitionId(), r.firstOffset(), last) : r;
    }

    private static List<String> problems(Window w) {
        List<String> out = new ArrayList<>(w.gaps());
        out.addAll(w.overlaps());
        out.addAll(w.mismatches());
        return out;
    }

    /** A gap, named by the objects on either side of it. */
    private static String gapLine(PartitionRef p, Range g, long committed, List<KeyRange> ranges, List<String> keys) {
        String beforeKey = null;
        String afterKey = null;
        for (int i = 0; i < ranges.size(); i++) {
            if (ranges.get(i).lastOffset() < g.first()) beforeKey = keys.get(i);
            if (afterKey == null && ranges.get(i).firstOffset() > g.last()) afterKey = keys.get(i);
        }
        String offsets = g.first() == g.last() ? "offset " + g.first() + " is" : "offsets " + g + " are";
        if (afterKey == null && g.last() == committed) {
            return p + ": the group's offset " + committed + " is ahead of the store: " + offsets + " in no object"
                    + (beforeKey == null ? " (the partition has no object)" : " after " + beforeKey);
        }
        return p + ": " + offsets + " committed and in no object (between " + (beforeKey == null ? "the start"
                : beforeKey) + " and " + (afterKey == null ? "the group's offset " + committed : afterKey) + ")";
    }

    /** Whether the claim at {@code first} is a run claim whose run goes on past {@code passed} (one HEAD). */
    private boolean runGoesOnPast(Target t, PartitionRef p, long first, long passed)
            throws InterruptedException, StoreException {
        pace.spend(1);
        Optional<Map<String, String>> meta = store.metadata(t.claimPrefix()
                + String.format("%05d-%020d.claim", p.partitionId(), first));
        if (meta.isEmpty()) return true; // removed since the listing: not left behind
        String end = meta.get().getOrDefault(Claims.RUN_END, meta.get().get(Claims.RUN_UNTIL));
        try {
            return end != null && Long.parseLong(end.trim()) > passed;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Tells which claims the sink is still deleting (in batches, ADR 0013), so that they are not noted. */
    void removalPending(java.util.function.Predicate<String> pending) {
        this.removalPending = pending;
    }

    /** The first offsets of the claims under {@code prefix}, by partition, but those the sink is still deleting. */
    private Map<Integer, List<Long>> claims(String prefix) throws InterruptedException, StoreException {
        Map<Integer, List<Long>> out = new HashMap<>();
        for (StoredObject o : list(prefix)) {
            if (removalPending.test(o.key())) continue;
            Matcher m = CLAIM.matcher(o.key().substring(o.key().lastIndexOf('/') + 1));
            if (!m.matches()) continue;
            try {
                out.computeIfAbsent(Integer.parseInt(m.group(1)), k -> new ArrayList<>())
                        .add(Long.parseLong(m.group(2)));
            } catch (NumberFormatException ignored) {
                // not a claim this sink wrote
            }
        }
        return out;
    }

    private List<StoredObject> list(String prefix) throws InterruptedException, StoreException {
        return list(prefix, "", "");
    }

    private List<StoredObject> list(String prefix, String startAfter, String until)
            throws InterruptedException, StoreException {
        pace.spend(1);
        List<StoredObject> listed = startAfter.isEmpty() && until.isEmpty() ? store.list(prefix)
                : store.list(prefix, startAfter, until);
        // One request per page of keys; the pages past the first are paid after the fact.
        int pages = (listed.size() + KEYS_PER_LIST - 1) / KEYS_PER_LIST;
        if (pages > 1) pace.spend(pages - 1);
        return listed;
    }


    private void publish() {
        List<AuditStatus.Covered> covered = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        int gaps = 0, overlaps = 0, mismatches = 0, claims = 0;
        for (Window w : windows.values()) {
            covered.add(new AuditStatus.Covered(w.partition().stream(), w.partition().topic(),
                    w.partition().partitionId(), w.from(), w.committed(), w.objects(), w.at()));
            problems.addAll(problems(w));
            notes.addAll(w.notes());
            gaps += w.gaps().size();
            overlaps += w.overlaps().size();
            mismatches += w.mismatches().size();
            claims += w.claimsLeft();
        }
        for (Suspect s : suspects.values()) problems.add(s.problem());
        if (unstamped > 0) {
            notes.add(unstamped + " committed object(s) came back without x-amz-meta-iggy-* metadata (e.g. "
                    + lastUnstamped + "): the store keeps no user metadata, or another writer replaced them; their"
                    + " identity was not checked");
        }
        status = pace.status(verified, queue.skipped(), covered, problems, notes,
                new AuditStatus.Counts(gaps, overlaps, mismatches, suspects.size(), claims));
    }
}
