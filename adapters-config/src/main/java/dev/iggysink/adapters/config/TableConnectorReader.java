package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.application.table.TableRouting;
import dev.iggysink.application.table.TableSettings;
import dev.iggysink.domain.retry.Backoff;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.toml.TomlMapper;

/**
 * Reads an Iceberg table sink connector file: the Rust Iggy Iceberg sink's file unchanged, with the keys this sink adds
 * for its commits, rotation, bad records and catalog credentials (both declared in {@link TableSinkKeys}). Every
 * problem is reported at once, each naming its key.
 */
public final class TableConnectorReader {
    /** The top-level keys of a table sink's file: those of both sinks ({@code [logging]} is the object sink's). */
    static final List<String> TOP_LEVEL_KEYS = ConnectorKeys.TOP_LEVEL.names(
            k -> k.scope() != ConfigKey.Scope.OBJECT_SINK);
    private static final TomlMapper TOML = TomlMapper.builder().build();
    private static final Map<String, String> CATALOGS = Map.of("rest", "rest", "jdbc", "jdbc", "sql", "jdbc",
            "glue", "glue");
    private static final Map<String, ErrorTolerance> TOLERANCES = Map.of("none", ErrorTolerance.NONE,
            "all", ErrorTolerance.ALL);

    private TableConnectorReader() {
    }

    /** What reading one file found: the connector, or every error. */
    /**
     * @param creation {@code create_tables} with its columns and partition spec as written, also when other keys
     *                 have errors: the Iceberg adapter checks them, so that every problem is reported at once
     */
    public record Result(Optional<TableConnectorConfig> connector, List<ConfigError> errors, List<String> warnings,
                         Optional<TableConnectorConfig.Creation> creation) {
        public Result {
            errors = List.copyOf(errors);
            warnings = List.copyOf(warnings);
        }

        public Result(Optional<TableConnectorConfig> connector, List<ConfigError> errors, List<String> warnings) {
            this(connector, errors, warnings, connector.flatMap(TableConnectorConfig::creation));
        }
    }

    /**
     * Whether {@code file} is an Iceberg sink connector file: its {@code path} names the Iceberg sink plugin, or its
     * {@code [plugin_config]} has {@code catalog_type} or {@code tables} and no {@code bucket}.
     */
    public static boolean isTableSink(Path file) {
        try {
            return isTableSink(TOML.readTree(Files.readString(file, StandardCharsets.UTF_8)));
        } catch (IOException | JacksonException e) {
            return false;
        }
    }

    /** As {@link #isTableSink(Path)}, for a parsed connector file. */
    static boolean isTableSink(JsonNode root) {
        JsonNode path = root.get("path");
        if (path != null && path.isString() && path.stringValue().contains("iceberg_sink")) return true;
        JsonNode plugin = root.get("plugin_config");
        return plugin != null && plugin.isObject() && !plugin.has("bucket")
                && (plugin.has("catalog_type") || plugin.has("tables"));
    }

    /** Reads the connector file {@code file}, environment overrides ({@code IGGY_CONNECTORS_SINK_<KEY>_*}) applied. */
    public static Result load(Path file, Map<String, String> env) {
        Problems problems = new Problems();
        String label = String.valueOf(file.getFileName());
        ObjectNode root;
        try {
            JsonNode tree = TOML.readTree(Files.readString(file, StandardCharsets.UTF_8));
            if (!(tree instanceof ObjectNode o)) {
                problems.error(label, "not a TOML table");
                return new Result(Optional.empty(), problems.errors(), problems.warnings());
            }
            root = o;
        } catch (IOException e) {
            problems.error(label, "cannot read: " + e.getMessage());
            return new Result(Optional.empty(), problems.errors(), problems.warnings());
        } catch (JacksonException e) {
            problems.error(label, "not valid TOML: " + e.getOriginalMessage());
            return new Result(Optional.empty(), problems.errors(), problems.warnings());
        }
        Map<String, String> origins = new HashMap<>();
        ObjectNode tree = root.deepCopy();
        JsonNode key = root.get("key");
        if (key != null && key.isString() && !key.stringValue().isBlank()) {
            EnvOverrides.applyToConnector(tree, key.stringValue(), env, origins);
        }
        Path baseDir = file.toAbsolutePath().getParent();
        Optional<TableConnectorConfig> connector = read(tree, baseDir, problems, origins, env);
        // read again on its own, its warnings and errors already told, for a file with errors elsewhere
        Optional<TableConnectorConfig.Creation> creation = connector.isPresent() ? connector.get().creation()
                : creation(new Table(tree, "", new Problems(), origins).table("plugin_config"));
        return new Result(problems.errorCount() == 0 ? connector : Optional.empty(), problems.errors(),
                problems.warnings(), creation);
    }

