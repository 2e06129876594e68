package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.RetrySettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Every key of an object sink's {@code [plugin_config]}, one row each: name, type, default, rule and meaning, as
 * Kafka's {@code ConfigDef} declares a connector's keys. The reader's unknown-key warning and its "no effect with the
 * filesystem store" warning, the constant defaults, the effective-settings printer's key names
 * ({@link SettingsPrinter}, checked by its test) and the key table in docs/configuration-keys.md ({@link #markdown},
 * checked by a test that fails when the file and this table disagree) all come from here, so a key is added in one
 * place. The checks themselves stay in {@link ConnectorReader}: many cross several keys (both or neither, alias, only
 * with), which a row cannot say; the row's {@code rule} says them in words.
 */
final class PluginKeys {
    /** How a value is written in the file; {@link #label} is how the docs name it. */
    enum Type {
        STRING("string"), SECRET("string, secret"), BOOLEAN("boolean"), INTEGER("integer"),
        SIZE("size (`8MiB`, `10MB`, bytes)"), DURATION("duration (`100ms`, `1h 30m`)"), CHOICE("choice"),
        PATH("path"), TABLE("table");

        final String label;

        Type(String label) {
            this.label = label;
        }
    }

    /** Where a key comes from: the Rust S3 sink's connector file (its meaning unchanged) or this sink. */
    enum Origin { UPSTREAM, OURS }

    /**
     * One key. {@code defaultValue} is the typed default the reader uses (a {@link Long} of bytes for a size, a
     * {@link Duration}, an {@link Integer}, a {@link Boolean} or a {@link String}), or null when the default depends
     * on other keys or the machine; {@code defaultText} is what the docs show then (empty: no default).
     * {@code s3Only}: an option of an S3 bucket, without effect with {@code storage_client = "filesystem"}.
     */
    record Key(String name, Type type, Origin origin, boolean s3Only, Object defaultValue, String defaultText,
               String rule, String doc) {
        Key {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(doc, "doc");
        }

        long size() {
            return (Long) Objects.requireNonNull(defaultValue, name);
        }

        Duration duration() {
            return (Duration) Objects.requireNonNull(defaultValue, name);
        }

        int integer() {
            return (Integer) Objects.requireNonNull(defaultValue, name);
        }

        boolean bool() {
            return (Boolean) Objects.requireNonNull(defaultValue, name);
        }

        String string() {
            return (String) Objects.requireNonNull(defaultValue, name);
        }

        /** The default as the file would write it. */
        String shownDefault() {
            if (defaultValue == null) return defaultText == null ? "" : defaultText;
            return switch (type) {
                case SIZE -> "`" + Sizes.format(size()) + "`";
                case DURATION -> "`" + Durations.format(duration()) + "`";
                case STRING, CHOICE, PATH, SECRET -> defaultValue.toString().isEmpty() ? "`\"\"`"
                        : "`" + defaultValue + "`";
                default -> String.valueOf(defaultValue);
            };
        }
    }

    private static final Origin UP = Origin.UPSTREAM;
    private static final Origin OURS = Origin.OURS;
    private static final Map<String, Key> BY_NAME = new LinkedHashMap<>();

    static final Key BUCKET = s3("bucket", Type.STRING, UP, null, "", "required with an S3 client; S3's bucket"
            + " naming rules", "the bucket objects are written to");
    static final Key REGION = s3("region", Type.STRING, UP, null, "", "required with an S3 client",
            "the bucket's region (any value for stores that ignore it)");
    static final Key PREFIX = key("prefix", Type.STRING, UP, "", "slashes at both ends dropped; no control character,"
            + " no empty, `.` or `..` segment", "the start of every key");
    static final Key ENDPOINT = s3("endpoint", Type.STRING, UP, null, "AWS", "an `http://` or `https://` URL with a"
            + " host", "an S3-compatible store (MinIO, R2, B2, Spaces)");
    static final Key ACCESS_KEY_ID = s3("access_key_id", Type.STRING, UP, null, "the AWS credential chain",
            "with `secret_access_key` (both or neither)", "a static key pair");
    static final Key SECRET_ACCESS_KEY = s3("secret_access_key", Type.SECRET, UP, null, "the AWS credential chain",
            "with `access_key_id` (both or neither); never printed", "a static key pair");
    static final Key PATH_TEMPLATE = key("path_template", Type.STRING, UP, "{stream}/{topic}/{date}/{hour}",
            "known variables only; no empty, `.` or `..` segment; keys within S3's 1,024 bytes",
            "the directory of each file, rendered from its first record");
    static final Key FILE_ROTATION = key("file_rotation", Type.CHOICE, UP, "size", "`size`, `messages` (lower case)",
            "what seals a file");
    static final Key MAX_FILE_SIZE = key("max_file_size", Type.SIZE, UP, 8L << 20, "greater than 0",
            "seal a file at this size (`file_rotation = \"size\"`)");
    static final Key MAX_MESSAGES_PER_FILE = key("max_messages_per_file", Type.INTEGER, UP, null, "",
            "greater than 0; required with `file_rotation = \"messages\"`", "seal a file at this many records");
    static final Key OUTPUT_FORMAT = key("output_format", Type.CHOICE, UP, "json_lines", "`json_lines` (`jsonl`,"
            + " `jsonlines`), `json_array`, `raw`, `avro`, `parquet`; any case", "the file format");
    static final Key INCLUDE_METADATA = key("include_metadata", Type.BOOLEAN, UP, true, "",
            "offset, timestamp, stream, topic and partition around each payload");
    static final Key INCLUDE_HEADERS = key("include_headers", Type.BOOLEAN, UP, false, "",
            "the message headers beside each payload");
    static final Key MAX_ATTEMPTS = key("max_attempts", Type.INTEGER, UP, 3, "0 or more; alias `max_retries` (set"
            + " only one)", "tries per upload before capped exponential backoff takes over");
    static final Key MAX_RETRIES = key("max_retries", Type.INTEGER, UP, null, "", "alias of `max_attempts`",
            "upstream's name of `max_attempts`");
    static final Key RETRY_DELAY = key("retry_delay", Type.DURATION, UP, Duration.ofSeconds(1), "",
            "the first wait between attempts; each retry waits twice as long");
    static final Key PATH_STYLE = s3("path_style", Type.BOOLEAN, UP, null, "true with `endpoint`, else false", "",
            "path-style addressing (`endpoint/bucket/key`)");

    static final Key RETRY_MAX_DELAY = key("retry_max_delay", Type.DURATION, OURS, null,
            "`" + Durations.format(RetrySettings.DEFAULT_MAX_DELAY) + "` (at least `retry_delay`)",
            "greater than 0, at least `retry_delay`", "the longest wait between two attempts of an upload");
    static final Key ROTATE_INTERVAL = key("rotate_interval", Type.DURATION, OURS, null, "off", "`0`, `none` or"
            + " `disabled` turn it off", "seal when a file's records span this much record time (deterministic)");
    static final Key ROTATE_SCHEDULE_INTERVAL = key("rotate_schedule_interval", Type.DURATION, OURS, null, "off",
            "`0`, `none` or `disabled` turn it off", "seal on the wall clock, aligned in `timezone`");
    static final Key TIMEZONE = key("timezone", Type.STRING, OURS, "UTC", "an IANA zone",
            "the zone of every time variable of the path template");
    static final Key COMPRESSION = key("compression", Type.CHOICE, OURS, "none", "`none`, `gzip`, `zstd`; any case;"
            + " for avro/parquet not with their codec key", "json and raw: the key gets `.gz`/`.zst`; avro and"
            + " parquet: the codec inside the file");
    static final Key MULTIPART_THRESHOLD = s3("multipart_threshold", Type.SIZE, OURS, 64L << 20, null,
            "greater than 0", "objects above it go up in parallel parts");
    static final Key MULTIPART_PART_SIZE = s3("multipart_part_size", Type.SIZE, OURS, 8L << 20, null,
            "5MiB to 5GiB (S3's part limits)", "the size of each part");
    static final Key UPLOAD_CONCURRENCY = key("upload_concurrency", Type.INTEGER, OURS, 4, "1 or more",
            "parts and files uploaded at once");
    static final Key MAX_BUFFERED_BYTES = key("max_buffered_bytes", Type.SIZE, OURS,
            DeliverySettings.DEFAULT_MAX_BUFFERED_BYTES, "greater than 0",
            "memory budget of open and pending files; above it polling pauses");
    static final Key ERRORS_TOLERANCE = key("errors_tolerance", Type.CHOICE, OURS, "none", "`none`, `all`; any case",
            "none: a bad record halts its partition; all: it becomes a dead-letter object");
    static final Key DLQ_PREFIX = key("dlq_prefix", Type.STRING, OURS, "_dlq", "not empty; no control character,"
            + " no empty, `.` or `..` segment", "where dead letters go: `[prefix/]<dlq_prefix>/<stream>/<topic>/...`");
    static final Key SSE = s3("sse", Type.CHOICE, OURS, null, "", "`AES256`, `aws:kms`; any case",
            "server-side encryption");
    static final Key SSE_KMS_KEY_ID = s3("sse_kms_key_id", Type.STRING, OURS, null, "", "only with `sse = \"aws:kms\"`",
            "the KMS key of `aws:kms`");
    static final Key STORAGE_CLASS = s3("storage_class", Type.STRING, OURS, null, "", "an unknown class is a"
            + " warning", "the objects' storage class");
    static final Key CANNED_ACL = s3("canned_acl", Type.STRING, OURS, null, "", "one of S3's canned ACLs",
            "the objects' ACL");
    static final Key OBJECT_TAGS = s3("object_tags", Type.TABLE, OURS, null, "", "at most 10; keys 1 to 128"
            + " characters, values at most 256", "`[plugin_config.object_tags]`: tags of every object");
    static final Key STORAGE_CLIENT = key("storage_client", Type.CHOICE, OURS, "aws", "`aws`, `minio`,"
            + " `filesystem`; any case", "AWS SDK v2, the MinIO Java client, or a directory");
    static final Key SHUTDOWN_TIMEOUT = key("shutdown_timeout", Type.DURATION, OURS, Duration.ofSeconds(30), "",
            "how long a graceful stop may take to make buffers durable");
    static final Key REQUEST_TIMEOUT = s3("request_timeout", Type.DURATION, OURS, Duration.ofSeconds(60), null,
            "greater than 0", "per S3 request");
    static final Key MAX_OPEN_FILES_PER_PARTITION = key("max_open_files_per_partition", Type.INTEGER, OURS, 1,
            "1 or more", "above 1, each record goes to the file of its own rendered path");
    static final Key PARQUET_CODEC = key("parquet_codec", Type.CHOICE, OURS, "snappy", "`snappy`, `zstd`, `gzip`,"
            + " `lz4_raw`, `none` (`uncompressed`); any case", "the codec of Parquet files");
    static final Key AVRO_CODEC = key("avro_codec", Type.CHOICE, OURS, "null", "`null` (`none`), `deflate`,"
            + " `snappy`, `zstd`; any case", "the codec of Avro files");
    static final Key MISSING_FIELD_PLACEHOLDER = key("missing_field_placeholder", Type.STRING, OURS, "__missing__",
            "", "what `{field:path}` renders when the field is absent");
    static final Key AVRO_SCHEMA_JSON = key("avro_schema_json", Type.STRING, OURS, null, "", "valid JSON; not with"
            + " `avro_schema_path`; required for avro/parquet unless every stream has one",
            "the Avro schema of avro and parquet output");
    static final Key AVRO_SCHEMA_PATH = key("avro_schema_path", Type.PATH, OURS, null, "", "a readable JSON file"
            + " (relative to the config file)", "`avro_schema_json` read from a file");
    static final Key DIRECTORY = key("directory", Type.PATH, OURS, null, "", "required with `storage_client ="
            + " \"filesystem\"`, an error otherwise", "the directory objects are written into");
    static final Key BUFFER_DIRECTORY = key("buffer_directory", Type.PATH, OURS, null,
            "the system temporary directory", "`\"\"` keeps open files on the heap",
            "where json_lines, json_array and raw files grow (relative to the config file)");
    static final Key ROLE_ARN = s3("role_arn", Type.STRING, OURS, null, "", "an IAM role ARN",
            "assume this role with the credentials found");
    static final Key EXTERNAL_ID = s3("external_id", Type.SECRET, OURS, null, "", "only with `role_arn`; 2 to 1224"
            + " characters; printed `****`", "the role's `sts:ExternalId`");
    static final Key SESSION_NAME = s3("session_name", Type.STRING, OURS, CredentialsConfig.DEFAULT_SESSION_NAME,
            null, "only with `role_arn`; 2 to 64 characters", "the role session's name (what CloudTrail shows)");
    static final Key ASSUME_ROLE_DURATION = s3("assume_role_duration", Type.DURATION, OURS,
            CredentialsConfig.DEFAULT_ASSUME_ROLE_DURATION, null, "only with `role_arn`; 15m to 12h",
            "how long the role's credentials last; renewed before they end");
    static final Key STS_ENDPOINT = s3("sts_endpoint", Type.STRING, OURS, null, "AWS STS of `region`",
            "an `http://` or `https://` URL with a host", "STS for `role_arn` and web identity");
    static final Key PROFILE = s3("profile", Type.STRING, OURS, null, "", "not empty; not with `access_key_id`",
            "use this profile of the shared AWS files and nothing else");
    static final Key CREDENTIALS_FILE = s3("credentials_file", Type.PATH, OURS, null,
            "`AWS_SHARED_CREDENTIALS_FILE` or `~/.aws/credentials`", "a readable file (relative to the config"
            + " file); not with `access_key_id`", "the shared credentials file `profile` is read from");

    /** Every key, in the order of the docs. */
    static final List<Key> ALL = List.copyOf(BY_NAME.values());
    /** The names the reader knows; any other is reported as unknown. */
    static final List<String> NAMES = names(k -> true);
    /** Options of an S3 bucket: with {@code storage_client = "filesystem"} they have no effect. */
    static final List<String> S3_ONLY = names(Key::s3Only);

    private PluginKeys() {
    }

    private static Key key(String name, Type type, Origin origin, Object defaultValue, String rule, String doc) {
        return add(new Key(name, type, origin, false, defaultValue, null, rule, doc));
    }

    private static Key key(String name, Type type, Origin origin, Object defaultValue, String defaultText,
                           String rule, String doc) {
        return add(new Key(name, type, origin, false, defaultValue, defaultText, rule, doc));
    }

    private static Key s3(String name, Type type, Origin origin, Object defaultValue, String defaultText,
                          String rule, String doc) {
        return add(new Key(name, type, origin, true, defaultValue, defaultText, rule, doc));
    }

    private static Key add(Key key) {
        if (BY_NAME.putIfAbsent(key.name(), key) != null) {
            throw new IllegalStateException("key " + key.name() + " declared twice");
        }
        return key;
    }

    private static List<String> names(Predicate<Key> filter) {
        return BY_NAME.values().stream().filter(filter).map(Key::name).toList();
    }

    /** The key table of docs/configuration-keys.md, as that file holds it. */
    static String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("# Keys of `[plugin_config]`\n\n")
                .append("Generated from `adapters-config` `PluginKeys` (the table the reader, its defaults and the\n")
                .append("settings printer use); `PluginKeysTest` fails when this file and the table disagree.\n")
                .append("Regenerate it with\n")
                .append("`mvn -pl adapters-config test -Dtest=PluginKeysTest -Dconfig.docs.write=true`.\n")
                .append("Sizes are `8MiB` (binary), `10MB` (decimal) or bytes; durations are humantime (`100ms`,\n")
                .append("`1h 30m`). Keys marked S3 have no effect with `storage_client = \"filesystem\"`.\n");
        for (Origin origin : Origin.values()) {
            out.append('\n').append(origin == Origin.UPSTREAM ? "## The Rust S3 sink's keys\n"
                    : "## This sink's additions\n").append('\n');
            out.append("| key | type | default | rule | meaning |\n|---|---|---|---|---|\n");
            for (Key k : ALL.stream().filter(k -> k.origin() == origin).collect(Collectors.toList())) {
                out.append("| `").append(k.name()).append('`').append(k.s3Only() ? " (S3)" : "")
                        .append(" | ").append(k.type().label)
                        .append(" | ").append(k.shownDefault())
                        .append(" | ").append(k.rule())
                        .append(" | ").append(k.doc()).append(" |\n");
            }
        }
        return out.toString();
    }
}
