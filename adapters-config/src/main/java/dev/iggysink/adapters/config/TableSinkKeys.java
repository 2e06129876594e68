package dev.iggysink.adapters.config;

import static dev.iggysink.adapters.config.ConfigKey.OURS;
import static dev.iggysink.adapters.config.ConfigKey.UP;

import dev.iggysink.adapters.config.ConfigKey.Origin;
import dev.iggysink.adapters.config.ConfigKey.Scope;
import dev.iggysink.adapters.config.ConfigKey.Type;
import dev.iggysink.application.settings.RetrySettings;
import dev.iggysink.application.table.TableSettings;
import java.time.Duration;
import java.util.List;

/**
 * Every key of the Iceberg table sink's {@code [plugin_config]}, one row each ({@link ConfigKey}): the Rust Iggy
 * Iceberg sink's keys, their meaning unchanged, then this sink's for its commits, rotation, bad records and catalog
 * credentials. {@link TableConnectorReader} takes its known keys and constant defaults from here; the checks stay
 * there.
 */
final class TableSinkKeys {

    static final KeySection SECTION = new KeySection("`[plugin_config]` of the Iceberg table sink",
            "What the table sink does with them: [tables.md](tables.md).", "The Rust Iceberg sink's keys");
    static final ConfigKey TABLES = key("tables", Type.STRINGS, UP, null, "", "each `namespace.table`; at least one"
            + " unless `dynamic_routing = true`", "the tables every record goes to");
    static final ConfigKey CATALOG_TYPE = key("catalog_type", Type.CHOICE, UP, null, "", "required; `rest`, `jdbc`"
            + " (`sql`), `glue`; any case", "`rest` (Polaris, Lakekeeper, Nessie, Gravitino, Unity; on AWS Glue's and"
            + " S3 Tables' Iceberg REST endpoints with `catalog_sigv4`), `jdbc` (SQLite or PostgreSQL) or `glue` (the"
            + " AWS Glue Data Catalog)");
    static final ConfigKey WAREHOUSE = key("warehouse", Type.STRING, UP, null, "", "required, not empty; Glue:"
            + " `s3://`", "the REST catalog's warehouse, or the JDBC or Glue catalog's location: `s3://bucket/path`, or"
                    + " (JDBC) on the local filesystem `file:///dir` or a path (a relative one lies in the config"
                    + " file's folder, not the working directory); its scheme picks the FileIO");
    static final ConfigKey URI = key("uri", Type.STRING, UP, null, "Glue: AWS's endpoint", "required; REST:"
            + " `http://` or `https://`; JDBC: `jdbc:sqlite:<file>` (a relative file lies in the config file's folder)"
            + " or `jdbc:postgresql://<host>/<db>`; Glue: optional, `http://` or `https://`", "the catalog's address;"
            + " for Glue a Glue-compatible endpoint instead of AWS's");
    static final ConfigKey DYNAMIC_ROUTING = key("dynamic_routing", Type.BOOLEAN, UP, false, "", "",
            "instead of `tables`, the table named by `dynamic_route_field` of each record (a record without it is"
                    + " a bad record)");
    static final ConfigKey DYNAMIC_ROUTE_FIELD = key("dynamic_route_field", Type.STRING, UP, null, "", "required"
            + " with `dynamic_routing = true`; a warning without it", "the record field naming the table");
    static final ConfigKey STORE_URL = key("store_url", Type.STRING, UP, null, "AWS", "",
            "the warehouse's S3 store (MinIO: its URL)");
    static final ConfigKey STORE_ACCESS_KEY_ID = key("store_access_key_id", Type.STRING, UP, null,
            "the AWS credential chain", "with `store_secret_access_key` (both or neither)", "the store's key pair");
    static final ConfigKey STORE_SECRET_ACCESS_KEY = key("store_secret_access_key", Type.SECRET, UP, null,
            "the AWS credential chain", "with `store_access_key_id` (both or neither); never printed",
            "the store's key pair");
    static final ConfigKey STORE_REGION = key("store_region", Type.STRING, UP, null, "the AWS region chain", "",
            "the store's region");
    static final ConfigKey STORE_CLASS = key("store_class", Type.CHOICE, UP, null, "`s3`", "`s3`; any case",
            "the store's kind");

