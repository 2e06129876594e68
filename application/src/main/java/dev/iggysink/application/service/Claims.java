package dev.iggysink.application.service;

import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.KeySanitizer;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.domain.naming.PathTemplate;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * Claims decide where a partition's files are cut when two members write it at once (the old owner still uploading
 * while the new one starts). Before a file is uploaded, its member creates a small claim object keyed by the
 * partition and the file's first offset, with a conditional write ({@code If-None-Match: *}), naming the file's
 * range. The store is the one place both members meet, and it lets only one claim per first offset exist: whoever
 * claims first decides the cut. A member whose claim is refused reads the claim; if it names the same range, both
 * uploads hold the same records under the same key (one object); if not, the member drops its file and the
 * partition is assigned anew, where the key lookup adopts the claim's cut. Why and what it costs:
 * docs/adr/0013-claims-decide-the-cut.md.
 *
 * <p>Claims live under {@code [prefix/]_claims/<space>/<stream>/<topic>/<partition:05>-<first:020>.claim}, where
 * {@code <space>} ({@link #space}) is one sink's own: a claim of one sink never decides, blocks, forces or removes
 * anything of another sink on the same prefix (another consumer group, path template or format). The member that
 * commits past a claim removes it; a lifecycle rule on {@code [prefix/]_claims/} removes what a crash left behind
 * (README). Claims of the layout without a space, left by an earlier version, are read by nobody.
 *
 * <p>A store that ignores the condition cannot decide anything: before the sink's first poll a probe key is created
 * twice, and if the second create is not refused, claims are off with one warning (the behaviour before claims).
 * Without a clean answer nothing is uploaded unclaimed ({@link #on}). Thread-safe.
 */
final class Claims {
    private static final System.Logger LOG = System.getLogger(Claims.class.getName());
    static final String NAME = "_claims";
    private static final int PROBE_ROUNDS = 3;

    /** What a claim attempt found. */
    enum Outcome {
        /** This member created the claim: its cut stands. */
        CREATED,
        /** A claim for the same range existed: both members write the same object. */
        SAME_CUT,
        /** A claim for another range existed: this member's file must not be uploaded. */
        OTHER_CUT
    }

    record Result(Outcome outcome, long claimedLast) {
    }

    /**
     * The metadata of a run claim: the last offset of the run. A run claim at {@code first} names its first file's
     * range ({@code first..last}) and decides, besides, every cut up to this offset: files of {@code last - first + 1}
     * offsets each, one after the other (docs/adr/0020-run-claims.md).
     */
    static final String RUN_END = "iggy-run-end";

    /**
     * The metadata of a run claim of size cuts (docs/adr/0022-run-claims-of-size-cuts.md): the offset up to which
     * the run's files are cut by the rotation's limits from the run's start ({@link #RUN_RULE} names them), not by
     * a stride. A name of its own, so that a member that knows only stride runs ({@link #RUN_END}) reads it as a
     * claim of one file rather than cutting strides.
     */
    static final String RUN_UNTIL = "iggy-run-until";
    static final String RUN_RULE = "iggy-run-rule";

    /** The most files a run claim decides, and the most offsets it spans (what the lookup lists below an offset). */
    static final int MAX_RUN_FILES = 16;
    static final long MAX_RUN_SPAN = 1L << 20;

    /**
     * The claim's metadata naming the CRC32C of the claimed file's key: one range can go to two keys (its folder, or
     * the topic's late/ folder when late records are routed there), and only the same key is the same object.
     */
    static final String KEY_CRC = "iggy-key-crc32c";

    /**
     * A claim read back: the last offset of its (first) file, the CRC32C of that file's key (empty in older claims),
     * and for a run claim the run's last offset ({@link #RUN_END} or {@link #RUN_UNTIL}; -1 for a claim of one
     * file) and, for a run of size cuts, its rule ({@link #RUN_RULE}; null for a stride run).
     */
    record Claimed(long last, Optional<String> keyCrc, long runEnd, String rule) {
        Claimed(long last, Optional<String> keyCrc) {
            this(last, keyCrc, -1, null);
        }

        /** Whether the claimed file has {@code key} (a claim that does not say is taken as having it). */
        boolean names(String key) {
            return keyCrc.isEmpty() || keyCrc.get().equals(Claims.keyCrc(key));
        }
    }

    static String keyCrc(String key) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return String.format("%08x", crc.getValue());
    }

    /** Whether the store honours conditional writes: one answer for every claim space of a sink. */
    private static final class Decision {
        /** Null until probed with a clean answer. */
        volatile Boolean honoured;
        /** Whether a consumer thread probed before its first poll (guarded by the instance). */
        boolean probedAtStart;
    }

    private final ObjectStore store;
    private final String prefix;
    /** The claim space of one sink ({@link #space}); empty for the sink-wide instance, which claims nothing. */
    private final String space;
    private final Decision decision;

    Claims(ObjectStore store, String prefix) {
        this(store, prefix, "", new Decision());
    }

    private Claims(ObjectStore store, String prefix, String space, Decision decision) {
        this.store = store;
        this.prefix = prefix;
        this.space = space;
        this.decision = decision;
    }

    /** The claims of one sink's space, sharing this instance's answer of the store ({@link #on}). */
    Claims in(String space) {
        return new Claims(store, prefix, space, decision);
    }

    /**
     * A short stable name of everything that makes one sink's object keys and cuts its own: the consumer group
     * (whose offsets the cuts follow), the path template with what renders it (time zone, placeholder of a missing
     * field) and the file extension (format and compression). Two sinks that differ in any of them write other
     * objects, so their claims must never meet; members whose settings differ only in what never reaches a key
     * (slashes at the template's ends, which keys trim; a zone the template renders no time with; a placeholder it
     * renders no field with) write the same objects, so they must claim in one space.
     */
    static String space(String consumerGroup, OutputSettings output, String extension) {
        PathTemplate template = PathTemplate.parse(output.pathTemplate());
        // The zone normalized: "UTC" and "Etc/UTC" render the same keys and must not split one group's claims.
        String identity = String.join("\0", consumerGroup, ObjectKey.trimSlashes(output.pathTemplate()),
                template.usesTime() ? output.timezone().normalized().getId() : "",
                template.usesFields() ? output.missingFieldPlaceholder() : "", extension);
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
            return "s" + HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** The name of this instance's claim space ({@link #space(String, OutputSettings, String)}). */
    String space() {
        return space;
    }

    static String key(String prefix, String space, PartitionRef partition, long first) {
        StringBuilder sb = new StringBuilder();
        if (!prefix.isEmpty()) sb.append(prefix).append('/');
        sb.append(NAME).append('/');
        if (!space.isEmpty()) sb.append(space).append('/');
        sb.append(KeySanitizer.sanitize(partition.stream())).append('/')
                .append(KeySanitizer.sanitize(partition.topic())).append('/')
                .append(String.format("%05d-%020d.claim", partition.partitionId(), first));
        return sb.toString();
    }

    String key(PartitionRef partition, long first) {
        return key(prefix, space, partition, first);
    }

    /**
     * Whether claims are on. Until the store gave a clean answer, each call probes it: a store that ignores the
     * condition turns claims off; one that honours it, on. Without a clean answer no file may go up unclaimed (the
     * other members of the group may rely on claims), so the probe's failure is thrown and the upload waits as for
     * any failing call: retryable when the answers were only odd, the store's 403 when every round was refused.
     */
    boolean on() throws StoreException {
        Boolean h = decision.honoured;
        if (h != null) return h;
        synchronized (decision) {
            if (decision.honoured != null) return decision.honoured;
            decision.honoured = probe();
            return decision.honoured;
        }
    }

    /**
     * Probes the store before the sink's first poll (each consumer thread calls this first; the first one probes,
     * the others wait for its answer), so that a store that ignores conditional writes is known (and said) before
     * anything is consumed. A failure is logged and left to the first claim, which probes again.
     */
    void probeAtStart() {
        synchronized (decision) {
            if (decision.probedAtStart) return;
            decision.probedAtStart = true;
            try {
                on();
            } catch (StoreException | RuntimeException e) {
                LOG.log(Level.WARNING, "cannot tell yet whether the object store honours conditional writes ("
                        + e.getMessage() + "): files wait for a clean answer before they are uploaded");
            }
        }
    }

    /** Whether claims are known to be on, without probing. */
    boolean knownOn() {
        return Boolean.TRUE.equals(decision.honoured);
    }

    /**
     * Creates a fresh key twice, in up to {@link #PROBE_ROUNDS} rounds. Only a store that takes both creates ignores
     * the condition; one that refuses both honours it. Any other answer (the first create refused, a 403) is not
     * taken as the store's nature: a single-drive MinIO gives each now and then while other keys of the prefix are
     * deleted, and claims off would cost exactly-once across rebalances, for this member while the others claim.
     */
    private boolean probe() throws StoreException {
        StoreException denied = null;
        int deniedRounds = 0;
        for (int round = 0; round < PROBE_ROUNDS; round++) {
            String key = (prefix.isEmpty() ? "" : prefix + "/") + NAME + "/.conditional-write-probe-"
                    + UUID.randomUUID();
            byte[] body = "probe\n".getBytes(StandardCharsets.UTF_8);
            try {
                boolean first = store.create(key, body, Map.of());
                if (!first) continue;
                boolean second = store.create(key, body, Map.of());
                if (!second) {
                    LOG.log(Level.INFO, "the object store honours conditional writes (If-None-Match): files are"
                            + " claimed before upload, so a partition that moves while its old owner still uploads is"
                            + " written exactly once");
                    return true;
                }
                LOG.log(Level.WARNING, "the object store ignored a conditional write (If-None-Match: * on "
                        + key + " was not refused the second time): claims are off. Every record is still written at"
                        + " least once; a partition that moves to another member while its old owner is still"
                        + " uploading a file cut by a stop, flush, schedule or memory pressure may leave a record in"
                        + " two objects (audit reports it)");
                return false;
            } catch (StoreException e) {
                if (e.retryable()) throw e;
                denied = e;
                deniedRounds++;
            } finally {
                try {
                    store.delete(key);
                } catch (StoreException | RuntimeException ignored) {
                    // a probe left behind is harmless; the lifecycle rule on the claims prefix removes it
                }
            }
        }
        String where = (prefix.isEmpty() ? "" : prefix + "/") + NAME + "/";
        if (deniedRounds == PROBE_ROUNDS) {
            throw new StoreException("cannot write claims under " + where + " (" + denied.getMessage() + "): files"
                    + " are not uploaded unclaimed; grant s3:PutObject and s3:DeleteObject on " + where, false,
                    denied.httpStatus(), null, denied);
        }
        throw new StoreException("the object store gave no clean answer to " + PROBE_ROUNDS + " conditional creates"
                + " under " + where + (denied == null ? "" : " (" + denied.getMessage() + ")") + ": whether it"
                + " honours If-None-Match is not known yet, so files wait rather than go up unclaimed", true, 0, null,
                denied);
    }

    /**
     * Claims {@code first..last} of {@code partition} for the file {@code fileKey}, whose first record is
     * {@code firstStamp} ({@link ObjectStamps#stamp}).
     */
    Result claim(PartitionRef partition, long first, long last, String fileKey, String firstStamp)
            throws StoreException {
        return claim(partition, first, last, fileKey, firstStamp, -1, null);
    }

    /**
     * As {@link #claim(PartitionRef, long, long, String, String)}; with {@code runEnd} past {@code last}, a run claim:
     * it decides the cuts of every file up to {@code runEnd} as well ({@link #RUN_END}). Another claim at
     * {@code first} is the same cut only when it names the same run. With a {@code rule}, a run of size cuts
     * ({@link #RUN_UNTIL}, {@link #RUN_RULE}).
     */
    Result claim(PartitionRef partition, long first, long last, String fileKey, String firstStamp, long runEnd,
                 String rule) throws StoreException {
        String key = key(partition, first);
        boolean run = runEnd > last;
        byte[] body = ("{\"first\":" + first + ",\"last\":" + last + (run ? ",\"run_end\":" + runEnd : "")
                + (run && rule != null ? ",\"run_rule\":\"" + jsonText(rule) + "\"" : "")
                + ",\"key\":\"" + jsonText(fileKey) + "\"}\n").getBytes(StandardCharsets.UTF_8);
        Map<String, String> meta = new java.util.HashMap<>();
        meta.put(ObjectStamps.OFFSETS, first + "-" + last);
        meta.put(KEY_CRC, keyCrc(fileKey));
        if (firstStamp != null) meta.put(ObjectStamps.FIRST, firstStamp);
        if (run && rule == null) meta.put(RUN_END, Long.toString(runEnd));
        if (run && rule != null) {
            meta.put(RUN_UNTIL, Long.toString(runEnd));
            meta.put(RUN_RULE, rule);
        }
        // A claim removed between the refused create and the read (its member committed past it) is created again.
        for (int attempt = 0; attempt < 3; attempt++) {
            if (store.create(key, body, meta)) return new Result(Outcome.CREATED, last);
            Optional<Claimed> theirs = claimed(partition, first, null);
            if (theirs.isEmpty()) continue;
            // The same range under another key (a folder and late/) would be two objects: only one may go up.
            // A run decides more cuts than its first file's: only the very same run is the same cut.
            boolean same = theirs.get().last() == last && theirs.get().names(fileKey)
                    && theirs.get().runEnd() == (run ? runEnd : -1)
                    && java.util.Objects.equals(theirs.get().rule(), run ? rule : null);
            return new Result(same ? Outcome.SAME_CUT : Outcome.OTHER_CUT, theirs.get().last());
        }
        throw new StoreException("the claim " + key + " was refused but could not be read, three times", true, 0,
                null, null);
    }

    /**
     * The last offset a claim for the file of {@code partition} starting at {@code first} names, if one exists and,
     * when {@code firstStamp} is given, was made for that very record: a claim left by a kill in an earlier life of
     * the topic names another record, decides nothing, and is removed.
     */
    OptionalLong claimedLast(PartitionRef partition, long first, String firstStamp) throws StoreException {
        Optional<Claimed> claimed = claimed(partition, first, firstStamp);
        return claimed.isEmpty() ? OptionalLong.empty() : OptionalLong.of(claimed.get().last());
    }

    /** As {@link #claimedLast}, with the claimed file's key CRC. */
    Optional<Claimed> claimed(PartitionRef partition, long first, String firstStamp) throws StoreException {
        Optional<Map<String, String>> meta = store.metadata(key(partition, first));
        if (meta.isEmpty()) return Optional.empty();
        String theirs = meta.get().get(ObjectStamps.FIRST);
        if (firstStamp != null && theirs != null && !theirs.equals(firstStamp)) {
            LOG.log(Level.INFO, "the claim " + key(partition, first) + " was made for another record (" + theirs
                    + ", the partition's record is " + firstStamp + "): an earlier life of the topic left it; removed");
            remove(key(partition, first));
            return Optional.empty();
        }
        return Optional.of(parse(partition, first, meta.get()));
    }

    private Claimed parse(PartitionRef partition, long first, Map<String, String> meta) throws StoreException {
        Optional<long[]> range = ObjectStamps.offsets(meta);
        if (range.isEmpty() || range.get()[0] != first) {
            throw new StoreException("the claim " + key(partition, first) + " does not name its range (metadata "
                    + ObjectStamps.OFFSETS + " = " + meta.get(ObjectStamps.OFFSETS) + ")", false, 0, null, null);
        }
        long runEnd = -1;
        String rule = meta.get(RUN_RULE);
        String name = rule == null ? RUN_END : RUN_UNTIL;
        String run = meta.get(name);
        if (run != null || rule != null) {
            try {
                runEnd = run == null ? -2 : Long.parseLong(run.trim());
            } catch (NumberFormatException e) {
                runEnd = -2;
            }
            if (runEnd <= range.get()[1] || rule != null && (rule.isBlank() || meta.containsKey(RUN_END))) {
                throw new StoreException("the claim " + key(partition, first) + " names no valid run (metadata "
                        + name + " = " + run + (rule == null ? "" : ", " + RUN_RULE + " = " + rule) + ")", false, 0,
                        null, null);
            }
        }
        return new Claimed(range.get()[1], Optional.ofNullable(meta.get(KEY_CRC)), runEnd, rule);
    }

    /**
     * A run claim found below an offset: where it starts, its first file's last offset, its end, its first record,
     * and for a run of size cuts its rule (null for a stride run).
     */
    record Run(long first, long last, long runEnd, Optional<String> firstStamp, String rule) {
        /** How many offsets each file of a stride run spans. */
        long stride() {
            return last - first + 1;
        }
    }

    /**
     * The run claim whose run covers {@code offset} though it starts below it, if any. Runs span at most
     * {@link #MAX_RUN_SPAN} offsets, so one LIST of the claims just below {@code offset} finds it, and only the
     * greatest claim there is read: claims in a run's range are made by nobody (every member that meets the run
     * cuts by it), and a claim after a run starts at or after its end. Whether the run was made for the partition's
     * record at its start (not in an earlier life of the topic) is left to the caller ({@link Run#firstStamp}).
     */
    Optional<Run> runCovering(PartitionRef partition, long offset) throws StoreException {
        String below = key(partition, offset);
        String partitionPrefix = below.substring(0, below.lastIndexOf('-') + 1);
        long from = offset - MAX_RUN_SPAN - 1;
        String startAfter = from < 0 ? "" : key(partition, from);
        String greatest = null;
        for (StoredObject o : store.list(partitionPrefix, startAfter, below)) {
            if (o.key().compareTo(below) < 0 && o.key().endsWith(".claim")) greatest = o.key();
        }
        if (greatest == null) return Optional.empty();
        long first;
        try {
            first = Long.parseLong(greatest.substring(greatest.lastIndexOf('-') + 1, greatest.length() - 6));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        Optional<Map<String, String>> meta = store.metadata(greatest);
        if (meta.isEmpty()) return Optional.empty();
        Claimed claimed;
        try {
            claimed = parse(partition, first, meta.get());
        } catch (StoreException e) {
            return Optional.empty(); // not a claim this sink made: it decides nothing below the committed offset
        }
        if (claimed.runEnd() < offset) return Optional.empty();
        return Optional.of(new Run(first, claimed.last(), claimed.runEnd(),
                Optional.ofNullable(meta.get().get(ObjectStamps.FIRST)), claimed.rule()));
    }

    /** Removes a claim that is no longer needed; a failure leaves it to the lifecycle rule. */
    void remove(String key) {
        try {
            store.delete(key);
        } catch (StoreException | RuntimeException e) {
            LOG.log(Level.DEBUG, "could not remove the claim " + key + " (the lifecycle rule on " + NAME
                    + "/ will): " + e.getMessage());
        }
    }

    /** Removes claims no longer needed, in one request (at most {@link ObjectStore#MAX_DELETE_BATCH}); best effort. */
    void remove(java.util.List<String> keys) {
        try {
            store.delete(keys);
        } catch (StoreException | RuntimeException e) {
            LOG.log(Level.DEBUG, "could not remove " + keys.size() + " claims (the lifecycle rule on " + NAME
                    + "/ will): " + e.getMessage());
        }
    }

    private static String jsonText(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.toString();
    }
}
