package dev.iggysink.application.service;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.service.UploadResult.Outcome;
import dev.iggysink.application.settings.KeyLayout;
import dev.iggysink.domain.naming.KeyRange;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.domain.retry.RetryPolicy;
import dev.iggysink.domain.rotation.RotationReason;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Uploads sealed files on a bounded pool. A retryable failure is retried per the retry policy, then with the capped
 * backoff for as long as the sink runs; the wait between attempts holds no pool thread, so files failing on one
 * prefix cannot starve the uploads of others. A failure no retry can fix (a 403 that lasts through the policy's
 * attempts, 400, a file that cannot be built) ends the upload as {@link Outcome#REFUSED}: its partition halts, the rest of the sink goes on. Every way an upload
 * can end, an {@link Error} included, reaches the listener exactly once. An upload whose partition was lost since
 * (revoked, resynced, assigned anew) is not tried again: nothing commits its result, and whoever owns the partition
 * reads its records again, so another attempt could only put a second copy beside the new owner's.
 *
 * <p>While uploads wait for their next attempt, the store is probed every {@link #PROBE_INTERVAL} with one HEAD of
 * {@code probeKey}: once a probe that failed is followed by one the store answers, every waiting upload is tried at
 * once, so the sink recovers within about a second of the store rather than when the backoff ends.
 */
final class Uploader implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Uploader.class.getName());
    /** Short, so recovery is seen within about a second; one HEAD a second costs the store nothing. */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);
    /** The HEAD of a key nobody writes: any answer (found or not, even a 403) shows the store is back. */
    static final String PROBE_NAME = ".iggy-sink-probe";
    /** How long a committed file's claim may wait for others to share its DeleteObjects request. */
    static final Duration REMOVAL_DELAY = Duration.ofSeconds(10);

    /** Hears about one upload: each failed attempt that will be retried, then exactly one end. */
    interface Listener {
        void retrying(UploadJob job, String error);

        void done(UploadResult result);

        /** Whether the upload is still wanted: false once its partition was lost. Asked before every attempt. */
        default boolean current() {
            return true;
        }

        /**
         * The consumer group's committed offset of the upload's partition now (-1 when none): read after a claim is
         * created, to learn whether another member committed past the file's start meanwhile.
         */
        long committedOffset() throws SourceException;
    }

    private final ObjectStore store;
    private final RetryPolicy policy;
    private final InstantSource clock;
    private final SinkMetrics metrics;
    private final java.util.concurrent.ThreadPoolExecutor pool;
    /** The pool's queue: a file whose turn came (its predecessor's cut settled) goes to its front. */
    private final java.util.concurrent.LinkedBlockingDeque<Runnable> queue = new java.util.concurrent.LinkedBlockingDeque<>();
    private final ScheduledExecutorService retryTimer;
    /** Removes claims of committed files, off the upload threads (a DELETE per file must not slow the uploads). */
    private final java.util.concurrent.ExecutorService remover;
    /** Settles files' cuts (claims, the re-check); the upload threads only build and put. */
    private final java.util.concurrent.ExecutorService claimPool;
    private final OutageTracker outage;
    private final Set<Attempt> waiting = ConcurrentHashMap.newKeySet();
    private final Set<java.util.concurrent.CompletableFuture<Void>> removals = ConcurrentHashMap.newKeySet();
    /** Claims of committed files not yet removed, in the order of their commits (guarded by itself). */
    private final java.util.List<String> pendingRemovals = new java.util.ArrayList<>();
    /** Claims whose batch delete has been handed to the remover and has not finished yet. */
    private final java.util.Set<String> removing = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private Instant oldestPendingRemoval;
    private final AtomicLong objects = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    /** The files being put right now: how far they got tells a slow upload from a stuck one. */
    private final Set<FileBytes> sending = ConcurrentHashMap.newKeySet();
    private volatile boolean giveUp;
    private final Claims claims;
    private final String probeKey;
    /** Probes the store while uploads wait; its own thread, since a HEAD may take as long as the request timeout. */
    private final ScheduledExecutorService prober;
    private final AtomicBoolean probing = new AtomicBoolean();
    /** Whether each durable object's CRC32C is reported with its result (completeness markers list it). */
    volatile boolean checksums;

    Uploader(ObjectStore store, RetryPolicy policy, InstantSource clock, SinkMetrics metrics, int concurrency) {
        this(store, null, policy, clock, metrics, concurrency);
    }

    /** @param claims how files are claimed before upload ({@link UploadJob.Check#CLAIM}); null when never */
    Uploader(ObjectStore store, Claims claims, RetryPolicy policy, InstantSource clock, SinkMetrics metrics,
             int concurrency) {
        this(store, claims, policy, clock, metrics, concurrency, PROBE_NAME);
    }

    /** @param probeKey the key the store is probed with while uploads wait (see the class comment) */
    Uploader(ObjectStore store, Claims claims, RetryPolicy policy, InstantSource clock, SinkMetrics metrics,
             int concurrency, String probeKey) {
        this.claims = claims;
        this.probeKey = probeKey;
        this.store = store;
        this.policy = policy;
        this.clock = clock;
        this.metrics = metrics;
        this.outage = new OutageTracker("object store", "failing", clock, LOG);
        AtomicInteger n = new AtomicInteger();
        this.pool = new java.util.concurrent.ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
                queue, r -> daemon(r, "upload-" + n.incrementAndGet()));
        pool.prestartAllCoreThreads();
        this.retryTimer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "upload-retry-timer"));
        this.prober = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "store-probe"));
        this.remover = Executors.newSingleThreadExecutor(r -> daemon(r, "claim-remover"));
        AtomicInteger c = new AtomicInteger();
        this.claimPool = Executors.newFixedThreadPool(concurrency, r -> daemon(r, "claim-" + c.incrementAndGet()));
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    void submit(UploadJob job, Listener listener) {
        Attempt a = new Attempt(job, listener, clock.instant());
        try {
            if (!giveUp) {
                pool.execute(a);
                return;
            }
        } catch (RuntimeException rejected) {
            // the pool was shut down by a stop meanwhile
        }
        a.finish(Outcome.GAVE_UP, "upload abandoned by stop", false);
    }

    /** Runs an attempt's claim step on a claim thread; known by type, so that a stop can end what never ran. */
    private static final class ClaimStep implements Runnable {
        final Attempt attempt;

        ClaimStep(Attempt attempt) {
            this.attempt = attempt;
        }

        @Override
        public void run() {
            ON_CLAIM_THREAD.set(true);
            try {
                attempt.run();
            } finally {
                ON_CLAIM_THREAD.set(false);
            }
        }
    }

    private static final ThreadLocal<Boolean> ON_CLAIM_THREAD = ThreadLocal.withInitial(() -> false);

    /** One file's way to the store, across attempts. */
    private final class Attempt implements Runnable {
        final UploadJob job;
        final Listener listener;
        final Instant started;
        final AtomicBoolean done = new AtomicBoolean();
        FileBytes content;
        int attempts;
        boolean failing;
        /** The file's cut is decided (see {@link #settleCut}); later attempts only put. */
        boolean cutSettled;
        /** What claiming the file's range found, kept across attempts. */
        Claims.Result claim;
        boolean checkedAfterClaim;

        /** The object's CRC32C once durable, when {@link #checksums} asks for it; else -1. */
        long crc32c = -1;

        Attempt(UploadJob job, Listener listener, Instant started) {
            this.job = job;
            this.listener = listener;
            this.started = started;
        }

        @Override
        public void run() {
            String key = job.file().key();
            if (done.get()) return; // ended while it waited (its partition was lost)
            if (giveUp) {
                finish(Outcome.GAVE_UP, "upload abandoned by stop", false);
                return;
            }
            if (!listener.current()) {
                dropLost();
                return;
            }
            if (!job.ready().isDone()) {
                // Holds no thread while it waits: the earlier file's claim or a dead letter inside this file's range.
                job.ready().whenComplete((ok, t) -> resume());
                return;
            }
            if (!Boolean.TRUE.equals(job.ready().getNow(false))) {
                finish(Outcome.GAVE_UP, "not uploading " + key + ": an earlier file of its partition or a dead letter"
                        + " inside its range did not become durable; its records are read again from the committed"
                        + " offset", false);
                return;
            }
            if (content == null) {
                try {
                    content = job.content().get();
                } catch (Throwable t) {
                    // The encoder is spent: the file cannot be built again from it. Its records are read again after
                    // a restart; until then its partition halts rather than commit past it.
                    LOG.log(Level.ERROR, "cannot build " + key, t);
                    finish(Outcome.REFUSED, "cannot build " + key + ": " + t, t instanceof Error);
                    return;
                }
                metrics.sealed(job.file().partition(), job.file().reason(), content.length());
            }
            boolean onClaimThread = ON_CLAIM_THREAD.get();
            if (!cutSettled && job.check() != UploadJob.Check.NONE && job.check() != UploadJob.Check.CREATE
                    && !onClaimThread) {
                // The cut is settled on the claim threads, so that no upload thread waits for a claim's answers.
                try {
                    claimPool.execute(new ClaimStep(this));
                } catch (RuntimeException rejected) {
                    finish(Outcome.GAVE_UP, "upload abandoned by stop", false);
                }
                return;
            }
            attempts++;
            try {
                if (!cutSettled && !settleCut()) return;
                if (onClaimThread) {
                    attempts--; // a claim that went through is no attempt of the upload's
                    resume(); // the upload itself, on the upload threads, first in line
                    return;
                }
                sending.add(content);
                try {
                    if (job.check() == UploadJob.Check.CREATE) {
                        if (!store.create(key, content, job.contentType(), job.metadata()) && !sameFileThere()) {
                            return;
                        }
                    } else {
                        store.put(key, content, job.contentType(), job.metadata());
                    }
                } finally {
                    sending.remove(content);
                }
                if (checksums) crc32c = Completeness.crc32c(content);
                // put has returned in this thread, and nothing reads a durable file again: its arrays may be reused.
                content.release();
                objects.incrementAndGet();
                bytes.addAndGet(content.length());
                metrics.uploaded(job.file().partition(), content.length(), Duration.between(started, clock.instant()));
                finish(Outcome.DURABLE, null, false);
            } catch (StoreException e) {
                if (e.httpStatus() == 403 && policy.mayRetryAfter(attempts)) {
                    // A 403 is most often for good, but not always: a new grant takes a while to reach every S3
                    // server, and a single-drive MinIO refuses a put now and then while a key beside it is deleted.
                    // The policy's attempts tell the two apart before the partition halts.
                    retryLater(e.getMessage(), Optional.empty(), "http_403");
                } else if (!e.retryable()) {
                    LOG.log(Level.ERROR, "upload of " + key + (attempts > 1 ? " refused after " + attempts
                            + " attempts: " : " refused, not retried: ") + e.getMessage());
                    finish(Outcome.REFUSED, e.getMessage(), false);
                } else {
                    retryLater(e.getMessage(), e.retryAfter(), e.httpStatus() == 0 ? "transport"
                            : "http_" + e.httpStatus());
                }
            } catch (RuntimeException e) {
                // An adapter bug: the bytes are intact, so retrying is safe and may well succeed.
                if (attempts == 1) LOG.log(Level.ERROR, "upload of " + key + " failed unexpectedly; retrying", e);
                retryLater(String.valueOf(e), Optional.empty(), "unexpected");
            } catch (Error e) {
                LOG.log(Level.ERROR, "upload of " + key + " ended by " + e, e);
                finish(Outcome.REFUSED, "upload of " + key + " ended by " + e, true);
            }
        }

        private void retryLater(String error, Optional<Duration> retryAfter, String reason) {
            if (!listener.current()) {
                dropLost();
                return;
            }
            failing = true;
            outage.failed(this, error);
            retries.incrementAndGet();
            metrics.uploadRetried(reason);
            listener.retrying(job, error);
            if (attempts == policy.attempts()) {
                LOG.log(Level.WARNING, "upload of " + job.file().key() + " failed " + attempts
                        + " times; still retrying with capped backoff: " + error);
            }
            // Past the policy's attempts the retry number keeps growing, so the delay settles at the cap.
            Duration delay = policy.backoff().delay(Math.min(attempts, 30), retryAfter,
                    ThreadLocalRandom.current().nextDouble());
            waiting.add(this);
            if (giveUp) {
                waiting.remove(this);
                finish(Outcome.GAVE_UP, error, false);
                return;
            }
            // The partition may have been lost after the check above, before a dropLost could see this attempt.
            if (!listener.current()) {
                if (waiting.remove(this)) dropLost();
                return;
            }
            try {
                // A probe may have woken it already (or a stop or a lost partition ended it): then nothing to do.
                retryTimer.schedule(() -> wake(error), delay.toNanos(), TimeUnit.NANOSECONDS);
            } catch (RuntimeException rejected) {
                waiting.remove(this);
                finish(Outcome.GAVE_UP, error, false);
                return;
            }
            startProbing();
        }

        /** Its next attempt now, if it still waits for one: the only way out of {@link #waiting} to a new attempt. */
        void wake(String error) {
            if (!waiting.remove(this)) return;
            try {
                pool.execute(this);
            } catch (RuntimeException rejected) {
                finish(Outcome.GAVE_UP, error, false);
            }
        }

        /**
         * Its turn came: to the front of the queue, not behind every file sealed since (which would make each file
         * of a partition wait for a whole queue of uploads before its claim, and the uploads pile up in memory).
         * The pool's threads are all started, so a task in the queue is run.
         */
        private void resume() {
            if (pool.isShutdown() || giveUp) {
                finish(Outcome.GAVE_UP, "upload abandoned by stop", false);
                return;
            }
            queue.offerFirst(this);
            // A stop that drained the queue just before this was put there will never run it.
            if ((pool.isShutdown() || giveUp) && queue.remove(this)) {
                finish(Outcome.GAVE_UP, "upload abandoned by stop", false);
            }
        }

        /**
         * Decides whether this file's cut stands before it is uploaded; false when it does not (the attempt has ended
         * as {@link Outcome#SUPERSEDED}). With claims, the file's range is claimed: a claim of another member for
         * another range means this file must not be uploaded. A claim this member created may still meet an object
         * of another range starting here, whose claim was removed after its member committed past it: the group's
         * committed offset, read once after the create, settles that. Without claims, the partition's first file since the assignment looks
         * for a late copy of the previous owner once. The next file of the partition waits for this answer.
         */
        private boolean settleCut() throws StoreException {
            long first = job.file().firstOffset();
            UploadJob.Check check = job.check();
            if ((check == UploadJob.Check.CLAIM || check == UploadJob.Check.CLAIM_FIRST) && !claims.on()) {
                check = check == UploadJob.Check.CLAIM_FIRST ? UploadJob.Check.OTHER_COPY : UploadJob.Check.NONE;
            }
            switch (check) {
                case NONE -> {
                }
                case CREATE -> {
                    if (claims == null || !claims.on()) {
                        throw new StoreException("key_layout = \"" + KeyLayout.FIRST_OFFSET.configName() + "\" needs"
                                + " an object store that honours conditional writes (If-None-Match), and this one does"
                                + " not: " + job.file().key() + " is not written, since a plain PUT there could"
                                + " overwrite another member's file. Use key_layout = \"" + KeyLayout.OFFSETS.configName()
                                + "\" on this store", false, 0, null, null);
                    }
                }
                case OTHER_COPY -> {
                    long other;
                    try {
                        other = otherCopy();
                    } catch (StoreException e) {
                        if (e.retryable()) throw e;
                        other = -1; // no permission to list: upload as the Rust sink would
                    }
                    if (other >= 0) {
                        finish(Outcome.SUPERSEDED, "offsets " + first + "-" + other
                                + " were written meanwhile by the partition's previous owner", false, other);
                        return false;
                    }
                }
                case CLAIM, CLAIM_FIRST -> {
                    if (claim == null) {
                        claim = job.claims().claim(job.file().partition(), first, job.file().lastOffset(),
                                job.file().key(), job.metadata().get(ObjectStamps.FIRST), job.runEnd(),
                                job.runRule());
                    }
                    if (claim.outcome() == Claims.Outcome.OTHER_CUT) {
                        finish(Outcome.SUPERSEDED, "another member claimed offsets " + first + "-"
                                + claim.claimedLast() + " before this member's file of offsets " + first + "-"
                                + job.file().lastOffset() + " was uploaded", false, claim.claimedLast());
                        return false;
                    }
                    if (claim.outcome() == Claims.Outcome.CREATED && !checkedAfterClaim) {
                        // A claim is removed only after its member committed past it; a claim created here after
                        // such a removal is the only way to meet another member's object at this start, and the
                        // group's offset, read after the create, shows it (ADR 0013).
                        long committed = committedOffset();
                        checkedAfterClaim = true;
                        if (committed >= first) {
                            job.claims().remove(job.claims().key(job.file().partition(), first));
                            finish(Outcome.SUPERSEDED, "offsets " + first + "-" + committed + " were committed"
                                    + " meanwhile by another member", false, committed);
                            return false;
                        }
                    }
                }
            }
            cutSettled = true;
            // A created file settles its cut when its conditional PUT is answered: the next file waits for that.
            if (job.file().reason() != RotationReason.DEAD_LETTER && check != UploadJob.Check.CREATE) {
                job.settled().complete(true);
            }
            return true;
        }

        /**
         * After a refused conditional PUT of a first-offset key: whether the object there holds this very file's
         * range (another member cut the same file, or an earlier attempt of this one landed though its answer was
         * lost), so that this file is durable. Otherwise this attempt has ended as {@link Outcome#SUPERSEDED}: the
         * partition is assigned anew, and the lookup commits the object found there and follows its chain.
         */
        private boolean sameFileThere() throws StoreException {
            long first = job.file().firstOffset();
            Optional<Map<String, String>> meta = store.metadata(job.file().key());
            if (meta.isEmpty()) {
                throw new StoreException("the conditional PUT of " + job.file().key() + " was refused, but no object"
                        + " is there", true, 0, null, null);
            }
            Optional<long[]> range = ObjectStamps.offsets(meta.get());
            if (range.isEmpty() || range.get()[0] != first) {
                throw new StoreException("the object " + job.file().key() + " does not name its range (metadata "
                        + ObjectStamps.OFFSETS + " = " + meta.get().get(ObjectStamps.OFFSETS) + "): it is not this"
                        + " sink's, so offsets from " + first + " cannot be written there; move it away", false, 0,
                        null, null);
            }
            long theirs = range.get()[1];
            if (theirs == job.file().lastOffset()) return true;
            finish(Outcome.SUPERSEDED, "another member wrote offsets " + first + "-" + theirs + " before this"
                    + " member's file of offsets " + first + "-" + job.file().lastOffset() + " went up", false, theirs);
            return false;
        }

        /** The group's committed offset of this file's partition (-1 when none), as the source says now. */
        private long committedOffset() throws StoreException {
            try {
                return listener.committedOffset();
            } catch (SourceException e) {
                throw new StoreException("cannot read the committed offset of " + job.file().partition()
                        + " after claiming " + job.file().key() + ": " + e.getMessage(), true, 0, null, e);
            }
        }

        /**
         * The last offset of another object of this partition starting where this file starts, or -1. The key lookup at
         * assignment cannot see an upload the previous owner still had in flight (a slow drain, a kill during a PUT);
         * looking once more just before the first upload since then catches every such upload that landed meanwhile.
         * An object with the very same key is this file written before: not another copy.
         */
        private long otherCopy() throws StoreException {
            long last = -1;
            for (StoredObject o : store.list(job.keyStart())) {
                KeyRange r = ObjectKey.parse(o.key()).orElse(null);
                if (r != null && !o.key().equals(job.file().key()) && r.firstOffset() == job.file().firstOffset()
                        && r.partitionId() == job.file().partition().partitionId()) {
                    last = Math.max(last, r.lastOffset());
                }
            }
            return last;
        }

        /** Ends an upload whose partition was lost: its records are not committed, so nothing is lost. */
        void dropLost() {
            String key = job.file().key();
            LOG.log(Level.INFO, "not uploading " + key + " any more: its partition was lost; its records are read again"
                    + " from the committed offset by whoever owns it");
            finish(Outcome.GAVE_UP, "upload of " + key + " dropped: its partition was lost", false);
        }

        void finish(Outcome outcome, String error, boolean fatal) {
            finish(outcome, error, fatal, -1);
        }

        void finish(Outcome outcome, String error, boolean fatal, long supersededUpTo) {
            if (!done.compareAndSet(false, true)) return;
            if (failing) outage.ended(this, outcome == Outcome.DURABLE);
            // The partition's next file waits for this answer (a file whose cut settled already answered true).
            job.settled().complete(outcome == Outcome.DURABLE);
            UploadResult result = new UploadResult(job, outcome, Duration.between(started, clock.instant()),
                    content == null ? 0 : content.length(), Optional.ofNullable(error), fatal, supersededUpTo, crc32c);
            try {
                listener.done(result);
            } catch (Throwable t) {
                LOG.log(Level.ERROR, "applying the result of " + job.file().key() + " failed", t);
            }
        }
    }

    private void startProbing() {
        if (!waiting.isEmpty() && probing.compareAndSet(false, true)) scheduleProbe(false);
    }

    private void scheduleProbe(boolean sawDown) {
        try {
            prober.schedule(() -> probe(sawDown), PROBE_INTERVAL.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException rejected) {
            probing.set(false); // stopping
        }
    }

    /**
     * One HEAD while uploads wait. Only a store seen failing and then answering wakes them: a store that answers
     * the probe but fails the puts themselves (one key refused, a slow multipart) keeps to the backoff, so
     * waiting uploads are not tried again every second.
     */
    private void probe(boolean sawDown) {
        if (giveUp) {
            probing.set(false);
            return;
        }
        if (waiting.isEmpty()) {
            probing.set(false);
            startProbing(); // an upload may have begun to wait just now
            return;
        }
        boolean down;
        try {
            store.metadata(probeKey);
            down = false;
        } catch (StoreException e) {
            down = e.retryable();
        } catch (RuntimeException e) {
            down = true;
        }
        if (!down && sawDown) {
            LOG.log(Level.INFO, "object store answers again; trying " + waiting.size() + " waiting uploads now");
            for (Attempt a : waiting) a.wake("upload abandoned by stop");
        }
        scheduleProbe(down);
    }

    /** Another call to the store ({@code what}: e.g. a listing for a partition) failed and will be retried. */
    void storeFailed(Object what, String error) {
        outage.failed(what, error);
    }

    /** That call worked (again). */
    void storeWorked(Object what) {
        outage.ended(what, true);
    }

    /** Health reason while uploads fail: "object store failing since ...: ...". */
    Optional<String> trouble() {
        return outage.trouble();
    }

    Optional<String> lastError() {
        return outage.lastError();
    }

    /**
     * The bytes handed to the store by the puts under way: it moves while any of them sends (or one ends), and
     * stands still while every one waits for an answer.
     */
    long sendingProgress() {
        long sum = 0;
        for (FileBytes f : sending) sum += f.bytesHandedOut();
        return sum;
    }

    long objectsUploaded() {
        return objects.get();
    }

    long bytesUploaded() {
        return bytes.get();
    }

    long retries() {
        return retries.get();
    }

    /**
     * A partition was lost: uploads waiting for their next attempt whose listener no longer wants them end as given up
     * at once (their memory is freed now, not when the timer fires); queued and running ones end before their next
     * attempt.
     */
    void dropLost() {
        for (Attempt a : waiting) {
            if (!a.listener.current() && waiting.remove(a)) a.dropLost();
        }
    }

    /**
     * Removes claims that are no longer needed (their files are committed), best effort and in batches: one
     * DeleteObjects request for up to {@link ObjectStore#MAX_DELETE_BATCH} claims, sent on a thread of its own once
     * that many wait or the oldest has waited {@link #REMOVAL_DELAY}, and at a clean stop. A claim at or below the
     * committed offset decides nothing (the lookup reads claims only past it), so waiting costs nothing but the
     * space; one still there refuses an old owner's late claim of that offset, as it did before its commit.
     */
    void removeClaims(java.util.List<String> keys) {
        if (claims == null || !claims.knownOn() || keys.isEmpty() || giveUp) return;
        boolean due;
        synchronized (pendingRemovals) {
            if (pendingRemovals.isEmpty()) oldestPendingRemoval = clock.instant();
            pendingRemovals.addAll(keys);
            due = pendingRemovals.size() >= ObjectStore.MAX_DELETE_BATCH
                    || !clock.instant().isBefore(oldestPendingRemoval.plus(REMOVAL_DELAY));
        }
        if (due) sendRemovals();
    }

    /**
     * Sends the claim removals whose batch delay has passed: called on every turn of the consumer's loop, so that a
     * partition gone quiet after its commit does not keep its claims until its next commit or the stop.
     */
    void removeDueClaims() {
        if (claims == null || giveUp) return;
        boolean due;
        synchronized (pendingRemovals) {
            due = !pendingRemovals.isEmpty()
                    && !clock.instant().isBefore(oldestPendingRemoval.plus(REMOVAL_DELAY));
        }
        if (due) sendRemovals();
    }

    /** Whether the claim {@code key} waits for its batch delete or is being deleted. */
    boolean removalPending(String key) {
        if (removing.contains(key)) return true;
        synchronized (pendingRemovals) {
            return pendingRemovals.contains(key);
        }
    }

    /** Sends every claim removal waiting, in batches, on the remover thread. */
    private void sendRemovals() {
        java.util.List<java.util.List<String>> batches = new java.util.ArrayList<>();
        synchronized (pendingRemovals) {
            while (!pendingRemovals.isEmpty()) {
                int n = Math.min(pendingRemovals.size(), ObjectStore.MAX_DELETE_BATCH);
                java.util.List<String> batch = java.util.List.copyOf(pendingRemovals.subList(0, n));
                removing.addAll(batch); // before they leave the pending list: removalPending never misses one
                pendingRemovals.subList(0, n).clear();
                batches.add(batch);
            }
        }
        if (batches.isEmpty()) return;
        java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
        removals.add(done);
        try {
            remover.execute(() -> {
                try {
                    batches.forEach(claims::remove);
                } finally {
                    batches.forEach(removing::removeAll);
                    removals.remove(done);
                    done.complete(null);
                }
            });
        } catch (RuntimeException rejected) {
            batches.forEach(removing::removeAll);
            removals.remove(done); // stopping: the lifecycle rule on the claims prefix removes them
        }
    }

    /**
     * Sends the claim removals that wait and waits up to {@code timeout} for them, so that a clean stop leaves no
     * claim behind.
     */
    void finishRemovals(Duration timeout) {
        if (!giveUp) sendRemovals();
        try {
            java.util.concurrent.CompletableFuture.allOf(removals.toArray(new java.util.concurrent.CompletableFuture<?>[0]))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // what is left is removed by the next commit past it or by the lifecycle rule
        }
    }

    /** Stops retrying: uploads waiting for their next attempt end as given up at once, running ones after it. */
    void abandon() {
        giveUp = true;
        for (Attempt a : waiting) {
            waiting.remove(a);
            a.finish(Outcome.GAVE_UP, "upload abandoned by stop", false);
        }
        retryTimer.shutdownNow();
        prober.shutdownNow();
        remover.shutdownNow();
        for (Runnable never : claimPool.shutdownNow()) {
            if (never instanceof ClaimStep step) step.attempt.finish(Outcome.GAVE_UP, "upload abandoned by stop", false);
        }
        for (Runnable never : pool.shutdownNow()) {
            if (never instanceof Attempt a) a.finish(Outcome.GAVE_UP, "upload abandoned by stop", false);
        }
    }

    @Override
    public void close() {
        retryTimer.shutdownNow();
        prober.shutdownNow();
        remover.shutdownNow();
        claimPool.shutdownNow();
        pool.shutdown();
        try {
            if (!pool.awaitTermination(5, TimeUnit.SECONDS)) pool.shutdownNow();
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
