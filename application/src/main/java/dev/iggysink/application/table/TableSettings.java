package dev.iggysink.application.table;

import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.domain.retry.Backoff;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * The table sink's pipeline settings. A table gets a commit when {@code commitInterval} passed since its last one
 * (every open file of it is sealed then, so a record waits at most about one interval to be visible), or as soon as
 * {@code maxFilesPerCommit} files wait: a busy topic makes one snapshot per interval, not one per file. A bad record
 * under {@code errors_tolerance = "all"} becomes a dead letter below {@code dlqPrefix} in the warehouse.
 */
public record TableSettings(TableRouting routing, RotationPolicy rotation, Duration commitInterval,
                            int maxFilesPerCommit, int batchLength, ErrorTolerance errors, long maxBufferedBytes,
                            String dlqPrefix, Backoff retry) {
    /** The default of {@code max_buffered_bytes}. */
    public static final long DEFAULT_MAX_BUFFERED_BYTES = 64L * 1024 * 1024;
    /** The default of {@code dlq_prefix}, the object sink's. */
    public static final String DEFAULT_DLQ_PREFIX = "_dlq";

    /** The backoff of calls to a failing catalog or store: {@code retry_delay} 1 s doubling up to 10 s. */
    public static final Backoff DEFAULT_RETRY = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10),
            Backoff.DEFAULT_JITTER);

    public TableSettings(TableRouting routing, RotationPolicy rotation, Duration commitInterval, int maxFilesPerCommit,
                         int batchLength, ErrorTolerance errors, long maxBufferedBytes, String dlqPrefix) {
        this(routing, rotation, commitInterval, maxFilesPerCommit, batchLength, errors, maxBufferedBytes, dlqPrefix,
                DEFAULT_RETRY);
    }

    public TableSettings(TableRouting routing, RotationPolicy rotation, Duration commitInterval, int maxFilesPerCommit,
                         int batchLength, ErrorTolerance errors, long maxBufferedBytes) {
        this(routing, rotation, commitInterval, maxFilesPerCommit, batchLength, errors, maxBufferedBytes,
                DEFAULT_DLQ_PREFIX);
    }

    public TableSettings(TableRouting routing, RotationPolicy rotation, Duration commitInterval, int maxFilesPerCommit,
                         int batchLength, ErrorTolerance errors) {
        this(routing, rotation, commitInterval, maxFilesPerCommit, batchLength, errors, DEFAULT_MAX_BUFFERED_BYTES);
    }

    public TableSettings {
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(rotation, "rotation");
        Objects.requireNonNull(commitInterval, "commitInterval");
        Objects.requireNonNull(errors, "errors");
        Objects.requireNonNull(dlqPrefix, "dlqPrefix");
        Objects.requireNonNull(retry, "retry");
        if (commitInterval.isNegative() || commitInterval.isZero()) {
            throw new IllegalArgumentException("commit interval must be > 0, was " + commitInterval);
        }
        if (maxFilesPerCommit <= 0) throw new IllegalArgumentException("max files per commit must be > 0");
        if (batchLength <= 0) throw new IllegalArgumentException("batch length must be > 0");
        if (maxBufferedBytes <= 0) throw new IllegalArgumentException("max buffered bytes must be > 0");
        if (dlqPrefix.isEmpty()) throw new IllegalArgumentException("dlq prefix must not be empty");
    }
}