    static Optional<TableConnectorConfig> read(JsonNode root, Path baseDir, Problems problems,
                                               Map<String, String> origins, Map<String, String> env) {
        return read(root, baseDir, problems, origins, env, false, Optional.empty());
    }

    /**
     * As {@link #read(JsonNode, Path, Problems, Map, Map)}; {@code inDirectory} as in {@link ConnectorReader#read}:
     * a file of a runtime config's connector directory connects with the runtime's {@code [iggy]} ({@code runtimeIggy},
     * empty when that had errors), not its own.
     */
    static Optional<TableConnectorConfig> read(JsonNode root, Path baseDir, Problems problems,
                                               Map<String, String> origins, Map<String, String> env,
                                               boolean inDirectory, Optional<IggyConfig> runtimeIggy) {
        int before = problems.errorCount();
        Table top = new Table(root, "", problems, origins);
        top.warnUnknown(TOP_LEVEL_KEYS);
        Optional<String> type = top.requiredChoice("type", Map.of("sink", "sink", "source", "source"), false,
                "sink, source");
        if (type.isPresent() && type.get().equals("source")) {
            top.error("type", "\"source\" connectors are not supported: this program only runs sinks");
        }
        Optional<String> key = top.requiredNonEmpty("key");
        Optional<Boolean> enabled = top.requiredBool("enabled");
        Optional<String> name = top.requiredString("name");
        top.requiredString("path");
        top.bool("verbose", ConnectorKeys.VERBOSE.bool());
        List<StreamSettings> streams = new ArrayList<>();
        for (StreamDto s : ConnectorReader.streams(top, baseDir, "iggy-connect-sink-" + key.orElse(""))) {
            if (s.schema() != PayloadSchema.JSON) {
                problems.error("streams", "stream " + s.stream() + ": the Iceberg sink reads JSON payloads, set schema"
                        + " = \"json\"");
            }
            streams.add(new StreamSettings(s.stream(), s.topics(), s.schema(), s.batchLength(), s.pollInterval(),
                    s.consumerGroup(), s.avroSchemaJson()));
        }

        Optional<TableSettings> table = Optional.empty();
        Optional<CatalogConfig> catalog = Optional.empty();
        Optional<TableConnectorConfig.Creation> creation = Optional.empty();
        int selfAudit = TableSinkKeys.SELF_AUDIT_REQUESTS_PER_MINUTE.integer();
        if (!top.has("plugin_config")) {
            top.error("plugin_config", "required table is missing");
        } else {
            Table p = top.table("plugin_config");
            p.warnUnknown(TableSinkKeys.NAMES);
            int batch = streams.stream().mapToInt(StreamSettings::batchLength).max()
                    .orElse(ConnectorKeys.BATCH_LENGTH.integer());
            table = tableSettings(p, batch);
            catalog = catalog(p).map(c -> besideTheFile(c, baseDir));
            creation = creation(p);
            selfAudit = p.intAtLeast("self_audit_requests_per_minute", 0).orElse(selfAudit);
            if (table.map(t -> t.errors() == ErrorTolerance.ALL).orElse(false)
                    && catalog.map(c -> namedWarehouse(c) && c.dlqLocation().isEmpty()).orElse(false)) {
                problems.warning(p.path("warehouse") + " \"" + catalog.get().warehouse() + "\" is a REST catalog's"
                        + " warehouse name, not a location: dead letters have no place there, so under"
                        + " errors_tolerance = \"all\" a bad record halts its partition (set dlq_location, e.g."
                        + " s3://bucket/dead-letters, or name the warehouse by its location to keep dead letters)");
            }
        }
        Optional<IggyConfig> iggy = ConnectionReader.connectorIggy(top, root, inDirectory, runtimeIggy, env, origins);
        Optional<AdminConfig> admin = ConnectionReader.admin(top.table("admin"));
        List<TransformSettings> transforms = TransformsReader.read(top.table("transforms"));
        if (problems.errorCount() > before || key.isEmpty() || enabled.isEmpty() || name.isEmpty()
                || table.isEmpty() || catalog.isEmpty() || iggy.isEmpty() || admin.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new TableConnectorConfig(key.get(), name.get(), enabled.get(), streams, table.get(),
                catalog.get(), iggy.get(), admin.get(), creation, transforms, selfAudit));
    }