    static final ConfigKey STORE_PATH_STYLE = key("store_path_style", Type.BOOLEAN, OURS, null,
            "true with `store_url`, else false", "", "path-style requests (`store_url/bucket/key`)");
    static final ConfigKey CATALOG_TOKEN = key("catalog_token", Type.SECRET, OURS, null, "", "not with"
            + " `catalog_credential`; never printed", "a REST catalog's bearer token");
    static final ConfigKey CATALOG_CREDENTIAL = key("catalog_credential", Type.SECRET, OURS, null, "", "not with"
            + " `catalog_token`; printed `****`", "a REST catalog's OAuth2 client credential `id:secret`");
    static final ConfigKey CATALOG_OAUTH2_SERVER_URI = key("catalog_oauth2_server_uri", Type.STRING, OURS, null,
            "the catalog's own", "", "where `catalog_credential` is exchanged for a token");
    static final ConfigKey CATALOG_USER = key("catalog_user", Type.STRING, OURS, null, "", "JDBC catalog only",
            "the JDBC catalog's database login");
    static final ConfigKey CATALOG_PASSWORD = key("catalog_password", Type.SECRET, OURS, null, "", "JDBC catalog"
            + " only; never printed", "the login's password");
    static final ConfigKey CATALOG_NAME = key("catalog_name", Type.STRING, OURS, "iggy", "", "not empty",
            "the catalog's name; a JDBC catalog keeps its tables under it, so engines reading them use the same"
                    + " name");
    static final ConfigKey CATALOG_SIGV4 = key("catalog_sigv4", Type.BOOLEAN, OURS, false, "", "REST catalog"
            + " only", "sign every catalog request with AWS SigV4 (Glue's and S3 Tables' Iceberg REST endpoints), with"
            + " the store's key pair (`store_access_key_id`), else the AWS credential chain");
    static final ConfigKey CATALOG_SIGNING_NAME = key("catalog_signing_name", Type.STRING, OURS, null,
            "`execute-api`", "with `catalog_sigv4 = true` (a warning without it)", "the service a signature is"
            + " for: `glue` (Glue's Iceberg REST endpoint), `s3tables` (S3 Tables')");
    static final ConfigKey CATALOG_REGION = key("catalog_region", Type.STRING, OURS, null, "`store_region`, then"
            + " the AWS region chain", "Glue, or REST with `catalog_sigv4 = true`", "the Glue catalog's region, or"
            + " the region REST requests are signed for");
    static final ConfigKey COMMIT_INTERVAL = key("commit_interval", Type.DURATION, OURS, Duration.ofSeconds(30), "",
            "greater than 0", "one snapshot per table per interval; open files are sealed then");
    static final ConfigKey MAX_FILES_PER_COMMIT = key("max_files_per_commit", Type.INTEGER, OURS, 64, "",
            "1 or more", "commit earlier when this many files wait");
    static final ConfigKey MAX_FILE_SIZE = key("max_file_size", Type.SIZE, OURS, 128L << 20, "", "1 byte or more",
            "seal a data file once its records' payloads reach this size (the Parquet file is smaller:"
                    + " encoded and compressed)");
    static final ConfigKey MAX_MESSAGES_PER_FILE = key("max_messages_per_file", Type.INTEGER, OURS, null, "",
            "1 or more", "seal a data file at this many records");
    static final ConfigKey MAX_BUFFERED_BYTES = key("max_buffered_bytes", Type.SIZE, OURS,
            TableSettings.DEFAULT_MAX_BUFFERED_BYTES, "", "at least `1MiB`", "the rows the sink holds on the heap"
                    + " (open files, and sealed ones until written), shared out among its topics; above it the"
                    + " largest open file is sealed early. A budget the heap cannot hold (about twice the budget"
                    + " plus 96 MiB, as for the S3 sink) is lowered at start with a warning");
    static final ConfigKey CREATE_TABLES = key("create_tables", Type.BOOLEAN, OURS, false, "", "",
            "create a table that does not exist (and its namespace): the columns `iggy_offset` (long),"
                    + " `iggy_partition_id` (int), `iggy_timestamp` (timestamptz), then `table_columns`");
    static final ConfigKey TABLE_COLUMNS = key("table_columns", Type.STRINGS, OURS, null, "", "with"
            + " `create_tables = true` (a warning without it)", "`\"name type\"` or `\"name type required\"`,"
            + " types as Iceberg names its primitives: `long`, `string`, `decimal(10,2)`, `timestamptz`, `uuid`, ...");
    static final ConfigKey PARTITION_SPEC = key("partition_spec", Type.STRINGS, OURS, null, "none (unpartitioned)",
            "with `create_tables = true` (a warning without it); `validate` and `run` report every bad entry with"
                    + " its index", "`day(iggy_timestamp)`, `hour(c)`, `month(c)`, `year(c)`, `identity(c)`,"
                    + " `bucket(N, c)`, `truncate(W, c)`");
    static final ConfigKey EVOLVE_TABLES = key("evolve_tables", Type.BOOLEAN, OURS, false, "", "with"
            + " `create_tables = true` (a warning without it)", "add the `table_columns` an existing table lacks, by"
            + " Iceberg's schema update, as optional columns, when the sink first opens the table; when false,"
            + " `validate` and `run` warn naming them (their fields are left out of every row)");
    static final ConfigKey ERRORS_TOLERANCE = key("errors_tolerance", Type.CHOICE, OURS, "none", "", "`none`,"
            + " `all`; any case", "`none` halts the partition at a record that does not fit the table (or names no"
            + " table); `all` writes it as a dead letter and reads on");
    static final ConfigKey DLQ_PREFIX = key("dlq_prefix", Type.STRING, OURS, TableSettings.DEFAULT_DLQ_PREFIX, "",
            "not empty; no control character, no empty, `.` or `..` segment", "dead letters go to"
                    + " `<warehouse>/<dlq_prefix>/<stream>/<topic>/<partition:05>-<offset:020>.json`, as the S3"
                    + " sink's (the error, where the record came from, its headers, timestamps and payload)");
    static final ConfigKey DLQ_LOCATION = key("dlq_location", Type.STRING, OURS, null, "", "`s3://bucket/path`"
            + " (or `s3a://`), `file:///dir` or an absolute path", "where dead letters go instead, written and"
            + " listed with the warehouse's FileIO choice and `store_*` settings; they lie at"
            + " `<dlq_location>/<stream>/<topic>/<partition:05>-<offset:020>.json`, without `dlq_prefix` (the"
            + " location is their own place)");

