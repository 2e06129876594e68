package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.RetrySettings;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.settings.TransformSettings;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
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
        return redacted(c).lines().map(String::strip).filter(l -> !l.isEmpty())
                .collect(Collectors.joining("; "));
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
            line(out, "storage", "storage_client=filesystem directory=" + d.directory());
            line(out, "upload", "upload_concurrency=" + uploadConcurrency);
            return;
        }
        StorageConfig.S3 st = (StorageConfig.S3) storage;
        line(out, "storage", "bucket=" + st.bucket() + " region=" + st.region() + " endpoint=" + opt(st.endpoint())
                + " path_style=" + st.pathStyle() + " storage_client=" + lower(st.client())
                + " access_key_id=" + opt(st.accessKeyId()) + " secret_access_key=" + secret(st.secretAccessKey())
                + " request_timeout=" + Durations.format(st.requestTimeout()));
        credentials(out, st.credentials());
        line(out, "upload", "multipart_threshold=" + Sizes.format(st.multipartThreshold())
                + " multipart_part_size=" + Sizes.format(st.multipartPartSize())
                + " upload_concurrency=" + uploadConcurrency);
        line(out, "objects", "sse=" + opt(st.sse()) + " sse_kms_key_id=" + opt(st.sseKmsKeyId())
                + " storage_class=" + opt(st.storageClass()) + " canned_acl=" + opt(st.cannedAcl())
                + " object_tags=" + (st.objectTags().isEmpty() ? "-" : new java.util.TreeMap<>(st.objectTags())));
    }

    /** Only what is set: most files name no credential source and rely on the environment. */
    private static void credentials(StringBuilder out, CredentialsConfig c) {
        StringBuilder line = new StringBuilder();
        c.profile().ifPresent(p -> line.append(" profile=").append(p));
        c.credentialsFile().ifPresent(f -> line.append(" credentials_file=").append(f));
        c.roleArn().ifPresent(arn -> line.append(" role_arn=").append(arn)
                .append(" external_id=").append(secret(c.externalId()))
                .append(" session_name=").append(c.sessionName())
                .append(" assume_role_duration=").append(Durations.format(c.assumeRoleDuration())));
        c.stsEndpoint().ifPresent(e -> line.append(" sts_endpoint=").append(e));
        if (!line.isEmpty()) line(out, "credentials", line.substring(1));
    }

    private static void output(StringBuilder out, OutputSettings o) {
        line(out, "output", "prefix=" + (o.prefix().isEmpty() ? "-" : o.prefix()) + " path_template="
                + o.pathTemplate() + " output_format=" + lower(o.format()) + " compression=" + lower(o.compression())
                + " include_metadata=" + o.includeMetadata() + " include_headers=" + o.includeHeaders()
                + " timezone=" + o.timezone().getId());
        line(out, "encoding", "avro_schema=" + schema(o.avroSchemaJson()) + " parquet_codec=" + o.parquetCodec()
                + " avro_codec=" + o.avroCodec() + " missing_field_placeholder=" + o.missingFieldPlaceholder());
    }

    private static void rotation(StringBuilder out, RotationSettings r) {
        line(out, "rotation", "file_rotation=" + lower(r.mode()) + " max_file_size=" + Sizes.format(r.maxFileSize())
                + " max_messages_per_file=" + (r.maxMessagesPerFile().isPresent()
                ? String.valueOf(r.maxMessagesPerFile().getAsLong()) : "-")
                + " rotate_interval=" + duration(r.rotateInterval())
                + " rotate_schedule_interval=" + duration(r.rotateScheduleInterval())
                + " max_open_files_per_partition=" + r.maxOpenFilesPerPartition());
    }

    private static void retry(StringBuilder out, RetrySettings r) {
        line(out, "retry", "max_attempts=" + r.maxAttempts() + " retry_delay=" + Durations.format(r.retryDelay())
                + " retry_max_delay=" + Durations.format(r.retryMaxDelay()));
    }

    private static void delivery(StringBuilder out, DeliverySettings d, ConnectorConfig c) {
        line(out, "delivery", "max_buffered_bytes=" + Sizes.format(d.maxBufferedBytes()) + " errors_tolerance="
                + lower(d.errorsTolerance()) + " dlq_prefix=" + d.dlqPrefix() + " shutdown_timeout="
                + Durations.format(d.shutdownTimeout()) + " buffer_directory="
                + (c.buffersOnDisk() ? c.bufferDirectory() : "(heap)"));
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

    private static String duration(Optional<Duration> d) {
        return d.map(Durations::format).orElse("-");
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