    private static Optional<TableSettings> tableSettings(Table p, int batchLength) {
        int before = p.problems().errorCount();
        boolean dynamic = p.bool("dynamic_routing", TableSinkKeys.DYNAMIC_ROUTING.bool());
        List<String> tables = p.has("tables") ? p.stringList("tables").orElse(List.of()) : List.of();
        for (int i = 0; i < tables.size(); i++) {
            if (!TableRouting.validTableName(tables.get(i))) {
                p.problems().error(p.path("tables") + "[" + i + "]", "\"" + tables.get(i)
                        + "\" is not <namespace>.<table>");
            }
        }
        Optional<String> routeField = p.string("dynamic_route_field");
        if (dynamic && routeField.map(String::isBlank).orElse(true)) {
            p.error("dynamic_route_field", "required with dynamic_routing = true: the message field naming the table");
        }
        if (!dynamic && tables.isEmpty()) {
            p.error("tables", "name at least one table (\"namespace.table\"), or set dynamic_routing = true");
        }
        if (!dynamic && routeField.isPresent()) {
            p.problems().warning(p.path("dynamic_route_field") + " has no effect without dynamic_routing = true");
        }
        Duration interval = p.duration("commit_interval", false).orElse(TableSinkKeys.COMMIT_INTERVAL.duration());
        if (interval.isZero() || interval.isNegative()) p.error("commit_interval", "must be more than 0");
        int maxFiles = p.intAtLeast("max_files_per_commit", 1).orElse(TableSinkKeys.MAX_FILES_PER_COMMIT.integer());
        RotationPolicy rotation = RotationPolicy.bySize(p.sizeAtLeast("max_file_size", 1)
                .orElse(TableSinkKeys.MAX_FILE_SIZE.size()));
        Optional<Long> perFile = p.integer("max_messages_per_file");
        if (perFile.isPresent()) {
            if (perFile.get() < 1) p.error("max_messages_per_file", "must be 1 or more");
            else rotation = rotation.withMaxRecords(perFile.get());
        }
        ErrorTolerance errors = p.choice("errors_tolerance", TOLERANCES, true, "none, all")
                .orElse(TOLERANCES.get(TableSinkKeys.ERRORS_TOLERANCE.string()));
        // As the S3 sink's dlq_prefix: dead letters lie below the warehouse, <dlq_prefix>/<stream>/<topic>/.
        String dlqPrefix = ConnectorReader.trimSlashes(p.string("dlq_prefix", TableSinkKeys.DLQ_PREFIX.string()));
        if (dlqPrefix.isEmpty()) {
            p.error("dlq_prefix", "must not be empty");
        } else {
            StoreRules.keyPartProblem(dlqPrefix).ifPresent(problem -> p.error("dlq_prefix", problem));
        }
        long maxBuffered = p.sizeAtLeast("max_buffered_bytes", 1024 * 1024)
                .orElse(TableSinkKeys.MAX_BUFFERED_BYTES.size());
        Duration[] delays = ConnectorReader.retryDelays(p);
        if (p.problems().errorCount() > before) return Optional.empty();
        TableRouting routing = dynamic ? new TableRouting(tables, routeField) : TableRouting.fixed(
                tables.toArray(String[]::new));
        return Optional.of(new TableSettings(routing, rotation, interval, maxFiles, batchLength, errors, maxBuffered,
                dlqPrefix, new Backoff(delays[0], delays[1], Backoff.DEFAULT_JITTER)));
    }

    /**
     * A REST catalog's warehouse given by name: neither a URI nor an absolute path (an ARN, S3 Tables' table bucket,
     * is a name too), so no place for other files.
     */
    private static boolean namedWarehouse(CatalogConfig c) {
        return c.type().equals("rest") && !c.warehouse().startsWith("/")
                && (!c.warehouse().matches("[A-Za-z][A-Za-z0-9+.-]*:.*") || c.warehouse().startsWith("arn:"));
    }

