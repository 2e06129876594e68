package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.FileRotation;
import dev.iggysink.application.settings.KeyLayout;
import dev.iggysink.application.settings.LateRecords;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.RetrySettings;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.domain.naming.PathTemplate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Validates one sink connector file's tree (environment overrides already applied) and converts it to a
 * {@link ConnectorConfig} (the pipeline's {@link SinkSettings} and the store, Iggy and admin tables): every key, alias, default and rule of the Rust S3 sink's connector file plus our additions
 * (see the README's configuration section). All problems are recorded; settings are produced only when this file
 * had none.
 */
final class ConnectorReader {
    static final long MIB = 1024L * 1024;
    static final long S3_MIN_PART = 5 * MIB;
    static final long S3_MAX_PART = 5 * 1024 * MIB;
    static final int S3_MAX_TAGS = 10;

    private static final Map<String, PayloadSchema> SCHEMAS = Map.of("json", PayloadSchema.JSON,
            "raw", PayloadSchema.RAW, "text", PayloadSchema.TEXT, "proto", PayloadSchema.PROTO,
            "flat_buffer", PayloadSchema.FLAT_BUFFER, "avro", PayloadSchema.AVRO);
    private static final Map<String, OutputFormat> FORMATS = Map.of("json_lines", OutputFormat.JSON_LINES,
            "jsonl", OutputFormat.JSON_LINES, "jsonlines", OutputFormat.JSON_LINES,
            "json_array", OutputFormat.JSON_ARRAY, "raw", OutputFormat.RAW, "avro", OutputFormat.AVRO,
            "parquet", OutputFormat.PARQUET);
    private static final Map<String, FileRotation> ROTATIONS = Map.of("size", FileRotation.SIZE,
            "messages", FileRotation.MESSAGES);
    private static final Map<String, Compression> COMPRESSIONS = Map.of("none", Compression.NONE,
            "gzip", Compression.GZIP, "zstd", Compression.ZSTD);
    private static final Map<String, ErrorTolerance> TOLERANCES = Map.of("none", ErrorTolerance.NONE,
            "all", ErrorTolerance.ALL);
    private static final String FILESYSTEM = "filesystem";
    private static final Map<String, String> CLIENTS = Map.of("aws", "aws", "minio", "minio",
            FILESYSTEM, FILESYSTEM);
    private static final Map<String, String> SSE = Map.of("aes256", "AES256", "aws:kms", "aws:kms");
    private static final Map<String, String> PARQUET_CODECS = Map.of("snappy", "snappy", "zstd", "zstd",
            "gzip", "gzip", "lz4_raw", "lz4_raw", "none", "none", "uncompressed", "none");
    private static final Map<String, LateRecords> LATE_RECORDS = Map.of("rewrite_marker", LateRecords.REWRITE_MARKER,
            "late_path", LateRecords.LATE_PATH);
    private static final Map<String, String> AVRO_CODECS = Map.of("null", "null", "none", "null",
            "deflate", "deflate", "snappy", "snappy", "zstd", "zstd");
    private static final Set<String> CANNED_ACLS = Set.of("private", "public-read", "public-read-write",
            "authenticated-read", "aws-exec-read", "bucket-owner-read", "bucket-owner-full-control");
    private static final Set<String> STORAGE_CLASSES = Set.of("STANDARD", "REDUCED_REDUNDANCY", "STANDARD_IA",
            "ONEZONE_IA", "INTELLIGENT_TIERING", "GLACIER", "DEEP_ARCHIVE", "OUTPOSTS", "GLACIER_IR", "SNOW",
            "EXPRESS_ONEZONE");
    private static final Map<String, String> FORMATS_OF_FILE = Map.of("json", "json", "yaml", "yaml",
            "toml", "toml", "text", "text");
    private static final Map<String, String> OFFSET_COMMITS = Map.of("after_polling", "after_polling",
            "after_consuming", "after_consuming");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ConnectorReader() {
    }

    /**
     * @param root         the connector file's tree, environment overrides applied
     * @param baseDir      the connector file's directory (relative schema paths resolve against it)
     * @param inDirectory  whether the file came from a runtime config's connector directory: then
     *                     {@code runtimeIggy} (empty when the runtime's [iggy] had errors) is the connection; else the
     *                     file's own {@code [iggy]} table (or defaults) applies
     * @return the settings, or empty when this file had errors (recorded in {@code problems})
     */
    static Optional<ConnectorConfig> read(JsonNode root, Path baseDir, Problems problems,
                                          Map<String, String> origins, boolean inDirectory,
                                          Optional<IggyConfig> runtimeIggy, Map<String, String> env) {
        int before = problems.errorCount();
        Table top = new Table(root, "", problems, origins);
        top.warnUnknown(ConnectorKeys.TOP_LEVEL.names());

        Optional<String> type = top.requiredChoice("type", Map.of("sink", "sink", "source", "source"), false,
                "sink, source");
        if (type.isPresent() && type.get().equals("source")) {
            top.error("type", "\"source\" connectors are not supported: this program only runs S3 sinks");
        }
        Optional<String> key = top.requiredNonEmpty("key");
        Optional<Boolean> enabled = top.requiredBool("enabled");
        Optional<Long> version = top.has("version") ? top.integer("version") : missing(top, "version");
        if (version.isPresent() && version.get() < 0) {
            top.error("version", version.get() + " is out of range (expected 0 or more)");
        }
        Optional<String> name = top.requiredString("name");
        top.requiredString("path"); // the Rust plugin path: required upstream, no meaning here
        top.choice("plugin_config_format", FORMATS_OF_FILE, false, "json, yaml, toml, text");
        boolean verbose = top.bool("verbose", ConnectorKeys.VERBOSE.bool());
        top.bool("benchmark", ConnectorKeys.BENCHMARK.bool());
        top.choice("offset_commit", OFFSET_COMMITS, false, "after_polling, after_consuming")
                .filter("after_polling"::equals)
                .ifPresent(x -> problems.notice("offset_commit = \"after_polling\" is accepted, but this sink always "
                        + "commits offsets after the object is durable in the store"));

        String consumerGroupDefault = "iggy-connect-sink-" + key.orElse("");
        List<StreamDto> streams = streams(top, baseDir, consumerGroupDefault);

        Optional<PluginConfigDto> plugin = Optional.empty();
        if (!top.has("plugin_config")) {
            top.error("plugin_config", "required table is missing");
        } else {
            boolean everyStreamHasSchema = !streams.isEmpty()
                    && streams.stream().allMatch(st -> st.avroSchemaJson().isPresent());
            Table pluginTable = top.table("plugin_config");
            plugin = plugin(pluginTable, baseDir, everyStreamHasSchema);
            plugin.ifPresent(pc -> ObjectKeys.check(pluginTable, streams, pc));
        }

        List<TransformSettings> transforms = TransformsReader.read(top.table("transforms"));

        Optional<IggyConfig> iggy = ConnectionReader.connectorIggy(top, root, inDirectory, runtimeIggy, env, origins);
        Optional<AdminConfig> admin = ConnectionReader.admin(top.table("admin"));

        if (problems.errorCount() > before || type.isEmpty() || key.isEmpty() || enabled.isEmpty()
                || version.isEmpty() || name.isEmpty() || plugin.isEmpty() || iggy.isEmpty() || admin.isEmpty()) {
            return Optional.empty();
        }
        ConnectorFileDto file = new ConnectorFileDto(key.get(), name.get(), enabled.get(), version.get(), verbose,
                streams, plugin.get());
        try {
            return Optional.of(new ConnectorConfig(SettingsMapper.INSTANCE.toSettings(file, transforms),
                    plugin.get().storage(), iggy.get(), admin.get(), plugin.get().bufferDirectory()));
        } catch (IllegalArgumentException e) {
            // The checks above mirror every settings invariant; this only guards against them drifting apart.
            problems.error(key.get(), "invalid settings: " + e.getMessage());
            return Optional.empty();
        }
    }

    private static <T> Optional<T> missing(Table table, String key) {
        table.missing(key);
        return Optional.empty();
    }

    static List<StreamDto> streams(Table top, Path baseDir, String consumerGroupDefault) {
        List<StreamDto> result = new ArrayList<>();
        Set<List<String>> pairs = new java.util.HashSet<>();
        if (!top.has("streams")) {
            top.error("streams", "at least one [[streams]] entry is required");
            return result;
        }
        List<Table> entries = top.tables("streams");
        if (entries.isEmpty() && top.raw("streams").map(JsonNode::isArray).orElse(false)) {
            top.error("streams", "at least one [[streams]] entry is required");
        }
        for (Table s : entries) {
            int before = s.problems().errorCount();
            s.warnUnknown(ConnectorKeys.STREAM.names());
            Optional<String> stream = s.requiredNonEmpty("stream");
            Optional<List<String>> topics = s.has("topics") ? s.stringList("topics") : missing(s, "topics");
            if (topics.isPresent() && topics.get().isEmpty()) {
                s.error("topics", "must name at least one topic");
            }
            for (int i = 0; topics.isPresent() && i < topics.get().size(); i++) {
                String topic = topics.get().get(i);
                if (topic.isBlank()) {
                    s.problems().error(s.path("topics") + "[" + i + "]", "must not be empty");
                } else if (stream.isPresent() && !pairs.add(List.of(stream.get(), topic))) {
                    // One partition read twice would be written twice, under the same keys.
                    s.problems().error(s.path("topics") + "[" + i + "]", "stream " + StoreRules.quote(stream.get())
                            + " topic " + StoreRules.quote(topic) + " is listed twice");
                }
            }
            Optional<PayloadSchema> schema = s.requiredChoice("schema", SCHEMAS, false,
                    "json, raw, text, proto, flat_buffer, avro");
            int batchLength = s.intAtLeast("batch_length", 1).orElse(ConnectorKeys.BATCH_LENGTH.integer());
            Duration pollInterval = s.duration("poll_interval", true).orElse(ConnectorKeys.POLL_INTERVAL.duration());
            String consumerGroup = s.string("consumer_group", consumerGroupDefault);
            if (consumerGroup.isBlank()) {
                s.error("consumer_group", "must not be empty");
            }
            // A stream's schema serves both schema = "avro" decoding and avro/parquet output, so it is never unused.
            Optional<String> avroSchema = avroSchema(s, baseDir);
            if (s.problems().errorCount() == before && stream.isPresent() && topics.isPresent()
                    && schema.isPresent()) {
                result.add(new StreamDto(stream.get(), List.copyOf(topics.get()), schema.get(), batchLength,
                        pollInterval, consumerGroup, avroSchema));
            }
        }
        return result;
    }

    /** {@code avro_schema_json}, or the text of the file {@code avro_schema_path} names; checked to be JSON. */
    private static Optional<String> avroSchema(Table t, Path baseDir) {
        Optional<String> json = t.string("avro_schema_json");
        Optional<String> path = t.string("avro_schema_path");
        if (json.isPresent() && path.isPresent()) {
            t.error("avro_schema_path", "set together with " + t.path("avro_schema_json") + " (choose one)");
            return Optional.empty();
        }
        String key = json.isPresent() ? "avro_schema_json" : "avro_schema_path";
        Optional<String> text = json;
        if (path.isPresent()) {
            Path file = baseDir.resolve(path.get());
            try {
                text = Optional.of(Files.readString(file, StandardCharsets.UTF_8));
            } catch (IOException e) {
                t.error(key, "cannot read \"" + path.get() + "\" (relative to the config file's directory): "
                        + ConnectorConfigLoader.reason(e));
                return Optional.empty();
            }
        }
        if (text.isPresent()) {
            try {
                JSON.readTree(text.get());
            } catch (JacksonException e) {
                t.error(key, "is not valid JSON: " + e.getOriginalMessage());
                return Optional.empty();
            }
        }
        return text;
    }

    private static Optional<PluginConfigDto> plugin(Table p, Path baseDir, boolean everyStreamHasSchema) {
        int before = p.problems().errorCount();
        p.warnUnknown(ObjectSinkKeys.NAMES);

        String client = p.choice("storage_client", CLIENTS, true, "aws, minio, filesystem")
                .orElse(ObjectSinkKeys.STORAGE_CLIENT.string());
        boolean filesystem = client.equals(FILESYSTEM);
        Optional<Path> directory = directory(p, baseDir, filesystem);
        Optional<String> bucket = filesystem ? p.string("bucket") : p.requiredNonEmpty("bucket");
        Optional<String> region = filesystem ? p.string("region") : p.requiredNonEmpty("region");
        if (filesystem) {
            for (String key : ObjectSinkKeys.S3_ONLY) {
                if (p.has(key)) {
                    p.problems().warning(p.path(key) + " has no effect with " + p.path("storage_client")
                            + " = \"filesystem\"");
                }
            }
        } else {
            bucket.flatMap(StoreRules::bucketProblem).ifPresent(problem -> p.error("bucket", problem));
        }
        String prefix = trimSlashes(p.string("prefix", ObjectSinkKeys.PREFIX.string()));
        StoreRules.keyPartProblem(prefix).ifPresent(problem -> p.error("prefix", problem));
        Optional<String> endpoint = p.string("endpoint").map(String::strip).filter(s -> !s.isEmpty());
        endpoint.flatMap(StoreRules::endpointProblem).ifPresent(problem -> p.error("endpoint", problem));
        Optional<String> accessKeyId = p.string("access_key_id").filter(s -> !s.isEmpty());
        Optional<Secret> secretAccessKey = p.secret("secret_access_key").filter(s -> !s.reveal().isEmpty());
        // An empty value counts as unset, so an environment override can blank a credential out. Presence is
        // judged on the raw value, so a wrongly typed credential gives one error, not a second "both or neither".
        boolean keySet = isSet(p, "access_key_id");
        boolean secretSet = isSet(p, "secret_access_key");
        if (keySet && !secretSet) {
            p.error("access_key_id", "set without " + p.path("secret_access_key") + " (both or neither)");
        } else if (!keySet && secretSet) {
            p.error("secret_access_key", "set without " + p.path("access_key_id") + " (both or neither)");
        }
        CredentialsConfig credentials = filesystem ? CredentialsConfig.NONE
                : CredentialsReader.read(p, baseDir, accessKeyId.isPresent() && secretAccessKey.isPresent());
        String pathTemplate = p.string("path_template", ObjectSinkKeys.PATH_TEMPLATE.string());
        if (pathTemplate.isBlank()) {
            p.error("path_template", "must not be empty");
        } else {
            PathTemplate.problem(pathTemplate).or(() -> StoreRules.keyPartProblem(trimSlashes(pathTemplate)))
                    .ifPresent(problem -> p.error("path_template", problem));
        }
        FileRotation rotation = p.choice("file_rotation", ROTATIONS, false, "size, messages (lower case)")
                .orElse(ROTATIONS.get(ObjectSinkKeys.FILE_ROTATION.string()));
        long maxFileSize = p.size("max_file_size").orElse(ObjectSinkKeys.MAX_FILE_SIZE.size());
        if (maxFileSize <= 0) {
            p.error("max_file_size", "must be greater than 0");
        }
        OptionalLong maxMessages = OptionalLong.empty();
        Optional<Long> messages = p.integer("max_messages_per_file");
        if (messages.isPresent() && messages.get() <= 0) {
            p.error("max_messages_per_file", messages.get() + " must be greater than 0");
        } else if (messages.isPresent()) {
            maxMessages = OptionalLong.of(messages.get());
        }
        if (rotation == FileRotation.MESSAGES && !p.has("max_messages_per_file")) {
            p.error("max_messages_per_file", "required when file_rotation = \"messages\"");
        }
        OutputFormat format = p.choice("output_format", FORMATS, true,
                "json_lines (jsonl, jsonlines), json_array, raw, avro, parquet")
                .orElse(FORMATS.get(ObjectSinkKeys.OUTPUT_FORMAT.string()));
        boolean includeMetadata = p.bool("include_metadata", ObjectSinkKeys.INCLUDE_METADATA.bool());
        boolean includeHeaders = p.bool("include_headers", ObjectSinkKeys.INCLUDE_HEADERS.bool());

        if (p.has("max_attempts") && p.has("max_retries")) {
            p.error("max_retries", "is an alias of " + p.path("max_attempts") + "; set only one");
        }
        String attemptsKey = p.has("max_attempts") ? "max_attempts" : "max_retries";
        int maxAttempts = p.intAtLeast(attemptsKey, 0).orElse(ObjectSinkKeys.MAX_ATTEMPTS.integer());
        Duration[] delays = retryDelays(p);
        Duration retryDelay = delays[0];
        Duration retryMaxDelay = delays[1];
        boolean pathStyle = p.bool("path_style", endpoint.isPresent());

        Optional<Duration> rotateInterval = positive(p.duration("rotate_interval", true));
        Optional<Duration> rotateSchedule = positive(p.duration("rotate_schedule_interval", true));
        ZoneId timezone = timezone(p);
        Compression compression = p.choice("compression", COMPRESSIONS, true, "none, gzip, zstd")
                .orElse(COMPRESSIONS.get(ObjectSinkKeys.COMPRESSION.string()));
        long multipartThreshold = p.size("multipart_threshold").orElse(ObjectSinkKeys.MULTIPART_THRESHOLD.size());
        if (multipartThreshold <= 0) {
            p.error("multipart_threshold", "must be greater than 0");
        }
        long partSize = p.sizeAtLeast("multipart_part_size", S3_MIN_PART)
                .orElse(ObjectSinkKeys.MULTIPART_PART_SIZE.size());
        if (partSize > S3_MAX_PART) {
            p.error("multipart_part_size", "is too large (at most 5GiB, the S3 part limit)");
        }
        int uploadConcurrency = p.intAtLeast("upload_concurrency", 1)
                .orElse(ObjectSinkKeys.UPLOAD_CONCURRENCY.integer());
        int selfAudit = p.intAtLeast("self_audit_requests_per_minute", 0)
                .orElse(ObjectSinkKeys.SELF_AUDIT_REQUESTS_PER_MINUTE.integer());
        long maxBuffered = p.size("max_buffered_bytes").orElse(ObjectSinkKeys.MAX_BUFFERED_BYTES.size());
        if (maxBuffered <= 0) {
            p.error("max_buffered_bytes", "must be greater than 0");
        }
        ErrorTolerance tolerance = p.choice("errors_tolerance", TOLERANCES, true, "none, all")
                .orElse(TOLERANCES.get(ObjectSinkKeys.ERRORS_TOLERANCE.string()));
        String dlqPrefix = trimSlashes(p.string("dlq_prefix", ObjectSinkKeys.DLQ_PREFIX.string()));
        if (dlqPrefix.isEmpty()) {
            p.error("dlq_prefix", "must not be empty");
        } else {
            StoreRules.keyPartProblem(dlqPrefix).ifPresent(problem -> p.error("dlq_prefix", problem));
        }
        Optional<String> sse = p.choice("sse", SSE, true, "AES256, aws:kms");
        Optional<String> kmsKey = p.string("sse_kms_key_id").filter(s -> !s.isBlank());
        if (kmsKey.isPresent() && !sse.equals(Optional.of("aws:kms")) && !p.has("sse")) {
            p.error("sse_kms_key_id", "set without " + p.path("sse") + " = \"aws:kms\"");
        } else if (kmsKey.isPresent() && sse.isPresent() && !sse.get().equals("aws:kms")) {
            p.error("sse_kms_key_id", "only applies with " + p.path("sse") + " = \"aws:kms\"");
        }
        Optional<String> storageClass = p.string("storage_class").map(s -> s.strip().toUpperCase(Locale.ROOT));
        if (storageClass.isPresent() && !STORAGE_CLASSES.contains(storageClass.get())) {
            p.problems().warning(p.path("storage_class") + " \"" + storageClass.get() + "\" is not an AWS storage "
                    + "class; passed to the store as is");
        }
        Optional<String> cannedAcl = p.string("canned_acl");
        if (cannedAcl.isPresent() && !CANNED_ACLS.contains(cannedAcl.get())) {
            p.error("canned_acl", "\"" + cannedAcl.get() + "\" is not one of " + String.join(", ",
                    CANNED_ACLS.stream().sorted().toList()));
        }
        Map<String, String> tags = objectTags(p);
        Duration shutdownTimeout = p.duration("shutdown_timeout", false)
                .orElse(ObjectSinkKeys.SHUTDOWN_TIMEOUT.duration());
        Duration requestTimeout = p.duration("request_timeout", false)
                .orElse(ObjectSinkKeys.REQUEST_TIMEOUT.duration());
        if (requestTimeout.isZero()) {
            p.error("request_timeout", "must be greater than 0");
        }
        int maxOpenFiles = p.intAtLeast("max_open_files_per_partition", 1)
                .orElse(ObjectSinkKeys.MAX_OPEN_FILES_PER_PARTITION.integer());
        // Several open files interleave: neither the key lookup nor claims can then tell where a replay cuts, so
        // exactly-once does not hold. Nobody gets that without saying so.
        boolean atLeastOnce = p.bool("accept_at_least_once", ObjectSinkKeys.ACCEPT_AT_LEAST_ONCE.bool());
        if (maxOpenFiles > 1 && !atLeastOnce) {
            p.error("max_open_files_per_partition", maxOpenFiles + " open files per partition interleave, so a record"
                    + " may end up in two objects after a crash (at-least-once, see docs/delivery.md); set "
                    + p.path("accept_at_least_once") + " = true to accept that, or max_open_files_per_partition = 1"
                    + " for exactly once");
        } else if (maxOpenFiles == 1 && atLeastOnce) {
            p.problems().warning(p.path("accept_at_least_once") + " has no effect with "
                    + p.path("max_open_files_per_partition") + " = 1: delivery is exactly once");
        }
        Optional<String> completionMarker = completionMarker(p, pathTemplate, maxOpenFiles);
        LateRecords lateRecords = lateRecords(p, completionMarker);
        KeyLayout keyLayout = keyLayout(p, maxOpenFiles, completionMarker);
        Optional<String> parquetCodec = p.choice("parquet_codec", PARQUET_CODECS, true,
                "snappy, zstd, gzip, lz4_raw, none");
        Optional<String> avroCodec = p.choice("avro_codec", AVRO_CODECS, true, "null, deflate, snappy, zstd");
        String placeholder = p.string("missing_field_placeholder", ObjectSinkKeys.MISSING_FIELD_PLACEHOLDER.string());
        Optional<String> schema = avroSchema(p, baseDir);

        // Avro and Parquet compress inside the container: `compression` picks the codec, and the key gets no suffix.
        String finalParquetCodec = parquetCodec.orElse(ObjectSinkKeys.PARQUET_CODEC.string());
        String finalAvroCodec = avroCodec.orElse(ObjectSinkKeys.AVRO_CODEC.string());
        if ((format == OutputFormat.AVRO || format == OutputFormat.PARQUET) && compression != Compression.NONE) {
            String codecKey = format == OutputFormat.AVRO ? "avro_codec" : "parquet_codec";
            if (p.has(codecKey)) {
                p.error("compression", "set together with " + p.path(codecKey) + " for output_format = \""
                        + format.name().toLowerCase(Locale.ROOT) + "\" (choose one)");
            } else if (format == OutputFormat.AVRO) {
                finalAvroCodec = compression == Compression.GZIP ? "deflate" : "zstd";
            } else {
                finalParquetCodec = compression == Compression.GZIP ? "gzip" : "zstd";
            }
            compression = Compression.NONE;
        }
        if ((format == OutputFormat.AVRO || format == OutputFormat.PARQUET) && schema.isEmpty()
                && !everyStreamHasSchema && !p.has("avro_schema_json") && !p.has("avro_schema_path")) {
            p.error("avro_schema_json", "required when output_format is avro or parquet (or set "
                    + p.path("avro_schema_path") + ")");
        }

        if (p.problems().errorCount() > before || (filesystem ? directory.isEmpty()
                : bucket.isEmpty() || region.isEmpty())) {
            return Optional.empty();
        }
        StorageConfig storage = filesystem ? new StorageConfig.Directory(directory.get())
                : new StorageConfig.S3(client.equals("minio") ? StorageConfig.S3Client.MINIO
                : StorageConfig.S3Client.AWS, bucket.get(), region.get(), endpoint, pathStyle, accessKeyId,
                secretAccessKey, multipartThreshold, partSize, sse, kmsKey, storageClass, cannedAcl, tags,
                requestTimeout, credentials);
        return Optional.of(new PluginConfigDto(storage, uploadConcurrency,
                prefix, pathTemplate, format, compression, includeMetadata, includeHeaders, timezone, schema,
                finalParquetCodec, finalAvroCodec, placeholder, completionMarker, lateRecords, keyLayout,
                rotation, maxFileSize, maxMessages, rotateInterval, rotateSchedule, maxOpenFiles,
                maxAttempts, retryDelay, retryMaxDelay,
                maxBuffered, tolerance, dlqPrefix, shutdownTimeout, bufferDirectory(p, baseDir), selfAudit));
    }

    /**
     * {@code key_layout}: {@code offsets} (the default, the Rust sink's keys) or {@code first_offset} (ADR 0019), which
     * needs one open file per partition (its chain of files follows the offsets), and for now no completeness
     * markers (they read a file's range from its key).
     */
    private static KeyLayout keyLayout(Table p, int maxOpenFiles, Optional<String> completionMarker) {
        Map<String, KeyLayout> layouts = new java.util.LinkedHashMap<>();
        for (KeyLayout l : KeyLayout.values()) layouts.put(l.configName(), l);
        KeyLayout layout = p.choice("key_layout", layouts, false, String.join(", ", layouts.keySet()))
                .orElse(KeyLayout.OFFSETS);
        if (layout != KeyLayout.FIRST_OFFSET) return layout;
        if (maxOpenFiles > 1) {
            p.error("key_layout", "\"first_offset\" needs " + p.path("max_open_files_per_partition") + " = 1 (each"
                    + " file must start where the partition's previous file ended)");
        }
        if (completionMarker.isPresent()) {
            p.error("key_layout", "\"first_offset\" cannot be used with " + p.path("completion_marker") + " yet"
                    + " (markers list a folder's objects by the offsets in their keys)");
        }
        return layout;
    }

    /**
     * {@code completion_marker}: the name of each folder's completeness marker, or empty when it is off (unset,
     * {@code ""}, {@code off} or {@code none}). Markers need folders that are time windows and one open file per
     * partition (ADR 0016).
     */
    private static Optional<String> completionMarker(Table p, String pathTemplate, int maxOpenFiles) {
        Optional<String> given = p.string("completion_marker").map(String::strip)
                .filter(s -> !s.isEmpty() && !s.equalsIgnoreCase("off") && !s.equalsIgnoreCase("none"));
        if (given.isEmpty()) return given;
        String name = given.get();
        if (name.contains("/")) {
            p.error("completion_marker", "\"" + name + "\" is a file name, not a path (no /)");
        } else {
            StoreRules.keyPartProblem(name).ifPresent(problem -> p.error("completion_marker", problem));
        }
        if (name.matches("\\d{5}-.*")) {
            p.error("completion_marker", "\"" + name + "\" looks like a data object's name (PPPPP-first-last)");
        }
        PathTemplate.parse(pathTemplate).windowProblem().ifPresent(problem -> p.error("completion_marker",
                "needs a " + p.path("path_template") + " whose folders are time windows: " + problem));
        if (maxOpenFiles > 1) {
            p.error("completion_marker", "needs " + p.path("max_open_files_per_partition") + " = 1 (with several"
                    + " open files a file after a crash is not found again, so a folder's file list is not known)");
        }
        return given;
    }

    /**
     * {@code late_records}: what happens to a record whose folder's window its partition had already passed (ADR
     * 0016); {@code late_path} needs markers, since without them no record is late.
     */
    private static LateRecords lateRecords(Table p, Optional<String> completionMarker) {
        LateRecords rule = p.choice("late_records", LATE_RECORDS, true, "rewrite_marker, late_path")
                .orElse(LateRecords.REWRITE_MARKER);
        if (rule == LateRecords.LATE_PATH && completionMarker.isEmpty()) {
            p.error("late_records", "\"late_path\" needs " + p.path("completion_marker")
                    + " (without markers no record is late)");
        }
        return rule;
    }

    /**
     * {@code buffer_directory}: where open files are written as they grow, relative to the config file's directory
     * when not absolute; unset is the system's temporary directory, {@code ""} keeps open files on the heap.
     */
    /**
     * {@code retry_delay} and {@code retry_max_delay} (the backoff's base and cap; the cap defaults to 10 s, or the
     * base when longer), with their errors reported on {@code p}. The object sink and the table sink read them alike.
     */
    static Duration[] retryDelays(Table p) {
        Duration retryDelay = p.duration("retry_delay", false).orElse(ObjectSinkKeys.RETRY_DELAY.duration());
        Optional<Duration> givenMaxDelay = p.duration("retry_max_delay", false);
        Duration retryMaxDelay = givenMaxDelay.orElse(RetrySettings.DEFAULT_MAX_DELAY.compareTo(retryDelay) < 0
                ? retryDelay : RetrySettings.DEFAULT_MAX_DELAY);
        if (givenMaxDelay.isPresent() && givenMaxDelay.get().isZero()) {
            p.error("retry_max_delay", "must be greater than 0");
        } else if (givenMaxDelay.isPresent() && givenMaxDelay.get().compareTo(retryDelay) < 0) {
            p.error("retry_max_delay", Durations.format(givenMaxDelay.get()) + " is shorter than "
                    + p.path("retry_delay") + " (" + Durations.format(retryDelay) + ")");
        }
        return new Duration[] {retryDelay, retryMaxDelay};
    }

    private static String bufferDirectory(Table p, Path baseDir) {
        Optional<String> given = p.string("buffer_directory").map(String::strip);
        if (given.isEmpty()) return Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().toString();
        if (given.get().isEmpty()) return "";
        try {
            return baseDir.resolve(given.get()).toAbsolutePath().normalize().toString();
        } catch (java.nio.file.InvalidPathException e) {
            p.error("buffer_directory", "is not a valid path: " + e.getMessage());
            return "";
        }
    }

    /**
     * {@code directory}: where {@code storage_client = "filesystem"} writes, relative to the config file's directory
     * when not absolute; required there and refused with any other client (it would be silently ignored).
     */
    private static Optional<Path> directory(Table p, Path baseDir, boolean filesystem) {
        Optional<String> given = p.string("directory").map(String::strip);
        if (!filesystem) {
            if (given.isPresent()) {
                p.error("directory", "only applies with " + p.path("storage_client") + " = \"filesystem\"");
            }
            return Optional.empty();
        }
        if (given.isEmpty() || given.get().isEmpty()) {
            p.error("directory", "required when " + p.path("storage_client") + " = \"filesystem\" (the directory"
                    + " objects are written into, e.g. \"/data/lake\")");
            return Optional.empty();
        }
        try {
            return Optional.of(baseDir.resolve(Path.of(given.get())).normalize());
        } catch (java.nio.file.InvalidPathException e) {
            p.error("directory", StoreRules.quote(given.get()) + " is not a path: " + e.getReason());
            return Optional.empty();
        }
    }

    private static boolean isSet(Table t, String key) {
        return t.raw(key).map(v -> !(v.isString() && v.stringValue().isEmpty())).orElse(false);
    }

    /** Zero (or {@code none}/{@code disabled}) turns a rotation interval off, as if it were absent. */
    private static Optional<Duration> positive(Optional<Duration> d) {
        return d.filter(x -> !x.isZero());
    }

    private static ZoneId timezone(Table p) {
        Optional<String> zone = p.string("timezone");
        if (zone.isEmpty()) {
            return ZoneId.of(ObjectSinkKeys.TIMEZONE.string());
        }
        try {
            return ZoneId.of(zone.get().strip());
        } catch (DateTimeException e) {
            p.error("timezone", "\"" + zone.get() + "\" is not a time zone (e.g. UTC, Europe/Berlin)");
            return ZoneId.of(ObjectSinkKeys.TIMEZONE.string());
        }
    }

    /** {@code [plugin_config.object_tags]}: string values (numbers and booleans as their text), S3's limits. */
    private static Map<String, String> objectTags(Table p) {
        Map<String, String> tags = new LinkedHashMap<>();
        if (!p.has("object_tags")) {
            return tags;
        }
        Table t = p.table("object_tags");
        for (String k : t.keys()) {
            JsonNode v = t.raw(k).orElseThrow();
            if (!v.isValueNode() || v.isNull()) {
                t.error(k, "expected a string, got " + Table.describe(v));
                continue;
            }
            String value = v.asString();
            if (k.isEmpty() || k.length() > 128) {
                t.error(k, "tag keys must be 1 to 128 characters");
            } else if (value.length() > 256) {
                t.error(k, "tag values must be at most 256 characters");
            }
            tags.put(k, value);
        }
        if (tags.size() > S3_MAX_TAGS) {
            p.error("object_tags", tags.size() + " tags (S3 allows at most " + S3_MAX_TAGS + " per object)");
        }
        return tags;
    }

    static String trimSlashes(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && s.charAt(start) == '/') {
            start++;
        }
        while (end > start && s.charAt(end - 1) == '/') {
            end--;
        }
        return s.substring(start, end);
    }
}
