package dev.iggysink.application.settings;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * File rotation. As upstream, {@code maxFileSize} applies in SIZE mode and {@code maxMessagesPerFile} in MESSAGES
 * mode; {@code rotateInterval} (record time) and {@code rotateScheduleInterval} (wall clock) apply in either.
 */
public record RotationSettings(FileRotation mode, long maxFileSize, OptionalLong maxMessagesPerFile,
                               Optional<Duration> rotateInterval, Optional<Duration> rotateScheduleInterval,
                               int maxOpenFilesPerPartition) {
    public RotationSettings {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(maxMessagesPerFile, "maxMessagesPerFile");
        Objects.requireNonNull(rotateInterval, "rotateInterval");
        Objects.requireNonNull(rotateScheduleInterval, "rotateScheduleInterval");
        if (maxFileSize <= 0) throw new IllegalArgumentException("maxFileSize must be > 0");
        if (mode == FileRotation.MESSAGES && maxMessagesPerFile.isEmpty()) {
            throw new IllegalArgumentException("messages rotation needs maxMessagesPerFile");
        }
        if (maxOpenFilesPerPartition <= 0) throw new IllegalArgumentException("maxOpenFilesPerPartition must be > 0");
    }

    public static RotationSettings size(long maxFileSize) {
        return new RotationSettings(FileRotation.SIZE, maxFileSize, OptionalLong.empty(), Optional.empty(),
                Optional.empty(), 1);
    }

    public static RotationSettings messages(long count) {
        return new RotationSettings(FileRotation.MESSAGES, 8L * 1024 * 1024, OptionalLong.of(count),
                Optional.empty(), Optional.empty(), 1);
    }
}
