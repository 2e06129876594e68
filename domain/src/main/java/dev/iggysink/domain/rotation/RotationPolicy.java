package dev.iggysink.domain.rotation;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * When to seal an open file; any combination of limits, whichever is reached first. Size, count and record time
 * are decided by the records alone, so re-reading the same offsets yields the same files (exactly-once keys); the
 * wall-clock schedule is not. An empty file is never sealed.
 *
 * <p>Size compares {@code recordBytes >= maxBytes} after the record is added, as the Rust sink's
 * {@code FileBuffer::should_rotate} does: a file reaches the limit with the record that crosses it, so it may
 * overshoot by at most one record.
 */
public record RotationPolicy(OptionalLong maxBytes, OptionalLong maxRecords, Optional<Duration> maxRecordSpan,
                             Optional<RotationSchedule> schedule) {
    public RotationPolicy {
        Objects.requireNonNull(maxBytes, "maxBytes");
        Objects.requireNonNull(maxRecords, "maxRecords");
        Objects.requireNonNull(maxRecordSpan, "maxRecordSpan");
        Objects.requireNonNull(schedule, "schedule");
        if (maxBytes.isPresent() && maxBytes.getAsLong() <= 0) {
            throw new IllegalArgumentException("max bytes must be > 0, was " + maxBytes.getAsLong());
        }
        if (maxRecords.isPresent() && maxRecords.getAsLong() <= 0) {
            throw new IllegalArgumentException("max records must be > 0, was " + maxRecords.getAsLong());
        }
        maxRecordSpan.ifPresent(span -> {
            if (span.isNegative() || span.isZero()) {
                throw new IllegalArgumentException("record span must be > 0, was " + span);
            }
        });
    }

    /** No limit at all: files are sealed only on path change, flush or shutdown. */
    public static RotationPolicy none() {
        return new RotationPolicy(OptionalLong.empty(), OptionalLong.empty(), Optional.empty(), Optional.empty());
    }

    public static RotationPolicy bySize(long maxBytes) {
        return new RotationPolicy(OptionalLong.of(maxBytes), OptionalLong.empty(), Optional.empty(), Optional.empty());
    }

    public static RotationPolicy byCount(long maxRecords) {
        return new RotationPolicy(OptionalLong.empty(), OptionalLong.of(maxRecords), Optional.empty(),
                Optional.empty());
    }

    public RotationPolicy withMaxBytes(long bytes) {
        return new RotationPolicy(OptionalLong.of(bytes), maxRecords, maxRecordSpan, schedule);
    }

    public RotationPolicy withMaxRecords(long records) {
        return new RotationPolicy(maxBytes, OptionalLong.of(records), maxRecordSpan, schedule);
    }

    public RotationPolicy withRecordSpan(Duration span) {
        return new RotationPolicy(maxBytes, maxRecords, Optional.of(span), schedule);
    }

    public RotationPolicy withSchedule(RotationSchedule newSchedule) {
        return new RotationPolicy(maxBytes, maxRecords, maxRecordSpan, Optional.of(newSchedule));
    }

    /**
     * Before a record is added: RECORD_TIME when the record is a full span (or more) after the file's first record
     * (Kafka Connect's {@code rotate.interval.ms}); the file is sealed first and the record opens the next one.
     * A record older than the first never triggers it.
     */
    public Optional<RotationReason> beforeAppend(FileProgress file, long recordTimestampMicros) {
        if (file.isEmpty() || maxRecordSpan.isEmpty()) return Optional.empty();
        long spanMicros = toMicrosSaturated(maxRecordSpan.get());
        long elapsed = recordTimestampMicros - file.firstTimestampMicros();
        return elapsed >= spanMicros ? Optional.of(RotationReason.RECORD_TIME) : Optional.empty();
    }

    /** After a record was added: SIZE, then COUNT, when the file reached the limit. */
    public Optional<RotationReason> afterAppend(FileProgress file) {
        if (file.isEmpty()) return Optional.empty();
        if (maxBytes.isPresent() && file.recordBytes() >= maxBytes.getAsLong()) {
            return Optional.of(RotationReason.SIZE);
        }
        if (maxRecords.isPresent() && file.recordCount() >= maxRecords.getAsLong()) {
            return Optional.of(RotationReason.COUNT);
        }
        return Optional.empty();
    }

    /** On a clock tick: SCHEDULE once a boundary after the file's opening has passed. */
    public Optional<RotationReason> onTick(FileProgress file, Instant now) {
        Objects.requireNonNull(now, "now");
        if (file.isEmpty() || schedule.isEmpty()) return Optional.empty();
        return now.isBefore(schedule.get().nextBoundaryAfter(file.openedAt()))
                ? Optional.empty()
                : Optional.of(RotationReason.SCHEDULE);
    }

    private static long toMicrosSaturated(Duration d) {
        long seconds = d.getSeconds();
        if (seconds >= Long.MAX_VALUE / 1_000_000L) return Long.MAX_VALUE;
        return seconds * 1_000_000L + d.getNano() / 1_000;
    }
}