    /** {@code create_tables} with its columns and partition spec; their content is checked by the Iceberg adapter. */
    private static Optional<TableConnectorConfig.Creation> creation(Table p) {
        boolean create = p.bool("create_tables", TableSinkKeys.CREATE_TABLES.bool());
        List<String> columns = p.has("table_columns") ? p.stringList("table_columns").orElse(List.of()) : List.of();
        List<String> spec = p.has("partition_spec") ? p.stringList("partition_spec").orElse(List.of()) : List.of();
        boolean evolve = p.bool("evolve_tables", TableSinkKeys.EVOLVE_TABLES.bool());
        if (!create) {
            if (!columns.isEmpty() || !spec.isEmpty()) {
                p.problems().warning(p.path("table_columns") + " and " + p.path("partition_spec")
                        + " have no effect without create_tables = true");
            }
            if (evolve) {
                p.problems().warning(p.path("evolve_tables") + " has no effect without create_tables = true"
                        + " (its table_columns are what an existing table is given)");
            }
            return Optional.empty();
        }
        return Optional.of(new TableConnectorConfig.Creation(columns, spec, evolve));
    }

    /**
     * A relative SQLite file ({@code jdbc:sqlite:lake.db}) and a JDBC catalog's relative warehouse path lie beside
     * the config file, whatever directory the sink was started in, as the object sink's relative paths do.
     */
    private static CatalogConfig besideTheFile(CatalogConfig c, Path baseDir) {
        if (!c.type().equals("jdbc")) return c;
        String uri = c.uri();
        String sqlite = "jdbc:sqlite:";
        if (uri.startsWith(sqlite)) {
            String file = uri.substring(sqlite.length());
            // ":memory:", "file:..." URIs and absolute paths are as meant
            if (!file.isEmpty() && !file.startsWith(":") && !file.startsWith("file:") && !Path.of(file).isAbsolute()) {
                uri = sqlite + baseDir.resolve(file).normalize();
            }
        }
        String warehouse = c.warehouse();
        if (!warehouse.contains(":") && !Path.of(warehouse).isAbsolute()) {
            warehouse = baseDir.resolve(warehouse).normalize().toString();
        }
        if (uri.equals(c.uri()) && warehouse.equals(c.warehouse())) return c;
        return new CatalogConfig(c.type(), c.name(), uri, warehouse, c.token(), c.credential(), c.oauth2ServerUri(),
                c.user(), c.password(), c.storeUrl(), c.storeAccessKeyId(), c.storeSecretAccessKey(), c.storeRegion(),
                c.pathStyle(),
                c.dlqLocation());
    }

