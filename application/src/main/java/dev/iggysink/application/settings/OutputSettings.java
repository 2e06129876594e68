package dev.iggysink.application.settings;

import java.time.ZoneId;
import java.util.Objects;
import java.util.Optional;

/**
 * Where and how files are written. {@code prefix} is already trimmed of {@code /} (empty = none).
 * {@code parquetCodec}: snappy, zstd, gzip, lz4_raw, none. {@code avroCodec}: null, deflate, snappy, zstd.
 * {@code completionMarker}: the name of each folder's completeness marker (ADR 0016); empty when none is written.
 * {@code lateRecords}: where a record whose folder its partition had already passed goes (ADR 0016).
 * {@code keyLayout}: how a file's key names its offsets ({@link KeyLayout}).
 */
public record OutputSettings(String prefix, String pathTemplate, OutputFormat format, Compression compression,
                             boolean includeMetadata, boolean includeHeaders, ZoneId timezone,
                             Optional<String> avroSchemaJson, String parquetCodec, String avroCodec,
                             String missingFieldPlaceholder, Optional<String> completionMarker,
                             LateRecords lateRecords, KeyLayout keyLayout) {
    public OutputSettings(String prefix, String pathTemplate, OutputFormat format, Compression compression,
                          boolean includeMetadata, boolean includeHeaders, ZoneId timezone,
                          Optional<String> avroSchemaJson, String parquetCodec, String avroCodec,
                          String missingFieldPlaceholder, Optional<String> completionMarker) {
        this(prefix, pathTemplate, format, compression, includeMetadata, includeHeaders, timezone, avroSchemaJson,
                parquetCodec, avroCodec, missingFieldPlaceholder, completionMarker, LateRecords.REWRITE_MARKER,
                KeyLayout.OFFSETS);
    }

    public OutputSettings(String prefix, String pathTemplate, OutputFormat format, Compression compression,
                          boolean includeMetadata, boolean includeHeaders, ZoneId timezone,
                          Optional<String> avroSchemaJson, String parquetCodec, String avroCodec,
                          String missingFieldPlaceholder, Optional<String> completionMarker, LateRecords lateRecords) {
        this(prefix, pathTemplate, format, compression, includeMetadata, includeHeaders, timezone, avroSchemaJson,
                parquetCodec, avroCodec, missingFieldPlaceholder, completionMarker, lateRecords, KeyLayout.OFFSETS);
    }

    public OutputSettings(String prefix, String pathTemplate, OutputFormat format, Compression compression,
                          boolean includeMetadata, boolean includeHeaders, ZoneId timezone,
                          Optional<String> avroSchemaJson, String parquetCodec, String avroCodec,
                          String missingFieldPlaceholder, Optional<String> completionMarker, KeyLayout keyLayout) {
        this(prefix, pathTemplate, format, compression, includeMetadata, includeHeaders, timezone, avroSchemaJson,
                parquetCodec, avroCodec, missingFieldPlaceholder, completionMarker, LateRecords.REWRITE_MARKER,
                keyLayout);
    }

    public OutputSettings(String prefix, String pathTemplate, OutputFormat format, Compression compression,
                          boolean includeMetadata, boolean includeHeaders, ZoneId timezone,
                          Optional<String> avroSchemaJson, String parquetCodec, String avroCodec,
                          String missingFieldPlaceholder) {
        this(prefix, pathTemplate, format, compression, includeMetadata, includeHeaders, timezone, avroSchemaJson,
                parquetCodec, avroCodec, missingFieldPlaceholder, Optional.empty());
    }

    public OutputSettings {
        Objects.requireNonNull(completionMarker, "completionMarker");
        Objects.requireNonNull(lateRecords, "lateRecords");
        Objects.requireNonNull(keyLayout, "keyLayout");
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(pathTemplate, "pathTemplate");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(compression, "compression");
        Objects.requireNonNull(timezone, "timezone");
        Objects.requireNonNull(avroSchemaJson, "avroSchemaJson");
        Objects.requireNonNull(parquetCodec, "parquetCodec");
        Objects.requireNonNull(avroCodec, "avroCodec");
        Objects.requireNonNull(missingFieldPlaceholder, "missingFieldPlaceholder");
        if (pathTemplate.isEmpty()) throw new IllegalArgumentException("path_template must not be empty");
    }

    public static OutputSettings jsonLines(String prefix, String pathTemplate) {
        return new OutputSettings(prefix, pathTemplate, OutputFormat.JSON_LINES, Compression.NONE, true, false,
                ZoneId.of("UTC"), Optional.empty(), "snappy", "null", "__missing__");
    }
}
