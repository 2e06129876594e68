package dev.iggysink.adapters.iceberg;

import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.ServiceFailureException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * What {@code validate} asks of the catalog before a table sink runs: that it answers and takes our credentials,
 * that every configured table exists (or may be created), that the sink can fill a row of each, and that its data
 * files can be written (a probe file is written and deleted at once). No table is changed: no snapshot, no metadata.
 * Each problem starts with the connector key it is about ({@code uri}, {@code warehouse}, {@code tables}).
 */
public final class TableChecks {
    /** Metadata columns the sink fills itself ({@link RowConverter}). */
    private static final Set<String> IGGY_COLUMNS = Set.of("iggy_offset", "iggy_timestamp", "iggy_origin_timestamp",
            "iggy_partition_id", "iggy_stream", "iggy_topic", "iggy_id");
    private static final SinkRecord SAMPLE = new SinkRecord(new PartitionRef("stream", "topic", 0), 0, 0, 0,
            new MessageId(0, 1), List.of(), "{}".getBytes(StandardCharsets.UTF_8));

    private TableChecks() {
    }

    /**
     * @param reached    whether the catalog answered and took our credentials; when not, the tables were not looked at
     * @param unanswered every problem is a service that could not be reached or did not answer, the catalog or the
     *                   warehouse's store (connection refused or timed out, an unknown host, a 5xx, a database not
     *                   accepting connections): a later attempt may see it answer; false when one refused our
     *                   credentials or anything else failed
     * @param problems   each a line naming the key or table it is about; empty when the sink can run
     * @param warnings   what will not stop the sink but may refuse some records
     */
    public record Report(boolean reached, boolean unanswered, List<String> problems, List<String> warnings) {
        public Report {
            problems = List.copyOf(problems);
            warnings = List.copyOf(warnings);
        }

        public boolean ok() {
            return reached && problems.isEmpty();
        }
    }

    /**
     * @param tables   the statically configured tables ({@code namespace.table}); empty with dynamic routing
     * @param template how a missing table is created ({@code create_tables}); empty: a missing table is a problem
     */
    public static Report check(CatalogSettings s, List<String> tables, Optional<TableTemplate> template) {
        // Opening a JDBC catalog on SQLite makes its file (and the catalog's tables in it); a check leaves nothing.
        Optional<File> newSqlite = sqliteFile(s).filter(f -> !f.exists());
        try {
            return checkOpened(s, tables, template);
        } finally {
            newSqlite.ifPresent(f -> {
                for (String suffix : List.of("", "-journal", "-wal", "-shm")) {
                    new File(f.getPath() + suffix).delete();
                }
            });
        }
    }

    /** The file of an SQLite catalog ({@code jdbc:sqlite:<file>}, {@code jdbc:sqlite:file:<file>?...}). */
    static Optional<File> sqliteFile(CatalogSettings s) {
        String prefix = "jdbc:sqlite:";
        if (!s.uri().startsWith(prefix)) return Optional.empty();
        String f = s.uri().substring(prefix.length());
        if (f.indexOf('?') >= 0) f = f.substring(0, f.indexOf('?'));
        if (f.startsWith("file://")) {
            f = java.net.URI.create(f).getPath();
        } else if (f.startsWith("file:")) {
            f = f.substring("file:".length());
        }
        if (f == null || f.isEmpty() || f.startsWith(":")) return Optional.empty();
        return Optional.of(new File(f).getAbsoluteFile());
    }