    static final ConfigKey RETRY_DELAY = key("retry_delay", Type.DURATION, OURS, Duration.ofSeconds(1), "", "",
            "the first wait before a failing catalog or warehouse store is called again; each failure doubles it");
    static final ConfigKey RETRY_MAX_DELAY = key("retry_max_delay", Type.DURATION, OURS, null,
            "`" + Durations.format(RetrySettings.DEFAULT_MAX_DELAY) + "` (at least `retry_delay`)",
            "greater than 0, at least `retry_delay`", "the longest wait between two calls to a failing catalog or"
                    + " store");
    static final ConfigKey SELF_AUDIT_REQUESTS_PER_MINUTE = key("self_audit_requests_per_minute", Type.INTEGER, OURS,
            dev.iggysink.application.settings.DeliverySettings.DEFAULT_SELF_AUDIT_REQUESTS_PER_MINUTE,
            "", "0 (off) or more", "catalog and store requests a minute the sink's own audit may make: each table"
            + " committed to has its offset map read back, then the rows of the recent files of each partition"
            + " checked for gaps and overlaps; findings in `/status`, `/health` and `iggysink_audit_*`"
            + " (docs/tables.md)");

    /** The names the reader knows; any other is reported as unknown. */
    static final List<String> NAMES = SECTION.names();

    private TableSinkKeys() {
    }

    private static ConfigKey key(String name, Type type, Origin origin, Object defaultValue, String defaultText,
                                 String rule, String doc) {
        return SECTION.add(new ConfigKey(name, type, origin, Scope.EVERYWHERE, defaultValue, defaultText, rule,
                doc));
    }
}
