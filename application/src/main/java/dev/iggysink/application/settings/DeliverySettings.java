package dev.iggysink.application.settings;

import java.time.Duration;
import java.util.Objects;

/**
 * Memory budget (buffered + pending bytes above which polling pauses), bad-record policy and its dead-letter prefix
 * (under the output prefix), how long a graceful stop may take, how many files are uploaded at once, and how many
 * store requests a minute the sink's own audit may make (0: none).
 */
public record DeliverySettings(long maxBufferedBytes, ErrorTolerance errorsTolerance, String dlqPrefix,
                               Duration shutdownTimeout, int uploadConcurrency, int selfAuditRequestsPerMinute) {
    public static final int DEFAULT_UPLOAD_CONCURRENCY = 4;
    /**
     * 600 (10 a second): one HEAD for each committed object of a sink writing a few objects a second, and a listing
     * of each topic every ten seconds; at S3's request prices a few cents a day.
     */
    public static final int DEFAULT_SELF_AUDIT_REQUESTS_PER_MINUTE = 600;
    /**
     * 72 MiB: what the launcher's default heap holds (-Xmx256m, of which the serial collector gives 247 MiB to
     * objects; 2 x budget + 96 MiB, see HeapFit), and room for one 8 MiB file (the default max_file_size) open on
     * each of 8 partitions with one more uploading.
     */
    public static final long DEFAULT_MAX_BUFFERED_BYTES = 72L << 20;

    public DeliverySettings {
        Objects.requireNonNull(errorsTolerance, "errorsTolerance");
        Objects.requireNonNull(dlqPrefix, "dlqPrefix");
        Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        if (maxBufferedBytes <= 0) throw new IllegalArgumentException("maxBufferedBytes must be > 0");
        if (uploadConcurrency <= 0) throw new IllegalArgumentException("uploadConcurrency must be > 0");
        if (selfAuditRequestsPerMinute < 0) {
            throw new IllegalArgumentException("selfAuditRequestsPerMinute must be >= 0");
        }
    }

    /**
     * Settings without the self-audit: a sink built in code (a test, an embedding) makes no requests it did not ask
     * for; the connector file's default is {@link #DEFAULT_SELF_AUDIT_REQUESTS_PER_MINUTE}.
     */
    public DeliverySettings(long maxBufferedBytes, ErrorTolerance errorsTolerance, String dlqPrefix,
                            Duration shutdownTimeout, int uploadConcurrency) {
        this(maxBufferedBytes, errorsTolerance, dlqPrefix, shutdownTimeout, uploadConcurrency, 0);
    }

    public static DeliverySettings defaults() {
        return new DeliverySettings(DEFAULT_MAX_BUFFERED_BYTES, ErrorTolerance.NONE, "_dlq", Duration.ofSeconds(30),
                DEFAULT_UPLOAD_CONCURRENCY);
    }

}
