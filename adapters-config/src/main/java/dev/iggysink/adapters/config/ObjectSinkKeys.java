package dev.iggysink.adapters.config;

import static dev.iggysink.adapters.config.ConfigKey.OURS;
import static dev.iggysink.adapters.config.ConfigKey.UP;

import dev.iggysink.adapters.config.ConfigKey.Origin;
import dev.iggysink.adapters.config.ConfigKey.Scope;
import dev.iggysink.adapters.config.ConfigKey.Type;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.RetrySettings;
import java.time.Duration;
import java.util.List;

/**
 * Every key of the S3 object sink's {@code [plugin_config]}, one row each ({@link ConfigKey}). The reader's
 * unknown-key warning and its "no effect with the filesystem store" warning, the constant defaults, the
 * effective-settings printer's key names ({@link SettingsPrinter}, checked by its test) and the section of
 * docs/configuration-keys.md all come from here, so a key is added in one place. The checks themselves stay in
 * {@link ConnectorReader}.
 */
final class ObjectSinkKeys {
    static final KeySection SECTION = new KeySection("`[plugin_config]` of the S3 object sink",
            "Keys marked S3 have no effect with `storage_client = \"filesystem\"`.", "The Rust S3 sink's keys");

    static final ConfigKey BUCKET = s3("bucket", Type.STRING, UP, null, "", "required with an S3 client; S3's bucket"
            + " naming rules", "the bucket objects are written to");
    static final ConfigKey REGION = s3("region", Type.STRING, UP, null, "", "required with an S3 client",
            "the bucket's region (any value for stores that ignore it)");
    static final ConfigKey PREFIX = key("prefix", Type.STRING, UP, "",
            "slashes at both ends dropped; no control character,"
            + " no empty, `.` or `..` segment", "the start of every key");
    static final ConfigKey ENDPOINT = s3("endpoint", Type.STRING, UP, null, "AWS",
            "an `http://` or `https://` URL with a"
            + " host", "an S3-compatible store (MinIO, R2, B2, Spaces)");
    static final ConfigKey ACCESS_KEY_ID = s3("access_key_id", Type.STRING, UP, null, "the AWS credential chain",
            "with `secret_access_key` (both or neither)", "a static key pair");
    static final ConfigKey SECRET_ACCESS_KEY = s3("secret_access_key", Type.SECRET, UP, null,
            "the AWS credential chain",
            "with `access_key_id` (both or neither); never printed", "a static key pair");
    static final ConfigKey PATH_TEMPLATE = key("path_template", Type.STRING, UP, "{stream}/{topic}/{date}/{hour}",
            "known variables only; no empty, `.` or `..` segment; keys within S3's 1,024 bytes",
            "the directory of each file, rendered from its first record");
    static final ConfigKey FILE_ROTATION = key("file_rotation", Type.CHOICE, UP, "size",
            "`size`, `messages` (lower case)",
            "what seals a file");
    static final ConfigKey MAX_FILE_SIZE = key("max_file_size", Type.SIZE, UP, 8L << 20, "greater than 0",
            "seal a file at this size (`file_rotation = \"size\"`)");
    static final ConfigKey MAX_MESSAGES_PER_FILE = key("max_messages_per_file", Type.INTEGER, UP, null, "",
            "greater than 0; required with `file_rotation = \"messages\"`", "seal a file at this many records");
    static final ConfigKey OUTPUT_FORMAT = key("output_format", Type.CHOICE, UP, "json_lines", "`json_lines` (`jsonl`,"
            + " `jsonlines`), `json_array`, `raw`, `avro`, `parquet`; any case", "the file format");
    static final ConfigKey INCLUDE_METADATA = key("include_metadata", Type.BOOLEAN, UP, true, "",
            "offset, timestamp, stream, topic and partition around each payload");
    static final ConfigKey INCLUDE_HEADERS = key("include_headers", Type.BOOLEAN, UP, false, "",
            "the message headers beside each payload");
    static final ConfigKey MAX_ATTEMPTS = key("max_attempts", Type.INTEGER, UP, 3, "0 or more; alias `max_retries` (set"
            + " only one)", "tries per upload before capped exponential backoff takes over");
    static final ConfigKey MAX_RETRIES = key("max_retries", Type.INTEGER, UP, null, "", "alias of `max_attempts`",
            "upstream's name of `max_attempts`");
    static final ConfigKey RETRY_DELAY = key("retry_delay", Type.DURATION, UP, Duration.ofSeconds(1), "",
            "the first wait between attempts; each retry waits twice as long");
    static final ConfigKey PATH_STYLE = s3("path_style", Type.BOOLEAN, UP, null, "true with `endpoint`, else false", "",
            "path-style addressing (`endpoint/bucket/key`)");