    private static Report checkOpened(CatalogSettings s, List<String> tables, Optional<TableTemplate> template) {
        Catalog catalog;
        try {
            catalog = IcebergCatalogs.open(s);
        } catch (RuntimeException e) {
            return new Report(false, !refused(e) && unanswered(e), List.of(catalogFailure(s, e)), List.of());
        }
        List<String> problems = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        int[] unanswered = {0};
        try {
            // GlueCatalog asks nothing of Glue when it opens: a list of its databases shows it answers and takes
            // our credentials.
            if (s.type().equals("glue") && catalog instanceof SupportsNamespaces glue) {
                try {
                    glue.listNamespaces();
                } catch (RuntimeException e) {
                    return new Report(false, !refused(e) && unanswered(e), List.of(catalogFailure(s, e)), List.of());
                }
            }
            // A JDBC catalog's tables have their metadata in the warehouse, read with our store keys: a store that
            // refuses them would make each table load retry for a minute and a half, so it is asked first, once.
            if (!s.type().equals("rest")) {
                Optional<Failure> refused = probeWarehouse(s);
                if (refused.isPresent()) {
                    problems.add(refused.get().message() + (tables.isEmpty() ? ""
                            : " (the tables were not checked: their metadata is in that store)"));
                    return new Report(true, refused.get().unanswered(), problems, warnings);
                }
            }
            for (String name : tables) checkTable(s, catalog, name, template, problems, warnings, unanswered);
        } finally {
            if (catalog instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    // the check is done; a catalog that does not close cleanly changes nothing of it
                }
            }
        }
        return new Report(true, !problems.isEmpty() && unanswered[0] == problems.size(), problems, warnings);
    }

    /** Why a probe write failed, and whether only because the store did not answer. */
    private record Failure(String message, boolean unanswered) {
    }

    private static void checkTable(CatalogSettings s, Catalog catalog, String name, Optional<TableTemplate> template,
                                   List<String> problems, List<String> warnings, int[] unanswered) {
        Table table;
        try {
            table = catalog.loadTable(TableIdentifier.parse(name));
        } catch (NoSuchTableException e) {
            if (template.isEmpty()) {
                problems.add("tables: table " + name + " does not exist in the catalog at " + where(s)
                        + " (create it, or set create_tables = true)");
                return;
            }
            template.get().problems().forEach(p -> problems.add("tables: table " + name + " cannot be created: "
                    + p));
            return;
        } catch (RuntimeException e) {
            problems.add("tables: table " + name + " cannot be loaded from the catalog at " + where(s) + ": "
                    + redact(s, message(e)));
            // a 5xx or no answer (a REST server whose store is down): waited for, as a catalog that is down
            if (!refused(e) && unanswered(e)) unanswered[0]++;
            return;
        }
        problems.addAll(schemaProblems(name, table.schema(), warnings));
        if (template.isPresent()) {
            List<Types.NestedField> missing = template.get().missingFrom(table.schema());
            if (!missing.isEmpty()) warnings.add("table_columns: " + template.get().missingColumns(name, missing));
        }
        String location;
        try {
            location = table.locationProvider().newDataLocation(".iggy-sink-probe-" + UUID.randomUUID());
        } catch (RuntimeException e) {
            problems.add("tables: table " + name + ": its data location cannot be made: " + redact(s, message(e)));
            return;
        }
        probe(table.io(), location).ifPresent(why -> {
            problems.add("tables: table " + name + ": cannot write its data files under " + table.location()
                    + storeKeys(s) + ": " + redact(s, why.message()));
            if (why.unanswered()) unanswered[0]++;
        });
    }

    /** A probe file under a JDBC catalog's warehouse, where it puts the tables it creates; the problem, if any. */
    private static Optional<Failure> probeWarehouse(CatalogSettings s) {
        Map<String, String> properties = IcebergCatalogs.properties(s);
        String location = warehouse(s) + "/.iggy-sink-probe-" + UUID.randomUUID();
        try (FileIO io = CatalogUtil.loadFileIO(properties.get(CatalogProperties.FILE_IO_IMPL), properties, null)) {
            return probe(io, location).map(why -> new Failure("warehouse: cannot write under " + warehouse(s)
                    + storeKeys(s) + ": " + redact(s, why.message()), why.unanswered()));
        } catch (RuntimeException e) {
            return Optional.of(new Failure("warehouse: " + warehouse(s) + " cannot be opened" + storeKeys(s) + ": "
                    + redact(s, message(e)), !refused(e) && unanswered(e)));
        }
    }

    /**
     * Columns no record could ever fill: a metadata column of a type the metadata does not fit, and a required column
     * of a type JSON cannot be converted to. An optional such column only refuses records that carry the field.
     */
    static List<String> schemaProblems(String name, Schema schema, List<String> warnings) {
        List<String> problems = new ArrayList<>();
        for (Types.NestedField column : schema.columns()) {
            if (IGGY_COLUMNS.contains(column.name())) {
                try {
                    new RowConverter(new Schema(column)).convert(SAMPLE);
                } catch (BadRecordException e) {
                    problems.add("tables: table " + name + ": " + e.getMessage() + "; every record would be refused");
                }
                continue;
            }
            Optional<String> unfit = unfit(column.type());
            if (unfit.isEmpty()) continue;
            String why = "column " + column.name() + " is of type " + column.type() + ", and " + unfit.get()
                    + " cannot be filled from JSON";
            if (column.isRequired()) {
                problems.add("tables: table " + name + ": " + why + " while the column is required; every record"
                        + " would be refused");
            } else {
                warnings.add("tables: table " + name + ": " + why + "; a record carrying field " + column.name()
                        + " is refused");
            }
        }
        return problems;
    }

    /** What in {@code type} the row converter cannot fill, if anything. */
    private static Optional<String> unfit(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DECIMAL, STRING, UUID, DATE, TIME, TIMESTAMP, BINARY, FIXED ->
                    Optional.empty();
            case STRUCT -> type.asStructType().fields().stream().map(f -> unfit(f.type())).flatMap(Optional::stream)
                    .findFirst();
            case LIST -> unfit(type.asListType().elementType());
            case MAP -> type.asMapType().keyType().typeId() != Type.TypeID.STRING
                    ? Optional.of("a map with keys of type " + type.asMapType().keyType())
                    : unfit(type.asMapType().valueType());
            default -> Optional.of("a " + type);
        };
    }

    /**
     * Writes and deletes a small file at {@code location}; the reason when either fails. Local folders the write
     * made are removed again.
     */
    private static Optional<Failure> probe(FileIO io, String location) {
        List<File> made = new ArrayList<>();
        if (LocalFileIO.isLocal(location)) {
            for (File d = LocalFileIO.file(location).getParentFile(); d != null && !d.exists(); d = d.getParentFile()) {
                made.add(d);
            }
        }
        try {
            return writeAndDelete(io, location);
        } finally {
            // deepest first; a folder something else wrote into meanwhile is not empty and stays
            made.forEach(File::delete);
        }
    }

    private static Optional<Failure> writeAndDelete(FileIO io, String location) {
        try {
            try (PositionOutputStream out = io.newOutputFile(location).create()) {
                out.write("iggy-s3-sink validate probe\n".getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException | RuntimeException e) {
            return Optional.of(new Failure("writing " + location + " failed: " + message(e), unanswered(e)));
        }
        try {
            io.deleteFile(location);
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of(new Failure("deleting the probe file " + location + " failed: " + message(e),
                    unanswered(e)));
        }
    }

    private static boolean refused(Throwable e) {
        for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
            // SQL state class 28: invalid authorization (PostgreSQL's wrong password or unknown user)
            if (t instanceof NotAuthorizedException || t instanceof ForbiddenException
                    || t instanceof AwsServiceException a && refusedByAws(a)
                    || t instanceof StoreException x && (x.httpStatus() == 401 || x.httpStatus() == 403)
                    || t instanceof SQLException q && q.getSQLState() != null && q.getSQLState().startsWith("28")) {
                return true;
            }
        }
        return false;
    }

    /** AWS's answers to a key it does not know, a signature that does not match, or a key without the right. */
    private static boolean refusedByAws(AwsServiceException e) {
        String code = e.awsErrorDetails() == null ? "" : String.valueOf(e.awsErrorDetails().errorCode());
        return e.statusCode() == 401 || e.statusCode() == 403 || Set.of("UnrecognizedClientException",
                "InvalidClientTokenId", "InvalidSignatureException", "SignatureDoesNotMatch", "AccessDeniedException",
                "ExpiredTokenException", "IncompleteSignature", "MissingAuthenticationToken").contains(code);
    }

    /**
     * The catalog could not be reached or did not answer, which a later attempt may cure (a catalog starting after
     * the sink); a refusal, a malformed address or a missing SQLite directory would not.
     */
    private static boolean unanswered(Throwable e) {
        for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
            // SQL state class 08: connection exception (the database is down or does not accept connections yet)
            if (t instanceof ConnectException || t instanceof NoRouteToHostException
                    || t instanceof InterruptedIOException || t instanceof UnknownHostException
                    || t instanceof HttpTimeoutException
                    || t instanceof ServiceUnavailableException || t instanceof ServiceFailureException
                    || t instanceof SdkServiceException x && x.statusCode() >= 500
                    || t instanceof StoreException x && x.retryable()
                    || t instanceof SQLException q && q.getSQLState() != null && q.getSQLState().startsWith("08")) {
                return true;
            }
        }
        return false;
    }

    private static String catalogFailure(CatalogSettings s, RuntimeException e) {
        boolean refused = refused(e);
        String keys = s.type().equals("glue") || s.aws().sigv4()
                ? (s.accessKeyId().isPresent() ? "store_access_key_id, store_secret_access_key"
                        : "the AWS credential chain, as store_access_key_id is not set") + ", signed with SigV4"
                : s.type().equals("rest")
                ? (s.credential().isPresent() ? "catalog_credential" + s.oauth2ServerUri().map(u ->
                        ", catalog_oauth2_server_uri").orElse("") : "catalog_token")
                : "catalog_user, catalog_password";
        String what = refused ? "refused our credentials (" + keys + ")" : "cannot be used";
        return "uri: the " + s.type() + " catalog at " + where(s) + " " + what + ": " + redact(s, message(e));
    }

    /** The catalog's address; a Glue catalog without {@code uri} is AWS Glue in the client's region. */
    public static String where(CatalogSettings s) {
        return s.uri().isEmpty() ? "AWS Glue (" + s.aws().region().or(s::region).orElse("the AWS region chain's region")
                + ")" : s.uri();
    }

    private static String warehouse(CatalogSettings s) {
        String w = IcebergCatalogs.properties(s).get(CatalogProperties.WAREHOUSE_LOCATION);
        return w.endsWith("/") ? w.substring(0, w.length() - 1) : w;
    }

    private static String storeKeys(CatalogSettings s) {
        return IcebergCatalogs.localWarehouse(s) ? ""
                : " (warehouse, store_url, store_access_key_id, store_secret_access_key, store_region)";
    }

    /** The message of {@code e} and of its causes, each once. */
    static String message(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
            String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            if (b.indexOf(m) >= 0) continue;
            if (!b.isEmpty()) b.append(": ");
            b.append(m);
        }
        return b.toString();
    }

    /** A server may echo what it was sent; no secret of ours leaves in a message. */
    static String redact(CatalogSettings s, String text) {
        List<String> secrets = new ArrayList<>();
        s.token().map(Secret::reveal).ifPresent(secrets::add);
        s.credential().map(Secret::reveal).ifPresent(c -> {
            secrets.add(c);
            if (c.contains(":")) secrets.add(c.substring(c.indexOf(':') + 1));
        });
        s.password().map(Secret::reveal).ifPresent(secrets::add);
        s.secretAccessKey().map(Secret::reveal).ifPresent(secrets::add);
        String out = text;
        for (String secret : secrets) {
            if (!secret.isEmpty()) out = out.replace(secret, "****");
        }
        return out;
    }
}
