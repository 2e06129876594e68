package dev.iggysink.application.table;

import dev.iggysink.application.port.in.SinkControl;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.application.status.TableStatus;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.RotationReason;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An Iceberg table sink as the admin endpoints see it: the {@link SinkControl} over its consumer loops (one
 * {@link TableConsumer} per topic) and their shared {@link TableTally}. Health: failed while a partition is halted
 * (a bad record under {@code errors_tolerance = none}, a data file the table refused) or a loop ended on an error
 * that retrying cannot cure; degraded while the last commit failed (until one goes through), while the catalog or
 * the warehouse store fails ({@link TableTally#outages}), or while Iggy is retried; paused on request. Thread-safe.
 */
public final class TableSinkControl implements SinkControl {
    /** A loop that has not published for this long (or three poll intervals, when longer) is stuck. */
    static final Duration STUCK_AFTER = Duration.ofMinutes(5);

    private final TableTally tally;
    private final InstantSource clock;
    private final Runnable stop;
    private final Duration stuckAfter;
    private final long maxBufferedBytes;
    private final List<Loop> consumers = new CopyOnWriteArrayList<>();
    private final Map<String, String> troubles = new ConcurrentHashMap<>();
    private final Map<String, String> failures = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> rotations = new ConcurrentHashMap<>();
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicReference<Pause> pause = new AtomicReference<>();
    private volatile boolean stopping;
    private volatile TableSelfAudit selfAudit;
    /** At most this many self-audit findings are reasons of health; the rest are counted, all are in /status. */
    static final int AUDIT_REASONS = 10;

    private record Pause(Instant since, String requestedBy) { }

    private record Loop(String name, TableConsumer consumer) { }

    /**
     * @param maxBufferedBytes the heap budget of one consumer ({@code max_buffered_bytes}); each has its own
     * @param pollInterval     the longest poll interval of the sink's streams: a loop sleeps that long when idle
     * @param stop             asks every loop to stop and commit what it read
     */
    public TableSinkControl(TableTally tally, InstantSource clock, long maxBufferedBytes, Duration pollInterval,
                            Runnable stop) {
        this.tally = Objects.requireNonNull(tally, "tally");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.stop = Objects.requireNonNull(stop, "stop");
        this.maxBufferedBytes = maxBufferedBytes;
        Duration three = pollInterval.multipliedBy(3);
        this.stuckAfter = three.compareTo(STUCK_AFTER) > 0 ? three : STUCK_AFTER;
    }

    /**
     * Serves a consumer loop from now on ({@code loop} names it in reasons, e.g. "app/events"); a pause already asked
     * for applies to it too.
     */
    public void register(String loop, TableConsumer consumer) {
        consumer.pause(pause.get() != null);
        consumers.add(new Loop(loop, consumer));
    }

    /** The sink's own audit (issue 48): its findings fail health and its status is {@link #audit()}. */
    public void selfAudit(TableSelfAudit audit) {
        this.selfAudit = audit;
    }

    @Override
    public Optional<dev.iggysink.application.status.AuditStatus> audit() {
        TableSelfAudit self = selfAudit;
        return self == null ? Optional.empty() : Optional.of(self.status());
    }

    /** Iggy fails for the loop {@code loop} and is retried ({@code why}), or, with {@code null}, answers again. */
    public void trouble(String loop, String why) {
        if (why == null) troubles.remove(loop);
        else troubles.put(loop, why);
    }

    /** The loop {@code loop} ended on an error that retrying cannot cure: the sink needs a person. */
    public void failed(String loop, String why) {
        failures.put(loop, why);
    }

    /**
     * Counts what the sink read, skipped and sealed (for the totals and rotations of {@link #status()}), then passes
     * every call on to {@code delegate}.
     */
    public SinkMetrics counting(SinkMetrics delegate) {
        return new SinkMetrics() {
            @Override
            public void consumed(PartitionRef partition, int n, long payloadBytes) {
                records.addAndGet(n);
                bytes.addAndGet(payloadBytes);
                delegate.consumed(partition, n, payloadBytes);
            }

            @Override
            public void encoded(PartitionRef partition, long recordBytes) {
                delegate.encoded(partition, recordBytes);
            }

            @Override
            public void sealed(PartitionRef partition, RotationReason reason, long fileBytes) {
                rotations.computeIfAbsent(reason.name().toLowerCase(Locale.ROOT), k -> new AtomicLong())
                        .incrementAndGet();
                delegate.sealed(partition, reason, fileBytes);
            }

            @Override
            public void deadLettered(PartitionRef partition) {
                skipped.incrementAndGet();
                delegate.deadLettered(partition);
            }

            @Override
            public void committed(PartitionRef partition, long offset) {
                delegate.committed(partition, offset);
            }

            @Override
            public void topicMissing(String stream, String topic, boolean missing) {
                delegate.topicMissing(stream, topic, missing);
            }
        };
    }

    @Override
    public void flush() {
        consumers.forEach(l -> l.consumer().flush());
    }

    @Override
    public void pause() {
        pause("a caller in this process");
    }

    @Override
    public void pause(String requestedBy) {
        pause.compareAndSet(null, new Pause(clock.instant(), requestedBy));
        consumers.forEach(l -> l.consumer().pause(true));
    }

    @Override
    public void resume() {
        pause.set(null);
        consumers.forEach(l -> l.consumer().pause(false));
    }

    @Override
    public void requestStop() {
        stopping = true;
        stop.run();
    }

    @Override
    public Map<String, Long> rotationCounts() {
        Map<String, Long> out = new TreeMap<>();
        rotations.forEach((reason, n) -> out.put(reason, n.get()));
        return out;
    }

    @Override
    public StatusSnapshot status() {
        Instant now = clock.instant();
        List<PartitionStatus> partitions = new ArrayList<>();
        List<String> stuck = new ArrayList<>();
        long buffered = 0;
        for (Loop l : consumers) {
            TableView v = l.consumer().view();
            partitions.addAll(v.partitions());
            buffered += v.bufferedBytes();
            Duration since = Duration.between(v.at(), now);
            // a loop that ended on an error is failed, not stuck: a restart would not cure it
            if (!stopping && !failures.containsKey(l.name()) && since.compareTo(stuckAfter) > 0) {
                stuck.add("the table consumer loop of " + l.name() + " has not come round for " + since.toSeconds() + " s (since " + v.at() + ")");
            }
        }
        partitions.sort(Comparator.comparing(PartitionStatus::stream).thenComparing(PartitionStatus::topic)
                .thenComparingInt(PartitionStatus::partition));
        Health health = Health.OK;
        List<String> reasons = new ArrayList<>();
        for (String why : new TreeMap<>(failures).values()) {
            health = Health.FAILED;
            reasons.add(why);
        }
        for (PartitionStatus p : partitions) {
            if (p.halted()) {
                health = Health.FAILED;
                reasons.add("partition " + p.stream() + "/" + p.topic() + "/" + p.partition() + " halted: "
                        + p.lastError().orElse("?"));
            }
        }
        TableSelfAudit self = selfAudit;
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
        TableStatus.Totals totals = tally.totals();
        for (String why : tally.failingCommits()) {
            if (health == Health.OK) health = Health.DEGRADED;
            reasons.add(why);
        }
        for (String why : tally.outages()) {
            if (health == Health.OK) health = Health.DEGRADED;
            reasons.add(why);
        }
        for (String why : new TreeMap<>(troubles).values()) {
            if (health == Health.OK) health = Health.DEGRADED;
            reasons.add(why);
        }
        Pause p = pause.get();
        if (p != null) {
            if (health == Health.OK) health = Health.PAUSED;
            reasons.add("paused since " + p.since() + " (" + p.requestedBy() + "): nothing is read until resumed;"
                    + " what was read is still committed");
        }
        StatusSnapshot.Totals sums = new StatusSnapshot.Totals(records.get(), bytes.get(), totals.dataFiles(),
                totals.dataBytes(), totals.failedCommits(), skipped.get(), buffered,
                maxBufferedBytes * Math.max(1, consumers.size()), p != null);
        return new StatusSnapshot(health, reasons, partitions, sums, now,
                Optional.ofNullable(p).map(Pause::since), stuck);
    }

    @Override
    public Optional<TableStatus> tables() {
        List<TableStatus.Lane> lanes = new ArrayList<>();
        for (Loop l : consumers) lanes.addAll(l.consumer().view().lanes());
        lanes.sort(Comparator.comparing(TableStatus.Lane::stream).thenComparing(TableStatus.Lane::topic)
                .thenComparingInt(TableStatus.Lane::partition).thenComparing(TableStatus.Lane::table));
        List<TableStatus.Watermark> watermarks = new ArrayList<>();
        for (Loop l : consumers) watermarks.addAll(l.consumer().watermarks().values());
        watermarks.sort(Comparator.comparing(TableStatus.Watermark::stream).thenComparing(TableStatus.Watermark::topic)
                .thenComparing(TableStatus.Watermark::table));
        return Optional.of(new TableStatus(tally.totals(), lanes, tally.replacedLines(),
                tally.replacements(), watermarks));
    }
}
