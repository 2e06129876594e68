package dev.iggysink.application.service;

import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.PartitionRevokedException;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.Sleeper;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.TopicMissingException;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.retry.Backoff;
import dev.iggysink.domain.rotation.RotationPolicy;
import dev.iggysink.domain.rotation.RotationReason;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The consumer loop of one topic: polls every owned partition explicitly from the position it tracks, fairly and each
 * with its own backoff, feeds the partition writers, applies upload events and commits what became durable. Runs on
 * its own thread; the {@link MessageSource} and the writers are touched by this thread only (and the prefetch
 * thread, through {@link SerializedSource}).
 */
final class TopicConsumer implements Runnable {
    private static final System.Logger LOG = System.getLogger(TopicConsumer.class.getName());
    private static final Backoff SOURCE_BACKOFF = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(10), 0.2);
    /** How often the topic's partition list is read again, so partitions added while running are consumed. */
    private static final Duration PARTITION_REFRESH = Duration.ofSeconds(5);
    /** How often a topic found missing is looked for again: an operator may create it again. */
    static final Duration TOPIC_LOOKUP = Duration.ofSeconds(5);
    /**
     * How often each partition's end offset is read from the topic's metadata, so the lag stays true while nothing
     * is polled (paused, the store down, a poll backing off). The loop comes round at least every poll_interval.
     */
    static final Duration LAG_REFRESH = Duration.ofSeconds(5);

    private final StreamSettings stream;
    private final String topic;
    private final MessageSource source;
    private final RecordCodec codec;
    private final SinkSettings settings;
    private final Uploader uploader;
    private final MemoryBudget budget;
    private final InstantSource clock;
    private final Sleeper sleeper;
    private final SinkMetrics metrics;
    private final Controls controls;
    private final Map<PartitionRef, PartitionStatus> statusBoard;
    private final AtomicLong recordsConsumed;
    private final AtomicLong bytesConsumed;
    private final UploadEvents events;
    private final Drain drain;
    private final Fetcher fetcher;
    private final List<PartitionWriter> writers = new ArrayList<>();
    private final FileLayout layout;
    private final RotationPolicy policy;
    private final PollGate gate;
    private final OutageTracker sourceOutage;
    private final Committer committer;
    private final MemoryRelief relief;
    private final DurableFileRecovery recovery;
    private final Claims claims;
    /** Publishes progress and writes completeness markers (ADR 0016); null when none are written. */
    private final Completeness completeness;

    private long epoch;
    private long passes;
    private Instant partitionsReadAt = Instant.MIN;
    /** The health reason while the topic is missing (deleted while running); null while it exists. */
    private volatile String missing;
    private Instant lookAgainAt = Instant.MIN;
    private Instant endsReadAt = Instant.MIN;
    /** When this loop last came round (or last tried to connect): what tells a stuck loop from a waiting one. */
    private volatile Instant lastTurn;
    private long seenFlushes;
    private int sessionFailures;
    private volatile boolean finished;
    private volatile boolean clean;
    private final List<String> problems = new ArrayList<>();

    TopicConsumer(StreamSettings stream, String topic, MessageSource source, RecordCodec codec,
                  SinkSettings settings, RotationPolicy policy, Uploader uploader, ObjectStore store,
                  MemoryBudget budget, InstantSource clock, Sleeper sleeper, SinkMetrics metrics, Controls controls,
                  Map<PartitionRef, PartitionStatus> statusBoard, AtomicLong recordsConsumed,
                  AtomicLong bytesConsumed) {
        this(stream, topic, source, codec, settings, policy, uploader, store, null, budget, clock, sleeper, metrics,
                controls, statusBoard, recordsConsumed, bytesConsumed);
    }

    /** @param claims how files are claimed before upload, or null when they never are */
    TopicConsumer(StreamSettings stream, String topic, MessageSource source, RecordCodec codec,
                  SinkSettings settings, RotationPolicy policy, Uploader uploader, ObjectStore store, Claims claims,
                  MemoryBudget budget, InstantSource clock, Sleeper sleeper, SinkMetrics metrics, Controls controls,
                  Map<PartitionRef, PartitionStatus> statusBoard, AtomicLong recordsConsumed,
                  AtomicLong bytesConsumed) {
        // Each sink claims in a space of its own: another sink on the same prefix and topic cuts other files.
        this.claims = claims == null ? null : claims.in(Claims.space(stream.consumerGroup(), settings.output(),
                codec.extension()));
        this.stream = stream;
        this.topic = topic;
        this.source = new SerializedSource(source);
        this.codec = codec;
        this.settings = settings;
        this.policy = policy;
        this.uploader = uploader;
        this.budget = budget;
        this.clock = clock;
        this.sleeper = sleeper;
        this.metrics = metrics;
        this.controls = controls;
        this.statusBoard = statusBoard;
        this.recordsConsumed = recordsConsumed;
        this.bytesConsumed = bytesConsumed;
        this.layout = new FileLayout(settings.output(), codec.extension());
        this.gate = new PollGate(SOURCE_BACKOFF);
        this.sourceOutage = new OutageTracker("source " + stream.stream() + "/" + topic, "unavailable", clock, LOG);
        this.recovery = settings.rotation().maxOpenFilesPerPartition() > 1 ? null
                : new DurableFileRecovery(this.source, store, codec, layout,
                        settings.delivery().errorsTolerance() == ErrorTolerance.ALL, settings.delivery().dlqPrefix(),
                        this.claims);
        this.completeness = settings.output().completionMarker().isEmpty() ? null
                : new Completeness(store, settings.output().completionMarker().get(), settings.key(),
                        stream.consumerGroup(), stream.stream(), topic, settings.output().prefix(),
                        settings.output().pathTemplate(), settings.output().timezone(), clock,
                        () -> controls.stopping, Completeness.INTERVAL);
        if (completeness != null && recovery != null) recovery.onRecovered(completeness::recovered);
        this.committer = new Committer(this.source, metrics, uploader, completeness);
        this.relief = new MemoryRelief(budget, name(), clock, uploader::sendingProgress);
        this.events = new UploadEvents(uploader, controls, name(), this.source);
        this.drain = new Drain(events, committer, clock, settings.delivery().shutdownTimeout(), controls);
        this.fetcher = new Fetcher(stream.stream() + "/" + topic, this.source, budget, stream.batchLength());
        this.lastTurn = clock.instant();
    }

    String name() {
        return stream.stream() + "/" + topic;
    }

    @Override
    public void run() {
        boolean crashed = false;
        try {
            // Before anything is consumed: a store that ignores conditional writes is known (and said) from the start.
            if (claims != null && recovery != null) {
                // Members of one sink must claim in one space: an operator compares this line across members.
                LOG.log(Level.INFO, "claims of " + name() + " (group " + stream.consumerGroup() + ") live under "
                        + claims.space() + " (" + claims.key(new PartitionRef(stream.stream(), topic, 0), 0)
                        + " is one of them)");
                claims.probeAtStart();
            }
            if (start()) {
                loop();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            // An Error (out of memory, the encoder's size guard) or a bug: an open file may end in a half-written
            // record, so nothing open is sealed; the sink stops with a fatal error and a non-zero exit.
            crashed = true;
            try {
                LOG.log(Level.ERROR, "consumer of " + name() + " failed", t);
            } catch (Throwable ignored) {
                // logging itself may fail when the heap is gone
            }
            controls.fail("consumer of " + name() + " failed: " + t);
        } finally {
            try {
                drainOnStop(crashed);
            } catch (Throwable t) {
                clean = false;
                problems.add("the stop of " + name() + " failed: " + t);
                controls.fail("the stop of " + name() + " failed: " + t);
            } finally {
                fetcher.close();
                source.close();
                finished = true;
            }
        }
    }

    private boolean start() throws InterruptedException {
        while (!controls.stopping) {
            lastTurn = clock.instant();
            try {
                source.connect();
                List<PartitionRef> partitions = source.partitions();
                epoch = source.sessionEpoch();
                writers.clear();
                for (PartitionRef p : partitions) writers.add(newWriter(p));
                partitionsReadAt = clock.instant();
                LOG.log(Level.INFO, "consuming " + name() + " (" + partitions.size() + " partitions) as group "
                        + stream.consumerGroup());
                // the series exists from the start at 0, so that an alert on it does not wait for a first deletion
                metrics.topicMissing(stream.stream(), topic, false);
                sessionRecovered();
                return true;
            } catch (TopicMissingException e) {
                // Deleted between the startup check and now: the loop looks for it, as for one deleted later.
                topicMissing(e);
                return true;
            } catch (SourceException e) {
                if (!e.retryable()) {
                    controls.fail("cannot consume " + name() + ": " + e.getMessage());
                    return false;
                }
                sessionBackoff(e);
            }
        }
        return false;
    }

    /** Hands each object a commit passes to the self-audit, to be read back; call before the loop starts. */
    void selfAudit(SelfAudit audit) {
        committer.selfAudit = audit;
    }

    private PartitionWriter newWriter(PartitionRef p) {
        PartitionWriter w = new PartitionWriter(p, codec, layout, policy,
                settings.rotation().maxOpenFilesPerPartition(), settings.delivery().errorsTolerance(),
                settings.delivery().dlqPrefix(), budget, clock, metrics, events.handOff());
        if (completeness != null) w.onDurable(completeness::durable);
        if (completeness != null && layout.latePath()) w.lateRule(completeness::late);
        if (committer.selfAudit != null) w.keepDurableObjects();
        return w;
    }

    private void loop() throws InterruptedException {
        Duration idle = stream.pollInterval().isZero() ? Duration.ofMillis(1) : stream.pollInterval();
        while (!controls.stopping) {
            lastTurn = clock.instant();
            applyEvents();
            commitAll();
            if (missing != null && !lookForTopic()) {
                publish();
                events.awaitOne(idle);
                continue;
            }
            if (source.sessionEpoch() != epoch) resync();
            refreshPartitions();
            refreshEnds();
            boolean got = false;
            if (controls.paused) relief.notHeld();
            else if (relief.mayPoll(writers)) got = pollAll();
            Instant now = clock.instant();
            for (PartitionWriter w : writers) w.tick(now);
            long flushes = controls.flushRequests.get();
            if (flushes != seenFlushes) {
                seenFlushes = flushes;
                for (PartitionWriter w : writers) w.sealAll(RotationReason.FLUSH);
            }
            publish();
            if (!got) events.awaitOne(idle);
        }
    }

    /**
     * One pass over the partitions, starting one further each pass. A partition that is halted, waits for a failing
     * upload, or backs off after a failed poll is skipped; the others are polled all the same.
     */
    private boolean pollAll() throws InterruptedException {
        boolean got = false;
        int n = writers.size();
        if (n == 0) return false;
        int first = (int) (passes++ % n);
        for (int k = 0; k < n; k++) {
            int i = (first + k) % n;
            PartitionWriter w = writers.get(i);
            if (controls.stopping) break;
            // A full budget lets only a claimed cut be read on, to its end (see MemoryRelief).
            if (budget.exhausted() && !relief.mayPollPastBudget(w)) continue;
            if (!pollable(w)) continue;
            try {
                Batch batch = fetcher.fetch(w, x -> pollable(x) && x.owned());
                gate.succeeded(w);
                sourceOutage.ended(w.partition(), true);
                if (batch.sessionEpoch() != epoch) return got; // resync on the next turn
                if (!batch.owned()) {
                    w.lost();
                    continue;
                }
                if (!w.owned()) {
                    assign(w);
                    continue;
                }
                w.currentOffset(batch.currentOffset());
                List<SinkRecord> records = batch.records();
                if (!records.isEmpty()) {
                    got = true;
                    long bytes = 0;
                    for (SinkRecord r : records) bytes += r.payload().length;
                    fetcher.learned(records, bytes);
                    recordsConsumed.addAndGet(records.size());
                    bytesConsumed.addAndGet(bytes);
                    metrics.consumed(w.partition(), records.size(), bytes);
                    // Poll the next partition (or this one further on) while this batch is encoded; after the
                    // pass's last one, the first of the next pass, which starts one further than this one did.
                    // (The partition after the last one would be the next pass's last: its poll would wait, and
                    // every other partition be polled while this thread waits.)
                    int from = k == n - 1 ? (first + 1) % n : (i + 1) % n;
                    prefetchFrom(from, w, records.get(records.size() - 1).offset() + 1);
                    // A bad record under errors_tolerance = none halts this partition only; health turns failed.
                    w.accept(records);
                }
            } catch (PartitionRevokedException e) {
                w.lost();
            } catch (TopicMissingException e) {
                topicMissing(e);
                return got;
            } catch (SourceException e) {
                if (!e.retryable()) {
                    controls.fail("polling " + w.partition() + " failed: " + e.getMessage());
                    return got;
                }
                w.error(e.getMessage());
                sourceOutage.failed(w.partition(), e.getMessage());
                gate.failed(w, clock.instant());
            }
        }
        return got;
    }

    private boolean pollable(PartitionWriter w) {
        return !w.halted() && !w.stalled() && gate.due(w, clock.instant());
    }

    /**
     * The partition arrived: read its committed offset now (not the one seen at start, which another member may have
     * moved since), commit files already durable after it, and start reading one past that.
     */
    private void assign(PartitionWriter w) throws SourceException {
        long committed = source.committedOffset(w.partition()).orElse(-1);
        long groupOffset = committed;
        if (completeness != null) completeness.assignmentStarts(w.partition());
        DurableFileRecovery.Result found = DurableFileRecovery.Result.at(committed);
        boolean claimFiles = false;
        if (recovery != null) {
            try {
                // Whether the store honours the claims' conditional writes was probed at start; a file is not
                // uploaded unclaimed until that has a clean answer.
                claimFiles = claims != null;
                found = recovery.lookup(w.partition(), committed, claimFiles);
                committed = found.committed();
                uploader.storeWorked(w.partition());
            } catch (StoreException e) {
                if (e.retryable()) {
                    // Nothing can be uploaded either: wait for the store rather than risk writing records twice.
                    uploader.storeFailed(w.partition(), e.getMessage());
                    gate.failed(w, clock.instant());
                    w.assignmentWaits(committed);
                    return;
                }
                if (e.httpStatus() == 404) {
                    // An object listed a moment ago is gone (moved or deleted meanwhile): the lookup runs again on the
                    // partition's next poll and finds what is there now.
                    LOG.log(Level.INFO, "partition " + w.partition() + ": an object vanished while the store was"
                            + " searched for files already durable (" + e.getMessage() + "); searching again");
                    gate.failed(w, clock.instant());
                    w.assignmentWaits(committed);
                    return;
                }
                // Skipping the lookup could upload a cut beside one another member claimed (or already wrote): this
                // partition halts, the others go on, and claims stay on.
                w.restart(committed, true);
                w.haltFor("stream " + w.partition().stream() + ", topic " + w.partition().topic() + ", partition "
                        + w.partition().partitionId() + ": the search for files already durable from offset "
                        + (committed + 1) + " failed (" + e.getMessage() + "). The partition is halted rather than"
                        + " write records twice; grant the sink s3:ListBucket and s3:GetObject there (and kms:Decrypt"
                        + " for an SSE-KMS object), or move the named object away if it is not this sink's, then"
                        + " restart the sink");
                return;
            }
        }
        w.restart(committed, true);
        if (completeness != null) completeness.assigned(w, groupOffset, committed);
        if (found.stale().isPresent()) {
            w.haltFor(found.stale().get());
            return;
        }
        w.assigned(claimFiles ? claims : null, found.claimedFirst(), found.claimedLast(), found.claimedLate());
        if (found.run().isPresent()) w.follow(found.run().get(), found.committed());
        LOG.log(Level.INFO, "partition " + w.partition() + " assigned; reading from offset " + (committed + 1));
    }

    /**
     * Starts the poll that comes after {@code current}'s batch: the first owned writer from index {@code from} on
     * that may be polled, at its position, or {@code current} itself at {@code nextOfThis} (its batch is not
     * encoded yet). A guess: {@link Fetcher#fetch} drops it when the writer's position or generation moved (a bad
     * record, a revocation, a restart).
     */
    private void prefetchFrom(int from, PartitionWriter current, long nextOfThis) {
        if (fetcher.hasAhead()) return;
        for (int k = 0; k < writers.size(); k++) {
            PartitionWriter next = writers.get((from + k) % writers.size());
            if (!pollable(next) || !next.owned()) continue;
            fetcher.fetchAhead(next, next == current ? nextOfThis : next.position());
            return;
        }
    }

    /** The source rebuilt its session: positions and ownership are void; each partition is assigned anew. */
    private void resync() {
        epoch = source.sessionEpoch();
        for (PartitionWriter w : writers) w.restart(w.lastCommitted(), false);
        fetcher.forget();
        LOG.log(Level.INFO, "session of " + name() + " was rebuilt; every partition restarts from its committed"
                + " offset (records not yet durable are read again)");
    }

    /** Adds writers for partitions created since the last look. */
    private void refreshPartitions() {
        Instant now = clock.instant();
        if (now.isBefore(partitionsReadAt.plus(PARTITION_REFRESH))) return;
        partitionsReadAt = now;
        try {
            List<PartitionRef> partitions = source.partitions();
            for (PartitionRef p : partitions) {
                if (writers.stream().noneMatch(w -> w.partition().equals(p))) {
                    writers.add(newWriter(p));
                    LOG.log(Level.INFO, "partition " + p + " was added to " + name() + "; it is consumed from now on");
                }
            }
        } catch (TopicMissingException e) {
            topicMissing(e);
        } catch (SourceException e) {
            LOG.log(Level.DEBUG, "reading the partitions of " + name() + " failed; trying again later: "
                    + e.getMessage());
        }
    }

    /** Reads each partition's end offset from the topic's metadata, every {@link #LAG_REFRESH}. */
    private void refreshEnds() {
        Instant now = clock.instant();
        if (now.isBefore(endsReadAt.plus(LAG_REFRESH))) return;
        endsReadAt = now;
        try {
            Map<PartitionRef, Long> ends = source.endOffsets();
            if (completeness != null) completeness.ends(ends, now);
            for (PartitionWriter w : writers) {
                Long end = ends.get(w.partition());
                if (end != null) w.currentOffset(end);
            }
        } catch (SourceException e) {
            // The lag keeps its last value; the failure itself shows where polling meets it.
            LOG.log(Level.DEBUG, "reading the end offsets of " + name() + " failed; trying again later: "
                    + e.getMessage());
        }
    }

    /**
     * Why this loop counts as stuck: it has not come round for longer than {@code after}. Empty while it turns, while
     * it waits for Iggy between attempts, and once it stops (a drain has its own deadline).
     */
    Optional<String> stuck(Instant now, Duration after) {
        if (finished || controls.stopping) return Optional.empty();
        Duration since = Duration.between(lastTurn, now);
        if (since.compareTo(after) <= 0) return Optional.empty();
        return Optional.of("the consumer loop of " + name() + " has not come round for " + since.toSeconds()
                + " s (since " + lastTurn + ")");
    }

    /**
     * The topic (or its stream) is gone: this topic halts, the sink's other topics go on. What was read and is not
     * durable yet is dropped like a revoked partition's (it was deleted with the topic, and nothing of it can be
     * committed); uploads under way end. Once every topic of the sink is missing, the sink stops.
     */
    private void topicMissing(TopicMissingException e) {
        if (missing != null) return;
        Instant now = clock.instant();
        missing = "topic " + name() + " does not exist (deleted?) since " + now + ": " + e.getMessage()
                + "; looking for it every " + TOPIC_LOOKUP.toSeconds() + " s";
        lookAgainAt = now.plus(TOPIC_LOOKUP);
        LOG.log(Level.ERROR, "topic " + name() + " is missing: " + e.getMessage() + ". Its consumer halts (what was"
                + " read and is not durable yet is dropped), the sink's other topics go on; it is looked for every "
                + TOPIC_LOOKUP.toSeconds() + " s and consumed again from its group's offset once it exists");
        for (PartitionWriter w : writers) {
            w.lost();
            sourceOutage.ended(w.partition(), false);
        }
        sourceOutage.ended("session", false);
        uploader.dropLost();
        fetcher.forget();
        metrics.topicMissing(stream.stream(), topic, true);
        controls.topicMissing(name(), true);
    }

    /** Whether the missing topic exists again (then it is consumed from now on); asked every {@link #TOPIC_LOOKUP}. */
    private boolean lookForTopic() {
        Instant now = clock.instant();
        if (now.isBefore(lookAgainAt)) return false;
        lookAgainAt = now.plus(TOPIC_LOOKUP);
        List<PartitionRef> partitions;
        try {
            source.connect();
            partitions = source.partitions();
        } catch (TopicMissingException e) {
            return false;
        } catch (SourceException e) {
            LOG.log(Level.DEBUG, "looking for " + name() + " failed; trying again later: " + e.getMessage());
            return false;
        }
        // A topic created again may have other partitions: those it lost are forgotten, new ones get writers.
        writers.removeIf(w -> {
            boolean gone = !partitions.contains(w.partition());
            if (gone) statusBoard.remove(w.partition());
            return gone;
        });
        for (PartitionRef p : partitions) {
            if (writers.stream().noneMatch(w -> w.partition().equals(p))) writers.add(newWriter(p));
        }
        partitionsReadAt = now;
        missing = null;
        LOG.log(Level.INFO, "topic " + name() + " exists again (" + partitions.size() + " partitions); consuming it"
                + " from its group's offset");
        metrics.topicMissing(stream.stream(), topic, false);
        controls.topicMissing(name(), false);
        return true;
    }

    /** Whether polling is held by a full memory budget with nothing read or freed, how badly and why. */
    Optional<Map.Entry<Health, String>> heldByBudget(Instant now, Duration after) {
        if (finished || controls.stopping) return Optional.empty();
        return relief.held(now, after);
    }

    /** Since when polling is held by a full memory budget with nothing read or freed; empty while it is not. */
    Optional<Instant> heldByBudgetSince() {
        return relief.heldSince();
    }

    /** Why the oldest folder of this topic holding records has no completeness marker yet; empty when none waits. */
    Optional<String> unmarked() {
        return completeness == null ? Optional.empty() : completeness.waiting();
    }

    /** Why this topic is halted: it does not exist (any more); empty while it does. */
    Optional<String> missing() {
        return Optional.ofNullable(missing);
    }

    private void sessionBackoff(SourceException e) throws InterruptedException {
        sessionFailures++;
        sourceOutage.failed("session", e.getMessage());
        sleeper.sleep(SOURCE_BACKOFF.delay(Math.min(sessionFailures, 30), Optional.empty(),
                ThreadLocalRandom.current().nextDouble()));
    }

    private void sessionRecovered() {
        sessionFailures = 0;
        sourceOutage.ended("session", true);
    }

    /** Since when polling this topic has been failing, with the last error; empty while it works. */
    Optional<String> sourceTrouble() {
        return sourceOutage.trouble();
    }

    private void applyEvents() {
        events.applyPending();
    }

    private void commitAll() {
        committer.commitAll(writers);
    }

    private void publish() {
        for (PartitionWriter w : writers) statusBoard.put(w.partition(), w.status());
    }

    /**
     * Seals everything (or, after a crash of this loop, drops what is open), waits for the uploads until the shutdown
     * deadline or a second stop signal, and commits what became durable.
     */
    private void drainOnStop(boolean crashed) {
        drain.run(writers, crashed);
        publish();
        List<String> found = new ArrayList<>(Drain.problems(writers));
        if (missing != null) found.add(missing);
        problems.addAll(found);
        clean = !crashed && found.isEmpty();
    }

    boolean finished() {
        return finished;
    }

    boolean clean() {
        return clean;
    }

    List<String> problems() {
        return problems;
    }
}
