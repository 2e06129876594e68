package dev.iggysink.bootstrap.admin;

import dev.iggysink.application.status.TableStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToLongFunction;

/**
 * What an Iceberg table sink adds to its {@link MicrometerSinkMetrics} ({@code iggysink_table_*}, tagged with the
 * {@code sink}): a histogram of commit times, recorded as each commit goes through, and counters and per-lane
 * gauges copied from the sink's {@link TableStatus} by {@link #refresh} before each scrape. Thread-safe.
 */
public final class MicrometerTableMetrics {
    static final String PREFIX = MicrometerSinkMetrics.PREFIX + "table.";
    private static final TableStatus.Totals NONE = new TableStatus.Totals(0, 0, 0, Optional.empty(), 0, 0,
            Optional.empty(), Duration.ZERO, Duration.ZERO, 0, 0, 0, 0);

    private final MeterRegistry registry;
    private final Tags sinkTags;
    private final Timer commitDuration;
    private final AtomicReference<TableStatus.Totals> totals = new AtomicReference<>(NONE);
    private final AtomicLong failuresInRow = new AtomicLong();
    private final AtomicLong replacements = new AtomicLong();
    private final Map<List<String>, AtomicLong> tableOffsets = new ConcurrentHashMap<>();

    public MicrometerTableMetrics(MeterRegistry registry, String sinkKey) {
        this.registry = registry;
        this.sinkTags = Tags.of("sink", sinkKey);
        this.commitDuration = Timer.builder(PREFIX + "commit.duration")
                .description("time of a table commit that went through, catalog retries after conflicts included")
                .tags(sinkTags).publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(5)).maximumExpectedValue(Duration.ofMinutes(5))
                .register(registry);
        counter("commits", null, "table commits that went through (one snapshot each)", TableStatus.Totals::commits);
        counter("commit.failures", null, "table commits that failed (the catalog or store refused or timed out);"
                + " their partitions are looked up again", TableStatus.Totals::failedCommits);
        counter("commit.conflicts", null, "catalog retries of a commit after another writer's snapshot landed first",
                TableStatus.Totals::conflicts);
        counter("commit.refusals", null, "partitions a commit left out: the table's offset map had moved past what"
                + " this member expected (another member committed them)", TableStatus.Totals::refusedPartitions);
        counter("data.files", null, "Parquet data files written", TableStatus.Totals::dataFiles);
        counter("data", "bytes", "bytes of Parquet data files written", TableStatus.Totals::dataBytes);
        counter("rows", null, "rows committed to the tables", TableStatus.Totals::rowsCommitted);
        counter("bad.records", null, "records that did not fit their table (skipped or halting their partition,"
                + " per errors_tolerance)", TableStatus.Totals::badRecords);
        FunctionCounter.builder(PREFIX + "replacements", replacements, AtomicLong::get)
                .description("tables found dropped and created again while the sink ran; their partitions were read"
                        + " again from the group's offset").tags(sinkTags).register(registry);
        Gauge.builder(PREFIX + "commit.failures.in.row", failuresInRow, AtomicLong::get)
                .description("table commits that failed since the last one that went through; the sink is degraded"
                        + " while above 0").tags(sinkTags).strongReference(true).register(registry);
    }

    private void counter(String name, String unit, String description, ToLongFunction<TableStatus.Totals> value) {
        FunctionCounter.builder(PREFIX + name, totals, t -> value.applyAsLong(t.get())).baseUnit(unit)
                .description(description).tags(sinkTags).register(registry);
    }

    /** One commit went through after {@code took}. */
    public void commitTook(Duration took) {
        commitDuration.record(took);
    }

    /** Copies the sink's totals and lanes into the meters; call before each scrape. */
    public void refresh(TableStatus status) {
        totals.set(status.totals());
        failuresInRow.set(status.totals().failuresInRow());
        replacements.set(status.replacements());
        for (TableStatus.Lane l : status.lanes()) {
            List<String> key = List.of(l.stream(), l.topic(), Integer.toString(l.partition()), l.table());
            tableOffsets.computeIfAbsent(key, k -> {
                AtomicLong value = new AtomicLong(-1);
                Gauge.builder(PREFIX + "offset", value, AtomicLong::get)
                        .description("the last offset of the partition the table's offset map holds, as this member"
                                + " knows it (-1 none); lags iggysink_committed_offset only while a commit is under"
                                + " way").tags(sinkTags.and("stream", k.get(0), "topic", k.get(1), "partition",
                                k.get(2), "table", k.get(3))).strongReference(true).register(registry);
                return value;
            }).set(l.tableOffset());
        }
    }
}
