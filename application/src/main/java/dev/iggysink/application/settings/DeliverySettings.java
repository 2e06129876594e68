package dev.iggysink.application.settings;

import java.time.Duration;
import java.util.Objects;

/**
 * Memory budget (buffered + pending bytes above which polling pauses), bad-record policy and its dead-letter prefix
 * (under the output prefix), how long a graceful stop may take, and how many files are uploaded at once.
 */
public record DeliverySettings(long maxBufferedBytes, ErrorTolerance errorsTolerance, String dlqPrefix,
                               Duration shutdownTimeout, int uploadConcurrency) {
    public static final int DEFAULT_UPLOAD_CONCURRENCY = 4;

    public DeliverySettings {
        Objects.requireNonNull(errorsTolerance, "errorsTolerance");
        Objects.requireNonNull(dlqPrefix, "dlqPrefix");
        Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        if (maxBufferedBytes <= 0) throw new IllegalArgumentException("maxBufferedBytes must be > 0");
        if (uploadConcurrency <= 0) throw new IllegalArgumentException("uploadConcurrency must be > 0");
    }

    public static DeliverySettings defaults() {
        return new DeliverySettings(256L * 1024 * 1024, ErrorTolerance.NONE, "_dlq", Duration.ofSeconds(30),
                DEFAULT_UPLOAD_CONCURRENCY);
    }
}
