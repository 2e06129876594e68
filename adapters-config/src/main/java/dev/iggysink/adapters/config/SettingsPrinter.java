package dev.iggysink.adapters.config;

// Each section is a list of [plugin_config] keys of the key table.
import static dev.iggysink.adapters.config.ObjectSinkKeys.*;

import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.RetrySettings;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.application.table.TableSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The effective configuration of one sink as readable lines, in the file's own key names and units, for the
 * {@code run} command to print at start. Secrets print as {@code ****}; absent values as {@code -}.
 */
public final class SettingsPrinter {
    private static final String MASK = "****";

    private SettingsPrinter() {
    }

    public static String redacted(ConnectorConfig c) {
        SinkSettings s = c.sink();
        StringBuilder out = new StringBuilder();
        out.append("sink ").append(s.key()).append(" \"").append(s.name()).append("\" version ").append(s.version())
                .append(s.enabled() ? "" : " (disabled)").append(s.verbose() ? " verbose" : "").append('\n');
        iggy(out, c.iggy());
        for (int i = 0; i < s.streams().size(); i++) {
            stream(out, i, s.streams().get(i));
        }
        storage(out, c.storage(), s.delivery().uploadConcurrency());
        output(out, s.output());
        rotation(out, s.rotation());
        retry(out, s.retry());
        delivery(out, s.delivery(), c);
        admin(out, c.admin());
        line(out, "transforms", s.transforms().isEmpty() ? "none" : s.transforms().stream()
                .map(SettingsPrinter::transform).collect(Collectors.joining(", ")) + " (applied in this order)");
        return out.toString();
    }

    /**
     * {@link #redacted} as one line, its sections separated by {@code "; "}: what {@code run} logs at start, so that
     * the configuration is one event in a text log (one line) as in a JSON log (one object), and a log search for a
     * key finds the whole configuration.
     */
    public static String redactedLine(ConnectorConfig c) {
        return oneLine(redacted(c));
    }

    /** The effective configuration of a table sink, as {@link #redacted(ConnectorConfig)} of an object sink's. */
    public static String redacted(TableConnectorConfig c) {
        StringBuilder out = new StringBuilder();
        out.append("table sink ").append(c.key()).append(" \"").append(c.name()).append('"')
                .append(c.enabled() ? "" : " (disabled)").append('\n');
        iggy(out, c.iggy());
        for (int i = 0; i < c.streams().size(); i++) {
            stream(out, i, c.streams().get(i));
        }
        CatalogConfig k = c.catalog();
        line(out, "catalog", kv(TableSinkKeys.CATALOG_TYPE, k.type()), kv(TableSinkKeys.URI, k.uri()),
                kv(TableSinkKeys.WAREHOUSE, k.warehouse()), kv(TableSinkKeys.CATALOG_NAME, k.name()));
        line(out, "catalog credentials", kv(TableSinkKeys.CATALOG_TOKEN, k.token()),
                kv(TableSinkKeys.CATALOG_CREDENTIAL, k.credential()),
                kv(TableSinkKeys.CATALOG_OAUTH2_SERVER_URI, k.oauth2ServerUri()),
                kv(TableSinkKeys.CATALOG_USER, k.user()), kv(TableSinkKeys.CATALOG_PASSWORD, k.password()));
        line(out, "store", kv(TableSinkKeys.STORE_URL, k.storeUrl()),
                kv(TableSinkKeys.STORE_ACCESS_KEY_ID, k.storeAccessKeyId()),
                kv(TableSinkKeys.STORE_SECRET_ACCESS_KEY, k.storeSecretAccessKey()),
                kv(TableSinkKeys.STORE_REGION, k.storeRegion()), kv(TableSinkKeys.STORE_PATH_STYLE, k.pathStyle()));
        TableSettings t = c.table();
        line(out, "tables", kv(TableSinkKeys.TABLES, t.routing().tables()),
                kv(TableSinkKeys.DYNAMIC_ROUTING, t.routing().routeField().isPresent()),
                kv(TableSinkKeys.DYNAMIC_ROUTE_FIELD, t.routing().routeField()),
                kv(TableSinkKeys.CREATE_TABLES, c.creation().isPresent()),
                kv(TableSinkKeys.TABLE_COLUMNS, c.creation().map(TableConnectorConfig.Creation::columns)),
                kv(TableSinkKeys.PARTITION_SPEC, c.creation().map(TableConnectorConfig.Creation::partitionSpec)),
                kv(TableSinkKeys.EVOLVE_TABLES, c.creation().map(TableConnectorConfig.Creation::evolve).orElse(false)));
        line(out, "commits", kv(TableSinkKeys.COMMIT_INTERVAL, t.commitInterval()),
                kv(TableSinkKeys.MAX_FILES_PER_COMMIT, t.maxFilesPerCommit()),
                kv(TableSinkKeys.MAX_FILE_SIZE, t.rotation().maxBytes().isPresent()
                        ? Optional.of(t.rotation().maxBytes().getAsLong()) : Optional.empty()),
                kv(TableSinkKeys.MAX_MESSAGES_PER_FILE, t.rotation().maxRecords()),
                kv(TableSinkKeys.MAX_BUFFERED_BYTES, t.maxBufferedBytes()));
        line(out, "delivery", kv(TableSinkKeys.ERRORS_TOLERANCE, t.errors()),
                kv(TableSinkKeys.DLQ_PREFIX, t.dlqPrefix()), kv(TableSinkKeys.DLQ_LOCATION, k.dlqLocation()),
                kv(TableSinkKeys.SELF_AUDIT_REQUESTS_PER_MINUTE, c.selfAuditRequestsPerMinute()));
        admin(out, c.admin());
        line(out, "transforms", c.transforms().isEmpty() ? "none" : c.transforms().stream()
                .map(SettingsPrinter::transform).collect(Collectors.joining(", ")) + " (applied in this order)");
        return out.toString();
    }