    static final ConfigKey RETRY_MAX_DELAY = key("retry_max_delay", Type.DURATION, OURS, null,
            "`" + Durations.format(RetrySettings.DEFAULT_MAX_DELAY) + "` (at least `retry_delay`)",
            "greater than 0, at least `retry_delay`", "the longest wait between two attempts of an upload");
    static final ConfigKey ROTATE_INTERVAL = key("rotate_interval", Type.DURATION, OURS, null, "off", "`0`, `none` or"
            + " `disabled` turn it off", "seal when a file's records span this much record time (deterministic)");
    static final ConfigKey ROTATE_SCHEDULE_INTERVAL = key("rotate_schedule_interval", Type.DURATION, OURS, null, "off",
            "`0`, `none` or `disabled` turn it off", "seal on the wall clock, aligned in `timezone`");
    static final ConfigKey TIMEZONE = key("timezone", Type.STRING, OURS, "UTC", "an IANA zone",
            "the zone of every time variable of the path template");
    static final ConfigKey COMPRESSION = key("compression", Type.CHOICE, OURS, "none",
            "`none`, `gzip`, `zstd`; any case;"
            + " for avro/parquet not with their codec key", "json and raw: the key gets `.gz`/`.zst`; avro and"
            + " parquet: the codec inside the file");
    static final ConfigKey MULTIPART_THRESHOLD = s3("multipart_threshold", Type.SIZE, OURS, 64L << 20, null,
            "greater than 0", "objects above it go up in parallel parts");
    static final ConfigKey MULTIPART_PART_SIZE = s3("multipart_part_size", Type.SIZE, OURS, 8L << 20, null,
            "5MiB to 5GiB (S3's part limits)", "the size of each part");
    static final ConfigKey UPLOAD_CONCURRENCY = key("upload_concurrency", Type.INTEGER, OURS, 4, "1 or more",
            "parts and files uploaded at once");
    static final ConfigKey MAX_BUFFERED_BYTES = key("max_buffered_bytes", Type.SIZE, OURS,
            DeliverySettings.DEFAULT_MAX_BUFFERED_BYTES, "greater than 0",
            "memory budget of open and pending files; above it polling pauses");
    static final ConfigKey ERRORS_TOLERANCE = key("errors_tolerance", Type.CHOICE, OURS, "none",
            "`none`, `all`; any case",
            "none: a bad record halts its partition; all: it becomes a dead-letter object");
    static final ConfigKey DLQ_PREFIX = key("dlq_prefix", Type.STRING, OURS, "_dlq", "not empty; no control character,"
            + " no empty, `.` or `..` segment", "where dead letters go: `[prefix/]<dlq_prefix>/<stream>/<topic>/...`");
    static final ConfigKey SSE = s3("sse", Type.CHOICE, OURS, null, "", "`AES256`, `aws:kms`; any case",
            "server-side encryption");
    static final ConfigKey SSE_KMS_KEY_ID = s3("sse_kms_key_id", Type.STRING, OURS, null, "",
            "only with `sse = \"aws:kms\"`",
            "the KMS key of `aws:kms`");
    static final ConfigKey STORAGE_CLASS = s3("storage_class", Type.STRING, OURS, null, "", "an unknown class is a"
            + " warning", "the objects' storage class");
    static final ConfigKey CANNED_ACL = s3("canned_acl", Type.STRING, OURS, null, "", "one of S3's canned ACLs",
            "the objects' ACL");
    static final ConfigKey OBJECT_TAGS = s3("object_tags", Type.TABLE, OURS, null, "", "at most 10; keys 1 to 128"
            + " characters, values at most 256", "`[plugin_config.object_tags]`: tags of every object");
    static final ConfigKey STORAGE_CLIENT = key("storage_client", Type.CHOICE, OURS, "aws", "`aws`, `minio`,"
            + " `filesystem`; any case", "AWS SDK v2, the MinIO Java client, or a directory");
    static final ConfigKey SHUTDOWN_TIMEOUT = key("shutdown_timeout", Type.DURATION, OURS, Duration.ofSeconds(30), "",
            "how long a graceful stop may take to make buffers durable");
    static final ConfigKey REQUEST_TIMEOUT = s3("request_timeout", Type.DURATION, OURS, Duration.ofSeconds(60), null,
            "greater than 0", "per S3 request");
    static final ConfigKey MAX_OPEN_FILES_PER_PARTITION = key("max_open_files_per_partition", Type.INTEGER, OURS, 1,
            "1 or more", "above 1, each record goes to the file of its own rendered path");
    static final ConfigKey COMPLETION_MARKER = key("completion_marker", Type.STRING, OURS, null, "off",
            "a file name such as `_COMPLETE` or `_SUCCESS`; `off`/`none` turn it off; needs a `path_template` with"
            + " `{date}` (or `{year}`/`{month}`/`{day}`) and `max_open_files_per_partition = 1`",
            "write a JSON marker listing every object of a folder once all its records are durable and committed"
            + " (docs/delivery.md)");
    static final ConfigKey LATE_RECORDS = key("late_records", Type.CHOICE, OURS, "rewrite_marker",
            "`rewrite_marker`, `late_path`; any case; `late_path` needs `completion_marker`",
            "a record whose folder's window its partition had already passed: into its folder, the marker rewritten as"
            + " `version` + 1; or into the topic's `late/` folder, the marker left as it is (docs/delivery.md)");
    static final ConfigKey KEY_LAYOUT = key("key_layout", Type.CHOICE, OURS, "offsets", "`offsets`, `first_offset`;"
            + " `first_offset` needs a store that honours `If-None-Match`, `max_open_files_per_partition = 1` and no"
            + " `completion_marker`", "how a key names its file's offsets: `offsets` (`PPPPP-first-last`, the Rust"
            + " sink's keys) or `first_offset` (`PPPPP-first`: one conditional PUT per file and no claims;"
            + " docs/delivery.md)");
    static final ConfigKey SELF_AUDIT_REQUESTS_PER_MINUTE = key("self_audit_requests_per_minute", Type.INTEGER, OURS,
            DeliverySettings.DEFAULT_SELF_AUDIT_REQUESTS_PER_MINUTE, "0 (off) or more",
            "store requests a minute the sink's own audit may make: a HEAD of each committed object, then the"
            + " recent objects of each owned partition checked as `audit` does; findings in `/status`, `/health`"
            + " and `iggysink_audit_*` (docs/delivery.md)");
    static final ConfigKey ACCEPT_AT_LEAST_ONCE = key("accept_at_least_once", Type.BOOLEAN, OURS, false,
            "required `true` with `max_open_files_per_partition` above 1", "accepts that a record may be in two"
            + " objects after a crash (docs/delivery.md)");
    static final ConfigKey PARQUET_CODEC = key("parquet_codec", Type.CHOICE, OURS, "snappy", "`snappy`, `zstd`, `gzip`,"
            + " `lz4_raw`, `none` (`uncompressed`); any case", "the codec of Parquet files");
    static final ConfigKey AVRO_CODEC = key("avro_codec", Type.CHOICE, OURS, "null", "`null` (`none`), `deflate`,"
            + " `snappy`, `zstd`; any case", "the codec of Avro files");
    static final ConfigKey MISSING_FIELD_PLACEHOLDER = key("missing_field_placeholder", Type.STRING, OURS,
            "__missing__",
            "", "what `{field:path}` renders when the field is absent");
    static final ConfigKey AVRO_SCHEMA_JSON = key("avro_schema_json", Type.STRING, OURS, null, "",
            "valid JSON; not with"
            + " `avro_schema_path`; required for avro/parquet unless every stream has one",
            "the Avro schema of avro and parquet output");
    static final ConfigKey AVRO_SCHEMA_PATH = key("avro_schema_path", Type.PATH, OURS, null, "", "a readable JSON file"
            + " (relative to the config file)", "`avro_schema_json` read from a file");
    static final ConfigKey DIRECTORY = key("directory", Type.PATH, OURS, null, "", "required with `storage_client ="
            + " \"filesystem\"`, an error otherwise", "the directory objects are written into");
    static final ConfigKey BUFFER_DIRECTORY = key("buffer_directory", Type.PATH, OURS, null,
            "the system temporary directory", "`\"\"` keeps open files on the heap",
            "where json_lines, json_array and raw files grow (relative to the config file)");
    static final ConfigKey ROLE_ARN = s3("role_arn", Type.STRING, OURS, null, "", "an IAM role ARN",
            "assume this role with the credentials found");
    static final ConfigKey EXTERNAL_ID = s3("external_id", Type.SECRET, OURS, null, "",
            "only with `role_arn`; 2 to 1224"
            + " characters; printed `****`", "the role's `sts:ExternalId`");
    static final ConfigKey SESSION_NAME = s3("session_name", Type.STRING, OURS, CredentialsConfig.DEFAULT_SESSION_NAME,
            null, "only with `role_arn`; 2 to 64 characters", "the role session's name (what CloudTrail shows)");
    static final ConfigKey ASSUME_ROLE_DURATION = s3("assume_role_duration", Type.DURATION, OURS,
            CredentialsConfig.DEFAULT_ASSUME_ROLE_DURATION, null, "only with `role_arn`; 15m to 12h",
            "how long the role's credentials last; renewed before they end");
    static final ConfigKey STS_ENDPOINT = s3("sts_endpoint", Type.STRING, OURS, null, "AWS STS of `region`",
            "an `http://` or `https://` URL with a host", "STS for `role_arn` and web identity");
    static final ConfigKey PROFILE = s3("profile", Type.STRING, OURS, null, "", "not empty; not with `access_key_id`",
            "use this profile of the shared AWS files and nothing else");
    static final ConfigKey CREDENTIALS_FILE = s3("credentials_file", Type.PATH, OURS, null,
            "`AWS_SHARED_CREDENTIALS_FILE` or `~/.aws/credentials`", "a readable file (relative to the config"
            + " file); not with `access_key_id`", "the shared credentials file `profile` is read from");

    /** Every key, in the order of the docs. */
    static final List<ConfigKey> ALL = SECTION.keys();
    /** The names the reader knows; any other is reported as unknown. */
    static final List<String> NAMES = SECTION.names();
    /** Options of an S3 bucket: with {@code storage_client = "filesystem"} they have no effect. */
    static final List<String> S3_ONLY = SECTION.names(ConfigKey::s3Only);

    private ObjectSinkKeys() {
    }

    private static ConfigKey key(String name, Type type, Origin origin, Object defaultValue, String rule,
                                 String doc) {
        return SECTION.add(new ConfigKey(name, type, origin, Scope.EVERYWHERE, defaultValue, null, rule, doc));
    }

    private static ConfigKey key(String name, Type type, Origin origin, Object defaultValue, String defaultText,
                                 String rule, String doc) {
        return SECTION.add(new ConfigKey(name, type, origin, Scope.EVERYWHERE, defaultValue, defaultText, rule,
                doc));
    }

    private static ConfigKey s3(String name, Type type, Origin origin, Object defaultValue, String defaultText,
                                String rule, String doc) {
        return SECTION.add(new ConfigKey(name, type, origin, Scope.S3_STORE, defaultValue, defaultText, rule, doc));
    }
}
