package dev.iggysink.application.service;

import dev.iggysink.application.port.in.SinkControl;
import dev.iggysink.application.port.out.CodecFactory;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.Sleeper;
import dev.iggysink.application.port.out.SourceFactory;
import dev.iggysink.application.settings.FileRotation;
import dev.iggysink.application.settings.KeyLayout;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.KeyRules;
import dev.iggysink.domain.naming.PathTemplate;
import dev.iggysink.domain.retry.Backoff;
import dev.iggysink.domain.retry.RetryPolicy;
import dev.iggysink.domain.rotation.RotationPolicy;
import dev.iggysink.domain.rotation.RotationSchedule;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One sink connector: a consumer loop per (stream, topic), one upload pool, one memory budget. Start it, let it run,
 * stop it; {@link #status()} is safe to call from any thread at any time.
 */
public final class SinkService implements SinkControl {
    private static final System.Logger LOG = System.getLogger(SinkService.class.getName());
    /**
     * A consumer loop that has not come round for this long (or three poll intervals, when longer) is stuck: each of
     * its waits (an Iggy call, a backoff, an idle wait, a store listing) ends well before.
     */
    static final Duration STUCK_AFTER = Duration.ofMinutes(5);
    /** Health names at most this many self-audit findings; /status lists them all. */
    private static final int AUDIT_REASONS = 10;

    private final SinkSettings settings;
    private final SourceFactory sources;
    private final CodecFactory codecs;
    private final InstantSource clock;
    private final Sleeper sleeper;
    private final SinkMetrics metrics;
    private final MemoryBudget budget;
    private final Uploader uploader;
    private final ObjectStore store;
    private final Claims claims;
    private final Controls controls = new Controls();
    private final Map<PartitionRef, PartitionStatus> statusBoard = new ConcurrentHashMap<>();
    private final AtomicLong recordsConsumed = new AtomicLong();
    private final AtomicLong bytesConsumed = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();
    private final Map<dev.iggysink.domain.rotation.RotationReason, AtomicLong> rotations = new ConcurrentHashMap<>();
    private final List<TopicConsumer> consumers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    /** The sink's own audit, when {@code self_audit_requests_per_minute} is above 0; null otherwise. */
    private volatile SelfAudit selfAudit;
    private Thread auditThread;
    /** False in tests that run the self-audit's rounds themselves ({@link #auditNow}). */
    boolean auditInBackground = true;

    /**
     * @throws IllegalArgumentException when two (stream, topic) pairs of {@code settings} would write the same object
     *                                  keys ({@link KeyRules#collisions}; one would overwrite the other)
     */
    public SinkService(SinkSettings settings, SourceFactory sources, CodecFactory codecs, ObjectStore store,
                       InstantSource clock, Sleeper sleeper, SinkMetrics metrics) {
        refuseSharedKeys(settings);
        this.settings = settings;
        this.sources = sources;
        this.codecs = codecs;
        this.clock = clock;
        this.sleeper = sleeper;
        this.metrics = new SinkMetrics() {
            @Override
            public void consumed(PartitionRef partition, int records, long payloadBytes) {
                metrics.consumed(partition, records, payloadBytes);
            }

            @Override
            public void encoded(PartitionRef partition, long recordBytes) {
                metrics.encoded(partition, recordBytes);
            }

            @Override
            public void sealed(PartitionRef partition, dev.iggysink.domain.rotation.RotationReason reason,
                               long fileBytes) {
                rotations.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
                metrics.sealed(partition, reason, fileBytes);
            }

            @Override
            public void uploaded(PartitionRef partition, long bytes, Duration took) {
                metrics.uploaded(partition, bytes, took);
            }

            @Override
            public void uploadRetried(String reason) {
                metrics.uploadRetried(reason);
            }

            @Override
            public void deadLettered(PartitionRef partition) {
                deadLettered.incrementAndGet();
                metrics.deadLettered(partition);
            }

            @Override
            public void committed(PartitionRef partition, long offset) {
                metrics.committed(partition, offset);
            }

            @Override
            public void topicMissing(String stream, String topic, boolean missing) {
                metrics.topicMissing(stream, topic, missing);
            }
        };
        this.budget = new MemoryBudget(HeapFit.budget(settings.key(), settings.delivery().maxBufferedBytes(),
                Runtime.getRuntime().maxMemory(), !codecs.openFilesOnHeap()));
        RetryPolicy retry = new RetryPolicy(settings.retry().maxAttempts(), new Backoff(settings.retry().retryDelay(),
                settings.retry().retryMaxDelay(), Backoff.DEFAULT_JITTER));
        this.store = store;
        this.claims = new Claims(store, settings.output().prefix());
        String prefix = settings.output().prefix();
        this.uploader = new Uploader(store, claims, retry, clock, this.metrics,
                settings.delivery().uploadConcurrency(), (prefix.isEmpty() ? "" : prefix + "/") + Uploader.PROBE_NAME);
        uploader.checksums = settings.output().completionMarker().isPresent();
    }

    /** The rule {@code validate} applies, kept by the core too: a sink built directly must not overwrite itself. */
    private static void refuseSharedKeys(SinkSettings settings) {
        List<PartitionRef> pairs = new ArrayList<>();
        for (StreamSettings stream : settings.streams()) {
            for (String topic : stream.topics()) pairs.add(new PartitionRef(stream.stream(), topic, 0));
        }
        List<String> shared = KeyRules.collisions(settings.output().pathTemplate(), settings.output().timezone(),
                settings.output().missingFieldPlaceholder(), pairs);
        if (!shared.isEmpty()) throw new IllegalArgumentException(String.join("; ", shared));
    }

    /** The rotation rules the settings ask for; any combination, whichever comes first. */
    public static RotationPolicy rotationPolicy(SinkSettings settings) {
        RotationSettings r = settings.rotation();
        RotationPolicy policy = r.mode() == FileRotation.MESSAGES
                ? RotationPolicy.byCount(r.maxMessagesPerFile().orElseThrow())
                : RotationPolicy.bySize(r.maxFileSize());
        if (r.rotateInterval().isPresent()) policy = policy.withRecordSpan(r.rotateInterval().get());
        if (r.rotateScheduleInterval().isPresent()) {
            policy = policy.withSchedule(new RotationSchedule(r.rotateScheduleInterval().get(),
                    settings.output().timezone()));
        }
        return policy;
    }

    /** Starts one consumer thread per (stream, topic). Returns at once. */
    public synchronized void start() {
        if (!threads.isEmpty()) throw new IllegalStateException("already started");
        RotationPolicy policy = rotationPolicy(settings);
        for (StreamSettings stream : settings.streams()) {
            RecordCodec codec = codecs.forStream(stream);
            for (String topic : stream.topics()) {
                MessageSource source = sources.open(stream.stream(), topic, stream.consumerGroup());
                TopicConsumer consumer = new TopicConsumer(stream, topic, source, codec, settings, policy, uploader,
                        store, claims, budget, clock, sleeper, metrics, controls, statusBoard, recordsConsumed, bytesConsumed);
                consumers.add(consumer);
                Thread t = new Thread(consumer, "consume-" + consumer.name());
                t.setDaemon(false);
                threads.add(t);
            }
        }
        controls.topics = consumers.size();
        startSelfAudit();
        threads.forEach(Thread::start);
    }

    /** Builds the self-audit over every (stream, topic) and starts its thread, when its budget is above 0. */
    private void startSelfAudit() {
        int perMinute = settings.delivery().selfAuditRequestsPerMinute();
        if (perMinute <= 0) return;
        String prefix = settings.output().prefix();
        String dlq = settings.delivery().dlqPrefix();
        Audit audit = new Audit(store);
        boolean interleaved = settings.rotation().maxOpenFilesPerPartition() > 1;
        // Claims are made only with one open file per partition (see TopicConsumer) and keys naming both offsets.
        boolean firstOffsetKeys = settings.output().keyLayout() == KeyLayout.FIRST_OFFSET;
        boolean claiming = !interleaved && !firstOffsetKeys;
        // Its rounds then list each topic from the oldest window on, not the topic's whole history.
        boolean sortByTime = PathTemplate.parse(settings.output().pathTemplate()).keysSortByTime();
        List<SelfAudit.Target> targets = new ArrayList<>();
        for (StreamSettings stream : settings.streams()) {
            String space = Claims.space(stream.consumerGroup(), settings.output(), codecs.forStream(stream).extension());
            for (String topic : stream.topics()) {
                String claim = "";
                if (claiming) {
                    String one = Claims.key(prefix, space, new PartitionRef(stream.stream(), topic, 0), 0);
                    claim = one.substring(0, one.lastIndexOf('/') + 1);
                }
                targets.add(new SelfAudit.Target(stream.stream(), topic,
                        audit.listPrefix(prefix, settings.output().pathTemplate(), stream.stream(), topic), dlq,
                        audit.deadLetterPrefix(prefix, dlq, stream.stream(), topic), claim, interleaved,
                        firstOffsetKeys, sortByTime));
            }
        }
        SelfAudit self = new SelfAudit(store, targets, statusBoard::values, perMinute, clock, sleeper,
                () -> controls.stopping);
        self.removalPending(uploader::removalPending);
        for (TopicConsumer c : consumers) c.selfAudit(self);
        selfAudit = self;
        if (!auditInBackground) return;
        // The name carries the sink's key: the CPU metric of the self-audit finds its thread by it.
        auditThread = new Thread(self, AuditStatus.threadName(settings.key()));
        auditThread.setDaemon(true);
        auditThread.start();
        LOG.log(Level.INFO, "self-audit on: up to " + perMinute + " store requests a minute (HEAD of each committed"
                + " object, a listing of each topic every " + SelfAudit.ROUND_INTERVAL.toSeconds() + " s)");
    }

    /** Asks every loop to stop polling and drain; returns at once. */
    @Override
    public void requestStop() {
        controls.stopping = true;
    }

    /**
     * A second stop request while a stop is under way: stop waiting for uploads now; what is not durable is
     * reported and read again on the next start.
     */
    public void hurryStop() {
        controls.stopping = true;
        controls.hurry = true;
        uploader.abandon();
    }

    public boolean stopping() {
        return controls.stopping;
    }

    /** Blocks until every loop drained (bounded by {@code shutdown_timeout}) and reports. */
    public ShutdownReport awaitStopped() throws InterruptedException {
        Duration grace = settings.delivery().shutdownTimeout().plusSeconds(5);
        for (Thread t : threads) {
            // Uploads still running past the deadline are given up; their records will be read again.
            while (t.isAlive()) {
                t.join(grace.toMillis());
                if (t.isAlive()) uploader.abandon();
            }
        }
        if (!controls.hurry) uploader.finishRemovals(Duration.ofSeconds(5));
        uploader.abandon();
        if (auditThread != null) auditThread.interrupt();
        List<String> problems = new ArrayList<>();
        boolean clean = controls.fatal.get() == null;
        for (TopicConsumer c : consumers) {
            clean &= c.clean();
            problems.addAll(c.problems());
        }
        ShutdownReport report = new ShutdownReport(clean, Optional.ofNullable(controls.fatal.get()), problems);
        LOG.log(clean ? Level.INFO : Level.WARNING, "sink stopped " + (clean ? "cleanly" : "with problems: "
                + report.fatalError().map(f -> f + "; ").orElse("") + String.join("; ", problems)));
        return report;
    }

    /** Blocks until the sink stops by itself (a fatal error) or {@link #requestStop()} is called elsewhere. */
    public ShutdownReport awaitTermination() throws InterruptedException {
        for (Thread t : threads) t.join();
        return awaitStopped();
    }

    public ShutdownReport stop() throws InterruptedException {
        requestStop();
        return awaitStopped();
    }

    /** Seals every open file now; the files upload and commit as usual. */
    @Override
    public void flush() {
        controls.flushRequests.incrementAndGet();
    }

    @Override
    public void pause() {
        pause("a call of pause()");
    }

    @Override
    public synchronized void pause(String requestedBy) {
        if (controls.paused) return; // paused since the first request
        controls.pause = new Controls.Pause(clock.instant(), requestedBy);
        controls.paused = true;
    }

    @Override
    public synchronized void resume() {
        controls.paused = false;
        controls.pause = null;
    }

    /** How many files were sealed for each reason since start (size, count, record time, schedule, ...). */
    @Override
    public Map<String, Long> rotationCounts() {
        Map<String, Long> out = new java.util.TreeMap<>();
        rotations.forEach((reason, n) -> out.put(reason.name().toLowerCase(java.util.Locale.ROOT), n.get()));
        return out;
    }

    @Override
    public Optional<AuditStatus> audit() {
        SelfAudit self = selfAudit;
        return self == null ? Optional.empty() : Optional.of(self.status());
    }

    /** Runs one self-audit round now, on the calling thread (tests and tools); empty when the self-audit is off. */
    Optional<AuditStatus> auditNow() throws InterruptedException, dev.iggysink.application.port.out.StoreException {
        SelfAudit self = selfAudit;
        if (self == null) return Optional.empty();
        self.round();
        return Optional.of(self.status());
    }

    public Optional<String> fatalError() {
        return Optional.ofNullable(controls.fatal.get());
    }

    @Override
    public StatusSnapshot status() {
        List<PartitionStatus> partitions = new ArrayList<>(statusBoard.values());
        partitions.sort(Comparator.comparing(PartitionStatus::stream).thenComparing(PartitionStatus::topic)
                .thenComparingInt(PartitionStatus::partition));
        List<String> reasons = new ArrayList<>();
        Health health = Health.OK;
        if (controls.fatal.get() != null) {
            health = Health.FAILED;
            reasons.add(controls.fatal.get());
        }
        for (PartitionStatus p : partitions) {
            if (p.halted()) {
                health = Health.FAILED;
                p.lastError().ifPresent(reasons::add);
            }
        }
        for (TopicConsumer c : consumers) {
            Optional<String> missing = c.missing();
            if (missing.isPresent()) {
                health = Health.FAILED;
                reasons.add(missing.get());
            }
        }
        for (TopicConsumer c : consumers) {
            Optional<String> trouble = c.sourceTrouble();
            if (trouble.isPresent()) {
                if (health == Health.OK) health = Health.DEGRADED;
                reasons.add(trouble.get());
            }
        }
        java.time.Instant now = clock.instant();
        Duration after = stuckAfter();
        Optional<String> storeTrouble = uploader.trouble();
        // While the store fails, uploads cannot free memory: that outage is the reason, reported below.
        for (TopicConsumer c : storeTrouble.isPresent() ? List.<TopicConsumer>of() : consumers) {
            Optional<Map.Entry<Health, String>> held = c.heldByBudget(now, after);
            if (held.isPresent()) {
                if (held.get().getKey().compareTo(health) > 0) health = held.get().getKey();
                reasons.add(held.get().getValue());
            }
        }
        if (storeTrouble.isPresent()) {
            if (health == Health.OK) health = Health.DEGRADED;
            reasons.add(storeTrouble.get());
        }
        SelfAudit self = selfAudit;
        if (self != null) {
            List<String> found = self.status().problems();
            if (!found.isEmpty()) {
                health = Health.FAILED;
                for (int i = 0; i < Math.min(found.size(), AUDIT_REASONS); i++) reasons.add("self-audit: " + found.get(i));
                if (found.size() > AUDIT_REASONS) {
                    reasons.add("self-audit: " + (found.size() - AUDIT_REASONS) + " more finding(s) in /status");
                }
            }
        }
        Controls.Pause pause = controls.pause;
        if (pause != null) {
            if (health == Health.OK) health = Health.PAUSED;
            reasons.add("paused since " + pause.since() + " (" + pause.requestedBy() + "): nothing is read until"
                    + " resumed; uploads and commits go on");
        }
        List<String> stuck = new ArrayList<>();
        for (TopicConsumer c : consumers) c.stuck(now, after).ifPresent(stuck::add);
        StatusSnapshot.Totals totals = new StatusSnapshot.Totals(recordsConsumed.get(), bytesConsumed.get(),
                uploader.objectsUploaded(), uploader.bytesUploaded(), uploader.retries(), deadLettered.get(),
                budget.used(),
                budget.max(), controls.paused);
        List<String> unmarked = new ArrayList<>();
        for (TopicConsumer c : consumers) c.unmarked().ifPresent(u -> unmarked.add(c.name() + ": " + u));
        return new StatusSnapshot(health, reasons, partitions, totals, now,
                Optional.ofNullable(pause).map(Controls.Pause::since), stuck, unmarked);
    }

    /**
     * Whether some topic's polling is held by the full memory budget right now: the moment from which its health
     * counts the time held.
     */
    boolean pollingHeldByBudget() {
        for (TopicConsumer c : consumers) {
            if (c.heldByBudgetSince().isPresent()) return true;
        }
        return false;
    }

    private Duration stuckAfter() {
        Duration after = STUCK_AFTER;
        for (StreamSettings s : settings.streams()) {
            Duration three = s.pollInterval().multipliedBy(3);
            if (three.compareTo(after) > 0) after = three;
        }
        return after;
    }
}
