package dev.iggysink.bootstrap.admin;

import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.RotationReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One sink's {@link SinkMetrics} on a Micrometer registry. Every meter carries a {@code sink} tag (the connector
 * key) so that several sinks of one process can read the same stream without adding into each other.
 *
 * <p>The callbacks run on the consumer loops and the upload pool: meters of a partition are looked up once and
 * cached, so a callback costs a map lookup and an atomic add. Gauges that come from {@code SinkService.status()}
 * (lag, buffered bytes, budget, health) are set by {@link #refresh(StatusSnapshot)} just before each scrape.
 */
public final class MicrometerSinkMetrics implements SinkMetrics {
    static final String PREFIX = "iggysink.";

    private final MeterRegistry registry;
    private final String sink;
    private final Tags sinkTags;
    private final Map<PartitionRef, PartitionMeters> partitions = new ConcurrentHashMap<>();
    private final Timer uploadDuration;
    private final DistributionSummary fileSize;
    private final AtomicLong buffered = new AtomicLong();
    private final AtomicLong budget = new AtomicLong();
    private final AtomicLong health = new AtomicLong();
    private final AtomicLong paused = new AtomicLong();
    private final Map<String, AtomicLong> missingTopics = new ConcurrentHashMap<>();

    public MicrometerSinkMetrics(MeterRegistry registry, String sinkKey) {
        this.registry = registry;
        this.sink = sinkKey;
        this.sinkTags = Tags.of("sink", sinkKey);
        // Per sink, not per partition: a latency histogram is ~70 series, too many to multiply by partitions.
        this.uploadDuration = Timer.builder(PREFIX + "upload.duration")
                .description("time to upload one sealed file, retries included")
                .tags(sinkTags).publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(5)).maximumExpectedValue(Duration.ofMinutes(5))
                .register(registry);
        this.fileSize = DistributionSummary.builder(PREFIX + "file.size").baseUnit("bytes")
                .description("size of each sealed file").tags(sinkTags).register(registry);
        gauge("buffered", "bytes", "record bytes held in memory, not yet durable", buffered);
        gauge("buffer.budget", "bytes", "the memory budget (max_buffered_bytes)", budget);
        gauge("health", null, "0 ok, 1 degraded, 2 failed, 3 paused", health);
        gauge("paused", null, "1 while paused through /pause", paused);
    }

    private void gauge(String name, String unit, String description, AtomicLong value) {
        Gauge.builder(PREFIX + name, value, AtomicLong::get).baseUnit(unit).description(description)
                .tags(sinkTags).strongReference(true).register(registry);
    }

    /** The meters of one partition, created on its first event. */
    private final class PartitionMeters {
        final Counter records;
        final Counter consumedBytes;
        final Counter encodedBytes;
        final Counter uploadedBytes;
        final Counter uploadedObjects;
        final Counter deadLettered;
        final AtomicLong committed = new AtomicLong(-1);
        final AtomicLong lag = new AtomicLong();
        final AtomicLong bufferedBytes = new AtomicLong();
        final AtomicLong pendingAge = new AtomicLong();

        PartitionMeters(PartitionRef p) {
            Tags tags = sinkTags.and("stream", p.stream(), "topic", p.topic(),
                    "partition", Integer.toString(p.partitionId()));
            records = Counter.builder(PREFIX + "consumed.records").description("records read from Iggy")
                    .tags(tags).register(registry);
            consumedBytes = Counter.builder(PREFIX + "consumed").baseUnit("bytes")
                    .description("payload bytes read from Iggy").tags(tags).register(registry);
            encodedBytes = Counter.builder(PREFIX + "encoded").baseUnit("bytes")
                    .description("bytes written into files by the encoder").tags(tags).register(registry);
            uploadedBytes = Counter.builder(PREFIX + "uploaded").baseUnit("bytes")
                    .description("bytes of files made durable in the store").tags(tags).register(registry);
            uploadedObjects = Counter.builder(PREFIX + "uploaded.objects")
                    .description("files made durable in the store").tags(tags).register(registry);
            deadLettered = Counter.builder(PREFIX + "dead.lettered.records")
                    .description("records sent to the dead-letter prefix").tags(tags).register(registry);
            Gauge.builder(PREFIX + "committed.offset", committed, AtomicLong::get)
                    .description("the consumer group offset last committed (-1 none)").tags(tags)
                    .strongReference(true).register(registry);
            Gauge.builder(PREFIX + "lag", lag, AtomicLong::get).baseUnit("records")
                    .description("the backlog: the partition's end offset in Iggy minus the group's committed"
                            + " offset, read or not; read from the topic's metadata every 5 s, also while paused or"
                            + " retrying; 0 for a partition another member owns").tags(tags)
                    .strongReference(true).register(registry);
            Gauge.builder(PREFIX + "oldest.pending.record.age", pendingAge, AtomicLong::get).baseUnit("seconds")
                    .description("seconds since Iggy stored the oldest record read and not yet durable and"
                            + " committed; 0 when none (records not read yet count in lag)").tags(tags)
                    .strongReference(true).register(registry);
            Gauge.builder(PREFIX + "partition.buffered", bufferedBytes, AtomicLong::get).baseUnit("bytes")
                    .description("record bytes of the partition held in memory").tags(tags)
                    .strongReference(true).register(registry);
        }
    }

    private PartitionMeters meters(PartitionRef partition) {
        return partitions.computeIfAbsent(partition, PartitionMeters::new);
    }

    @Override
    public void consumed(PartitionRef partition, int records, long payloadBytes) {
        PartitionMeters m = meters(partition);
        m.records.increment(records);
        m.consumedBytes.increment(payloadBytes);
    }

    @Override
    public void encoded(PartitionRef partition, long recordBytes) {
        meters(partition).encodedBytes.increment(recordBytes);
    }

    @Override
    public void sealed(PartitionRef partition, RotationReason reason, long fileBytes) {
        // Rare (once per file): a registry lookup is cheap enough and keeps the reason set open.
        Counter.builder(PREFIX + "rotations").description("files sealed, by why")
                .tags(sinkTags.and("stream", partition.stream(), "topic", partition.topic(),
                        "reason", reason.name().toLowerCase(Locale.ROOT)))
                .register(registry).increment();
        fileSize.record(fileBytes);
    }

    @Override
    public void uploaded(PartitionRef partition, long bytes, Duration took) {
        PartitionMeters m = meters(partition);
        m.uploadedBytes.increment(bytes);
        m.uploadedObjects.increment();
        uploadDuration.record(took);
    }

    @Override
    public void uploadRetried(String reason) {
        Counter.builder(PREFIX + "upload.retries").description("failed upload attempts that were retried")
                .tags(sinkTags.and("reason", reason)).register(registry).increment();
    }

    @Override
    public void deadLettered(PartitionRef partition) {
        meters(partition).deadLettered.increment();
    }

    @Override
    public void committed(PartitionRef partition, long offset) {
        meters(partition).committed.set(offset);
    }

    /** 1 while a topic is missing (its consumer halted), else 0; the series appears when the topic is first consumed. */
    @Override
    public void topicMissing(String stream, String topic, boolean missing) {
        missingTopics.computeIfAbsent(stream + "/" + topic, k -> {
            AtomicLong value = new AtomicLong();
            Gauge.builder(PREFIX + "topic.missing", value, AtomicLong::get)
                    .description("1 while the topic does not exist (deleted while running): its consumer halted")
                    .tags(sinkTags.and("stream", stream, "topic", topic)).strongReference(true).register(registry);
            return value;
        }).set(missing ? 1 : 0);
    }

    /** Copies what only the status knows into gauges; call before each scrape. */
    public void refresh(StatusSnapshot status) {
        for (PartitionStatus p : status.partitions()) {
            PartitionMeters m = meters(new PartitionRef(p.stream(), p.topic(), p.partition()));
            m.lag.set(p.lag());
            m.pendingAge.set(p.pendingAgeSeconds(status.takenAt()));
            m.bufferedBytes.set(p.bufferedBytes());
            // The board is the truth at scrape time: it also knows an offset stored by an earlier run, which no
            // committed() callback of this run has reported yet.
            m.committed.set(p.committed());
        }
        buffered.set(status.totals().bufferedBytes());
        budget.set(status.totals().maxBufferedBytes());
        health.set(switch (status.health()) {
            case OK -> 0;
            case DEGRADED -> 1;
            case FAILED -> 2;
            case PAUSED -> 3;
        });
        paused.set(status.totals().paused() ? 1 : 0);
    }

    public String sinkKey() {
        return sink;
    }
}
