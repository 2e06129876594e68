package dev.iggysink.application.service;

import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.PartitionRevokedException;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.Sleeper;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
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
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The consumer loop of one topic: polls every partition explicitly from the position it tracks, feeds the partition
 * writers, applies upload results and commits what became durable. Runs on its own thread; the {@link MessageSource}
 * and the writers are touched by this thread only.
 */
final class TopicConsumer implements Runnable {
    private static final System.Logger LOG = System.getLogger(TopicConsumer.class.getName());
    private static final Backoff SOURCE_BACKOFF = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(10), 0.2);

    private record Completed(PartitionWriter writer, long generation, UploadResult result) {
    }

    /** A poll started ahead, while the previous batch was being encoded; valid only if nothing moved meanwhile. */
    private record Prefetch(PartitionWriter writer, long from, long generation, Future<Batch> batch) {
    }

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
    private final BlockingQueue<Completed> completions = new LinkedBlockingQueue<>();
    private final ExecutorService fetcher;
    private Prefetch prefetch;
    private final List<PartitionWriter> writers = new ArrayList<>();
    private final FileLayout layout;
    private final RotationPolicy policy;

    private long epoch;
    /** Payload bytes per record in the last non-empty poll; sizes the next poll against the memory budget. */
    private long averageRecordBytes = 1;
    private long seenFlushes;
    private int sourceFailures;
    private volatile java.time.Instant sourceDownSince;
    private volatile String sourceError;
    private volatile boolean finished;
    private volatile boolean clean;
    private final List<String> problems = new ArrayList<>();

    TopicConsumer(StreamSettings stream, String topic, MessageSource source, RecordCodec codec,
                  SinkSettings settings, RotationPolicy policy, Uploader uploader, MemoryBudget budget,
                  InstantSource clock, Sleeper sleeper, SinkMetrics metrics, Controls controls,
                  Map<PartitionRef, PartitionStatus> statusBoard, AtomicLong recordsConsumed,
                  AtomicLong bytesConsumed) {
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
        this.fetcher = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fetch-" + stream.stream() + "/" + topic);
            t.setDaemon(true);
            return t;
        });
    }

    String name() {
        return stream.stream() + "/" + topic;
    }

    @Override
    public void run() {
        try {
            if (start()) {
                loop();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "consumer of " + name() + " failed", e);
            controls.fail("consumer of " + name() + " failed: " + e);
        } finally {
            drainOnStop();
            fetcher.shutdownNow();
            source.close();
            finished = true;
        }
    }

    private boolean start() throws InterruptedException {
        while (!controls.stopping) {
            try {
                source.connect();
                List<PartitionRef> partitions = source.partitions();
                epoch = source.sessionEpoch();
                writers.clear();
                for (PartitionRef p : partitions) {
                    long committed = source.committedOffset(p).orElse(-1);
                    writers.add(newWriter(p, committed));
                }
                LOG.log(Level.INFO, "consuming " + name() + " (" + partitions.size() + " partitions) as group "
                        + stream.consumerGroup());
                sourceRecovered();
                return true;
            } catch (SourceException e) {
                if (!e.retryable()) {
                    controls.fail("cannot consume " + name() + ": " + e.getMessage());
                    return false;
                }
                backoffAfter(e);
            }
        }
        return false;
    }

    private PartitionWriter newWriter(PartitionRef p, long committed) {
        PartitionWriter[] self = new PartitionWriter[1];
        self[0] = new PartitionWriter(p, committed, codec, layout, policy,
                settings.rotation().maxOpenFilesPerPartition(), settings.delivery().errorsTolerance(),
                settings.delivery().dlqPrefix(), budget, clock, metrics,
                (job, generation) -> uploader.submit(job,
                        result -> completions.add(new Completed(self[0], generation, result))));
        return self[0];
    }

    private void loop() throws InterruptedException {
        Duration idle = stream.pollInterval().isZero() ? Duration.ofMillis(1) : stream.pollInterval();
        boolean pressureLogged = false;
        while (!controls.stopping) {
            applyCompletions();
            commitAll();
            if (source.sessionEpoch() != epoch) resync();
            boolean got = false;
            if (!controls.paused) {
                if (budget.exhausted()) {
                    if (!pressureLogged) {
                        LOG.log(Level.INFO, "memory budget of " + budget.max() + " bytes reached; polling of "
                                + name() + " pauses until uploads free memory");
                        pressureLogged = true;
                    }
                    relievePressure();
                } else {
                    pressureLogged = false;
                    got = pollAll();
                }
            }
            Instant now = clock.instant();
            for (PartitionWriter w : writers) w.tick(now);
            long flushes = controls.flushRequests.get();
            if (flushes != seenFlushes) {
                seenFlushes = flushes;
                for (PartitionWriter w : writers) w.sealAll(RotationReason.FLUSH);
            }
            publish();
            if (!got) {
                Completed c = completions.poll(idle.toNanos(), TimeUnit.NANOSECONDS);
                if (c != null) apply(c);
            }
        }
    }

    private boolean pollAll() throws InterruptedException {
        boolean got = false;
        for (int i = 0; i < writers.size(); i++) {
            PartitionWriter w = writers.get(i);
            if (controls.stopping || budget.exhausted()) break;
            if (w.halted()) continue;
            try {
                Batch batch = fetch(w);
                sourceRecovered();
                if (batch.sessionEpoch() != epoch) return got; // resync on the next turn
                if (!batch.owned()) {
                    w.lost();
                    continue;
                }
                if (!w.owned()) {
                    long committed = source.committedOffset(w.partition()).orElse(-1);
                    w.restart(committed, true);
                    LOG.log(Level.INFO, "partition " + w.partition() + " assigned; reading from offset "
                            + (committed + 1));
                    continue;
                }
                w.currentOffset(batch.currentOffset());
                List<SinkRecord> records = batch.records();
                if (!records.isEmpty()) {
                    got = true;
                    long bytes = 0;
                    for (SinkRecord r : records) bytes += r.payload().length;
                    averageRecordBytes = Math.max(1, bytes / records.size());
                    recordsConsumed.addAndGet(records.size());
                    bytesConsumed.addAndGet(bytes);
                    metrics.consumed(w.partition(), records.size(), bytes);
                    // Poll the next partition (or this one further on) while this batch is encoded.
                    prefetchAfter(i, records.get(records.size() - 1).offset() + 1);
                    // A bad record under errors_tolerance = none halts this partition only; health turns failed.
                    w.accept(records);
                }
            } catch (SourceException e) {
                if (!e.retryable()) {
                    controls.fail("polling " + w.partition() + " failed: " + e.getMessage());
                    return got;
                }
                w.error(e.getMessage());
                backoffAfter(e);
                return got;
            }
        }
        return got;
    }

    /** The batch of {@code w} at its position: the prefetched one when it is still valid, else a fresh poll. */
    private Batch fetch(PartitionWriter w) throws SourceException, InterruptedException {
        Prefetch p = prefetch;
        prefetch = null;
        if (p != null && p.writer() != w && !p.writer().halted() && p.writer().owned()) {
            prefetch = p; // meant for a partition polled later in this pass (this one was skipped by the guess)
            p = null;
        }
        if (p != null) {
            boolean valid = p.writer() == w && p.from() == w.position() && p.generation() == w.generation();
            try {
                Batch b = p.batch().get();
                if (valid) return b;
            } catch (ExecutionException e) {
                if (valid && e.getCause() instanceof SourceException se) throw se;
                if (valid && e.getCause() instanceof RuntimeException re) throw re;
            }
        }
        return source.poll(w.partition(), w.position(), pollSize());
    }

    /**
     * Starts the poll that comes after writer {@code i}'s batch: the next writer that is not halted at its position,
     * or, with one partition, the same writer at {@code nextOfThis}. A guess: {@link #fetch} drops it when the
     * writer's position or generation moved (a bad record, a revocation, a restart).
     */
    private void prefetchAfter(int i, long nextOfThis) {
        if (prefetch != null || budget.exhausted()) return;
        for (int k = 1; k <= writers.size(); k++) {
            PartitionWriter next = writers.get((i + k) % writers.size());
            if (next.halted() || !next.owned()) continue;
            long from = next == writers.get(i) ? nextOfThis : next.position();
            int size = pollSize();
            PartitionRef partition = next.partition();
            prefetch = new Prefetch(next, from, next.generation(),
                    fetcher.submit(() -> source.poll(partition, from, size)));
            return;
        }
    }

    /**
     * {@code batch_length}, cut down so that one poll cannot overshoot the memory budget by more than about one
     * record: a poll of 1,000 records of 64 KiB is 64 MiB on the heap before anything is encoded.
     */
    private int pollSize() {
        long room = Math.max(0, budget.max() - budget.used());
        long fits = Math.max(1, room / Math.max(1, averageRecordBytes));
        return (int) Math.min(stream.batchLength(), fits);
    }

    /** Nothing frees memory unless something is uploading: then the largest open file is sealed early. */
    private void relievePressure() {
        if (uploader.inFlight() > 0) return;
        PartitionWriter largest = null;
        for (PartitionWriter w : writers) {
            if (w.openBytes() > 0 && (largest == null || w.openBytes() > largest.openBytes())) largest = w;
        }
        if (largest != null) largest.sealAll(RotationReason.MEMORY_PRESSURE);
    }

    private void resync() throws InterruptedException {
        try {
            long newEpoch = source.sessionEpoch();
            for (PartitionWriter w : writers) {
                long committed = source.committedOffset(w.partition()).orElse(-1);
                w.restart(committed, true);
            }
            epoch = newEpoch;
            LOG.log(Level.INFO, "session of " + name() + " was rebuilt; every partition restarts from its committed"
                    + " offset (records not yet durable are read again)");
        } catch (SourceException e) {
            backoffAfter(e);
        }
    }

    private void backoffAfter(SourceException e) throws InterruptedException {
        sourceFailures++;
        sourceError = e.getMessage();
        if (sourceFailures == 1) {
            sourceDownSince = clock.instant();
            LOG.log(Level.WARNING, "source " + name() + " unavailable, retrying: " + e.getMessage());
        }
        sleeper.sleep(SOURCE_BACKOFF.delay(Math.min(sourceFailures, 30), Optional.empty(),
                ThreadLocalRandom.current().nextDouble()));
    }

    private void sourceRecovered() {
        if (sourceFailures > 0) {
            LOG.log(Level.INFO, "source " + name() + " recovered");
        }
        sourceFailures = 0;
        sourceDownSince = null;
    }

    /** Since when polling this topic has been failing, with the last error; empty while it works. */
    Optional<String> sourceTrouble() {
        java.time.Instant since = sourceDownSince;
        return since == null ? Optional.empty()
                : Optional.of("source " + name() + " unavailable since " + since + ": " + sourceError);
    }

    private void applyCompletions() {
        Completed c;
        while ((c = completions.poll()) != null) apply(c);
    }

    private void apply(Completed c) {
        c.writer().uploaded(c.result(), c.generation());
    }

    private void commitAll() {
        for (PartitionWriter w : writers) {
            OptionalLong offset = w.committable();
            if (offset.isEmpty()) continue;
            try {
                source.commit(w.partition(), offset.getAsLong());
                w.committed(offset.getAsLong());
                metrics.committed(w.partition(), offset.getAsLong());
            } catch (PartitionRevokedException e) {
                w.lost();
            } catch (SourceException e) {
                // Retried on the next turn; the offset only ever moves forward.
                w.error("commit failed: " + e.getMessage());
            }
        }
    }

    private void publish() {
        for (PartitionWriter w : writers) statusBoard.put(w.partition(), w.status());
    }

    /** Seal everything, wait for the uploads until the shutdown deadline, commit what became durable. */
    private void drainOnStop() {
        for (PartitionWriter w : writers) {
            if (w.owned()) w.sealAll(RotationReason.SHUTDOWN);
        }
        Instant deadline = clock.instant().plus(settings.delivery().shutdownTimeout());
        try {
            while (!allDrained() && clock.instant().isBefore(deadline)) {
                Completed c = completions.poll(50, TimeUnit.MILLISECONDS);
                if (c != null) {
                    apply(c);
                    applyCompletions();
                    commitAll();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        applyCompletions();
        commitAll();
        publish();
        boolean ok = true;
        for (PartitionWriter w : writers) {
            if (!w.owned()) continue;
            if (w.halted()) {
                ok = false;
                problems.add(w.haltReason().orElse("halted"));
            } else if (!w.settled()) {
                ok = false;
                problems.add("partition " + w.partition() + ": offsets from " + (w.lastCommitted() + 1)
                        + " were not made durable and committed; they will be read again on the next start");
            }
        }
        clean = ok;
    }

    private boolean allDrained() {
        for (PartitionWriter w : writers) {
            if (w.owned() && !w.drained()) return false;
        }
        return true;
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