    /** {@link #redacted(TableConnectorConfig)} on one line, as {@link #redactedLine(ConnectorConfig)}. */
    public static String redactedLine(TableConnectorConfig c) {
        return oneLine(redacted(c));
    }

    private static String oneLine(String lines) {
        return lines.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("; "));
    }

    private static void iggy(StringBuilder out, IggyConfig i) {
        line(out, "iggy", "address=" + hostPort(i.host(), i.port()) + " username=" + i.username()
                + " password=" + MASK + " token=" + secret(i.token()) + " tls=" + (i.tlsEnabled() ? "on" : "off")
                + " tls_ca_file=" + opt(i.tlsCaFile()) + " tls_domain=" + opt(i.tlsDomain()));
    }

    private static void stream(StringBuilder out, int index, StreamSettings st) {
        line(out, "streams[" + index + "]", "stream=" + st.stream() + " topics=" + st.topics()
                + " schema=" + st.schema().name().toLowerCase(Locale.ROOT) + " batch_length=" + st.batchLength()
                + " poll_interval=" + Durations.format(st.pollInterval()) + " consumer_group=" + st.consumerGroup()
                + " avro_schema=" + schema(st.avroSchemaJson()));
    }

    private static void storage(StringBuilder out, StorageConfig storage, int uploadConcurrency) {
        if (storage instanceof StorageConfig.Directory d) {
            line(out, "storage", kv(STORAGE_CLIENT, "filesystem"), kv(DIRECTORY, d.directory()));
            line(out, "upload", kv(UPLOAD_CONCURRENCY, uploadConcurrency));
            return;
        }
        StorageConfig.S3 st = (StorageConfig.S3) storage;
        line(out, "storage", kv(BUCKET, st.bucket()), kv(REGION, st.region()), kv(ENDPOINT, st.endpoint()),
                kv(PATH_STYLE, st.pathStyle()), kv(STORAGE_CLIENT, st.client()),
                kv(ACCESS_KEY_ID, st.accessKeyId()), kv(SECRET_ACCESS_KEY, st.secretAccessKey()),
                kv(REQUEST_TIMEOUT, st.requestTimeout()));
        credentials(out, st.credentials());
        line(out, "upload", kv(MULTIPART_THRESHOLD, st.multipartThreshold()),
                kv(MULTIPART_PART_SIZE, st.multipartPartSize()), kv(UPLOAD_CONCURRENCY, uploadConcurrency));
        line(out, "objects", kv(SSE, st.sse()), kv(SSE_KMS_KEY_ID, st.sseKmsKeyId()),
                kv(STORAGE_CLASS, st.storageClass()), kv(CANNED_ACL, st.cannedAcl()),
                kv(OBJECT_TAGS, st.objectTags()));
    }

    /** Only what is set: most files name no credential source and rely on the environment. */
    private static void credentials(StringBuilder out, CredentialsConfig c) {
        List<String> set = new ArrayList<>();
        c.profile().ifPresent(p -> set.add(kv(PROFILE, p)));
        c.credentialsFile().ifPresent(f -> set.add(kv(CREDENTIALS_FILE, f)));
        c.roleArn().ifPresent(arn -> set.addAll(List.of(kv(ROLE_ARN, arn), kv(EXTERNAL_ID, c.externalId()),
                kv(SESSION_NAME, c.sessionName()), kv(ASSUME_ROLE_DURATION, c.assumeRoleDuration()))));
        c.stsEndpoint().ifPresent(e -> set.add(kv(STS_ENDPOINT, e)));
        if (!set.isEmpty()) line(out, "credentials", set.toArray(String[]::new));
    }

    private static void output(StringBuilder out, OutputSettings o) {
        line(out, "output", kv(PREFIX, Optional.of(o.prefix()).filter(p -> !p.isEmpty())),
                kv(PATH_TEMPLATE, o.pathTemplate()), kv(OUTPUT_FORMAT, o.format()),
                kv(COMPRESSION, o.compression()), kv(INCLUDE_METADATA, o.includeMetadata()),
                kv(INCLUDE_HEADERS, o.includeHeaders()), kv(TIMEZONE, o.timezone().getId()),
                kv(COMPLETION_MARKER, o.completionMarker()),
                kv(LATE_RECORDS, o.lateRecords()),
                kv(KEY_LAYOUT, o.keyLayout().configName()));
        // avro_schema stands for avro_schema_json and avro_schema_path alike: the schema's size, not its text.
        line(out, "encoding", "avro_schema=" + schema(o.avroSchemaJson()), kv(PARQUET_CODEC, o.parquetCodec()),
                kv(AVRO_CODEC, o.avroCodec()), kv(MISSING_FIELD_PLACEHOLDER, o.missingFieldPlaceholder()));
    }

    private static void rotation(StringBuilder out, RotationSettings r) {
        line(out, "rotation", kv(FILE_ROTATION, r.mode()), kv(MAX_FILE_SIZE, r.maxFileSize()),
                kv(MAX_MESSAGES_PER_FILE, r.maxMessagesPerFile()), kv(ROTATE_INTERVAL, r.rotateInterval()),
                kv(ROTATE_SCHEDULE_INTERVAL, r.rotateScheduleInterval()),
                kv(MAX_OPEN_FILES_PER_PARTITION, r.maxOpenFilesPerPartition()),
                // in effect only above one open file, where the reader requires it
                kv(ACCEPT_AT_LEAST_ONCE, r.maxOpenFilesPerPartition() > 1));
    }

    private static void retry(StringBuilder out, RetrySettings r) {
        line(out, "retry", kv(MAX_ATTEMPTS, r.maxAttempts()), kv(RETRY_DELAY, r.retryDelay()),
                kv(RETRY_MAX_DELAY, r.retryMaxDelay()));
    }

    private static void delivery(StringBuilder out, DeliverySettings d, ConnectorConfig c) {
        line(out, "delivery", kv(MAX_BUFFERED_BYTES, d.maxBufferedBytes()),
                kv(ERRORS_TOLERANCE, d.errorsTolerance()), kv(DLQ_PREFIX, d.dlqPrefix()),
                kv(SHUTDOWN_TIMEOUT, d.shutdownTimeout()),
                kv(BUFFER_DIRECTORY, c.buffersOnDisk() ? c.bufferDirectory() : "(heap)"),
                kv(SELF_AUDIT_REQUESTS_PER_MINUTE, d.selfAuditRequestsPerMinute()));
    }

    /**
     * {@code name=value} of a {@code [plugin_config]} key, the value shown by the key's type ({@link ObjectSinkKeys}):
     * sizes and durations in the file's units, secrets masked, absent values {@code -}.
     */
    private static String kv(ConfigKey key, Object value) {
        return key.name() + "=" + shown(key, value);
    }

    private static String shown(ConfigKey key, Object value) {
        if (value instanceof Optional<?> o) return o.isPresent() ? shown(key, o.get()) : "-";
        if (value instanceof OptionalLong o) return o.isPresent() ? String.valueOf(o.getAsLong()) : "-";
        if (value instanceof Secret) return MASK;
        if (value instanceof Duration d) return Durations.format(d);
        if (value instanceof Enum<?> e) return lower(e);
        if (value instanceof Long n && key.type() == ConfigKey.Type.SIZE) return Sizes.format(n);
        if (value instanceof Map<?, ?> m) return m.isEmpty() ? "-" : new TreeMap<>(m).toString();
        return String.valueOf(value);
    }

    private static void admin(StringBuilder out, AdminConfig a) {
        line(out, "admin", "address=" + a.address().orElse("off") + " token=" + secret(a.token()));
    }

    private static String transform(TransformSettings t) {
        if (t instanceof TransformSettings.AddFields a) {
            return "add_fields(" + a.fields().stream().map(TransformSettings.FieldValue::key)
                    .collect(Collectors.joining(",")) + ")";
        }
        if (t instanceof TransformSettings.DeleteFields d) {
            return "delete_fields(" + String.join(",", d.fields()) + ")";
        }
        if (t instanceof TransformSettings.UpdateFields u) {
            return "update_fields(" + u.fields().stream().map(f -> f.value().key())
                    .collect(Collectors.joining(",")) + ")";
        }
        if (t instanceof TransformSettings.FilterFields f) {
            return "filter_fields(keep=" + String.join(",", f.keepFields()) + " patterns=" + f.patterns().size()
                    + " include_matching=" + f.includeMatching() + ")";
        }
        if (t instanceof TransformSettings.UnwrapEnvelope u) {
            return "unwrap_envelope(" + u.field() + ")";
        }
        return t.getClass().getSimpleName();
    }

    private static void line(StringBuilder out, String label, String text) {
        out.append("  ").append(label).append(": ").append(text).append('\n');
    }

    private static void line(StringBuilder out, String label, String... pairs) {
        line(out, label, String.join(" ", pairs));
    }

    private static String hostPort(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    private static String opt(Optional<String> value) {
        return value.orElse("-");
    }

    private static String secret(Optional<Secret> value) {
        return value.isPresent() ? MASK : "-";
    }

    private static String schema(Optional<String> json) {
        return json.map(j -> "(" + j.length() + " chars)").orElse("-");
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