    private static Optional<CatalogConfig> catalog(Table p) {
        int before = p.problems().errorCount();
        Optional<String> type = p.requiredChoice("catalog_type", CATALOGS, true, "rest, jdbc, glue");
        boolean glue = type.map("glue"::equals).orElse(false);
        // Glue's address is AWS's own unless uri names a Glue-compatible endpoint (moto, a VPC endpoint).
        Optional<String> uri = glue ? Optional.of(p.string("uri", "")) : p.requiredNonEmpty("uri");
        Optional<String> warehouse = p.requiredNonEmpty("warehouse");
        if (type.isPresent() && uri.isPresent()) {
            if (type.get().equals("rest") && !uri.get().startsWith("http://") && !uri.get().startsWith("https://")) {
                p.error("uri", "a REST catalog's uri is http:// or https://, not \"" + uri.get() + "\"");
            }
            if (type.get().equals("jdbc") && !uri.get().startsWith("jdbc:sqlite:")
                    && !uri.get().startsWith("jdbc:postgresql:")) {
                p.error("uri", "a JDBC catalog's uri is jdbc:sqlite:<file> or jdbc:postgresql://<host>/<database>");
            }
            if (glue && !uri.get().isEmpty() && !uri.get().startsWith("http://")
                    && !uri.get().startsWith("https://")) {
                p.error("uri", "a Glue catalog's uri is a Glue-compatible endpoint, http:// or https://, not \""
                        + uri.get() + "\" (leave it out for AWS Glue itself)");
            }
        }
        if (glue && warehouse.isPresent() && !warehouse.get().matches("(?i)s3a?://[^/]+.*")) {
            p.error("warehouse", "a Glue catalog's warehouse is an S3 location, s3://bucket/path, not \""
                    + warehouse.get() + "\"");
        }
        CatalogConfig.Aws aws = aws(p, type);
        p.choice("store_class", Map.of("s3", "s3"), true, "s3");
        Optional<String> storeUrl = p.string("store_url");
        Optional<String> accessKey = p.string("store_access_key_id");
        Optional<Secret> secretKey = p.secret("store_secret_access_key");
        if (accessKey.isPresent() != secretKey.isPresent()) {
            p.error(accessKey.isPresent() ? "store_secret_access_key" : "store_access_key_id",
                    "store_access_key_id and store_secret_access_key go together");
        }
        Optional<Secret> token = p.secret("catalog_token");
        Optional<Secret> credential = p.secret("catalog_credential");
        if (token.isPresent() && credential.isPresent()) {
            p.error("catalog_credential", "set catalog_token or catalog_credential, not both");
        }
        Optional<String> user = p.string("catalog_user");
        Optional<Secret> password = p.secret("catalog_password");
        if (glue && (token.isPresent() || credential.isPresent())) {
            p.error(token.isPresent() ? "catalog_token" : "catalog_credential", "a Glue catalog takes the store's"
                    + " credentials (store_access_key_id and store_secret_access_key, else the AWS credential chain),"
                    + " not a token");
        }
        if (type.isPresent() && !type.get().equals("jdbc") && (user.isPresent() || password.isPresent())) {
            p.error(user.isPresent() ? "catalog_user" : "catalog_password",
                    "only a JDBC catalog has a user and password; a REST catalog takes catalog_token or"
                            + " catalog_credential");
        }
        boolean pathStyle = p.bool("store_path_style", storeUrl.isPresent());
        // Dead letters need a place the sink itself can write and list; a REST warehouse name is none.
        Optional<String> dlqLocation = p.string("dlq_location");
        if (dlqLocation.isPresent() && !dlqLocation.get().matches("(?i)(s3a?://[^/]+.*|file:.+)")
                && !dlqLocation.get().startsWith("/")) {
            p.error("dlq_location", "is s3://bucket/path, s3a://bucket/path, file:///dir or an absolute path, not \""
                    + dlqLocation.get() + "\"");
        }
        String catalogName = p.string("catalog_name", TableSinkKeys.CATALOG_NAME.string());
        if (catalogName.isBlank()) p.error("catalog_name", "must not be empty");
        if (p.problems().errorCount() > before || type.isEmpty() || uri.isEmpty() || warehouse.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new CatalogConfig(type.get(), catalogName, uri.get(), warehouse.get(), token, credential,
                p.string("catalog_oauth2_server_uri"), user, password, storeUrl, accessKey, secretKey,
                p.string("store_region"), pathStyle, dlqLocation, aws));
    }

    /** {@code catalog_sigv4}, {@code catalog_signing_name} and {@code catalog_region}, each where it has a use. */
    private static CatalogConfig.Aws aws(Table p, Optional<String> type) {
        boolean sigv4 = p.bool("catalog_sigv4", TableSinkKeys.CATALOG_SIGV4.bool());
        Optional<String> signingName = p.string("catalog_signing_name");
        Optional<String> region = p.string("catalog_region");
        if (sigv4 && type.isPresent() && !type.get().equals("rest")) {
            p.error("catalog_sigv4", "only a REST catalog's requests are signed; a " + type.get() + " catalog"
                    + (type.get().equals("glue") ? " signs with the AWS SDK itself" : " takes no SigV4"));
        }
        if (!sigv4 && signingName.isPresent()) {
            p.problems().warning(p.path("catalog_signing_name") + " has no effect without catalog_sigv4 = true");
        }
        if (!sigv4 && region.isPresent() && type.map("rest"::equals).orElse(false)) {
            p.problems().warning(p.path("catalog_region") + " has no effect on a REST catalog without"
                    + " catalog_sigv4 = true");
        }
        if (signingName.map(String::isBlank).orElse(false)) p.error("catalog_signing_name", "must not be empty");
        return new CatalogConfig.Aws(sigv4, signingName, region);
    }
}
