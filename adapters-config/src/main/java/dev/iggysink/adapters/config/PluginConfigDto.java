package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.FileRotation;
import dev.iggysink.application.settings.KeyLayout;
import dev.iggysink.application.settings.LateRecords;
import dev.iggysink.application.settings.OutputFormat;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code [plugin_config]} as the file has it: one flat table, every value converted, defaulted and cross-checked.
 * The mapper splits it into the storage, output, rotation, retry and delivery settings by property name.
 */
record PluginConfigDto(
        // storage: not the pipeline's; handed to bootstrap beside the settings
        StorageConfig storage,
        // the pipeline's part of the upload options
        int uploadConcurrency,
        // output
        String prefix, String pathTemplate, OutputFormat outputFormat, Compression compression,
        boolean includeMetadata, boolean includeHeaders, ZoneId timezone, Optional<String> avroSchemaJson,
        String parquetCodec, String avroCodec, String missingFieldPlaceholder, Optional<String> completionMarker,
        LateRecords lateRecords,
        KeyLayout keyLayout,
        // rotation
        FileRotation fileRotation, long maxFileSize, OptionalLong maxMessagesPerFile,
        Optional<Duration> rotateInterval, Optional<Duration> rotateScheduleInterval, int maxOpenFilesPerPartition,
        // retry
        int maxAttempts, Duration retryDelay, Duration retryMaxDelay,
        // delivery
        long maxBufferedBytes, ErrorTolerance errorsTolerance, String dlqPrefix, Duration shutdownTimeout,
        String bufferDirectory, int selfAuditRequestsPerMinute) {
}
