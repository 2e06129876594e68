package dev.iggysink.bootstrap.e2e;

import dev.iggysink.adapters.iceberg.Apache5AwsClientFactory;
import dev.iggysink.adapters.iceberg.Apache5S3ClientFactory;
import dev.iggysink.testkit.aws.MotoServer;
import dev.iggysink.testkit.iceberg.RestCatalogServers;
import java.io.Closeable;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.AwsProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogServer;
import org.apache.iceberg.types.Types;

/**
 * A real Iceberg catalog for the table sink's end-to-end tests, its warehouse in the scene's MinIO bucket: the
 * connector file's catalog lines that point the sink's processes at it, and a client of the test's own that creates
 * the table and reads it back through Iceberg's reader ({@link IcebergGenerics}), not the sink's code.
 */
final class TableCatalog implements Closeable {
    private final String pluginLines;
    private final Catalog client;
    private RESTCatalogServer server;
    /** The REST server's configuration, to start it again after {@link #stopServer}. */
    private Map<String, String> serverConfig;
    /** A service of the catalog's own to stop with it (moto's server for Glue), or null. */
    private final AutoCloseable service;

    private TableCatalog(String pluginLines, Catalog client, RESTCatalogServer server) {
        this(pluginLines, client, server, null);
    }

    private TableCatalog(String pluginLines, Catalog client, RESTCatalogServer server, AutoCloseable service) {
        this.pluginLines = pluginLines;
        this.client = client;
        this.server = server;
        this.service = service;
    }

    /**
     * Iceberg's GlueCatalog on moto's server (started here, stopped with the catalog), warehouse in the scene's
     * bucket: the sink's processes reach Glue at moto's endpoint ({@code uri}) with the store's keys, as on AWS. The
     * test's client is Iceberg's GlueCatalog too, on the sink's Apache 5 Glue client (the build bans the SDK's Apache 4
     * one, Iceberg's default).
     */
    static TableCatalog glue(E2eFixture fx) {
        MotoServer moto = MotoServer.start();
        Map<String, String> p = fileIo(fx);
        p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_GLUE);
        p.put(AwsProperties.CLIENT_FACTORY, Apache5AwsClientFactory.class.getName());
        p.put(AwsProperties.GLUE_CATALOG_ENDPOINT, moto.endpoint().toString());
        p.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + fx.bucket + "/warehouse");
        String lines = """
                catalog_type = "glue"
                uri = "%s"
                warehouse = "s3://%s/warehouse"
                """.formatted(moto.endpoint(), fx.bucket);
        return new TableCatalog(lines + storeLines(fx), CatalogUtil.buildIcebergCatalog("glue", p, null), null, moto);
    }

    /** Stops the REST catalog server (its port refuses connections), as an outage would. */
    void stopServer() {
        RestCatalogServers.stop(server);
        server = null;
    }

    /** Starts the REST catalog server again on the same port, with the same backend. */
    void restartServer() {
        server = RestCatalogServers.start(serverConfig);
    }

    /** A JDBC catalog on an SQLite file in the scene's directory: the zero-install catalog. */
    static TableCatalog sqlite(E2eFixture fx) {
        String uri = "jdbc:sqlite:file:" + fx.dir.resolve("catalog.db");
        Map<String, String> p = jdbc(fx, uri);
        String lines = """
                catalog_type = "jdbc"
                uri = '%s'
                warehouse = "s3://%s/warehouse"
                """.formatted(uri, fx.bucket);
        // the sink names its catalog "iggy" (catalog_name): a JDBC catalog keeps its tables under that name
        return new TableCatalog(lines + storeLines(fx), CatalogUtil.buildIcebergCatalog("iggy", p, null), null);
    }

    /**
     * A JDBC catalog on the PostgreSQL named by {@code POSTGRES_JDBC_URL}, {@code POSTGRES_USER} and
     * {@code POSTGRES_PASSWORD} (scripts/ensure-postgres.sh starts one and prints them; scripts/test.sh exports them).
     * A catalog name of its own, so that a server reused across runs keeps each run's tables apart. Missing, it
     * throws: the test must fail without the server, not pass having proved nothing.
     */
    static TableCatalog postgres(E2eFixture fx) {
        String url = System.getenv("POSTGRES_JDBC_URL");
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("No PostgreSQL for the JDBC catalog tests. Run"
                    + " eval \"$(bash scripts/ensure-postgres.sh start)\" (or set POSTGRES_JDBC_URL, POSTGRES_USER and"
                    + " POSTGRES_PASSWORD to a server of your own).");
        }
        String user = System.getenv().getOrDefault("POSTGRES_USER", "");
        String password = System.getenv().getOrDefault("POSTGRES_PASSWORD", "");
        String name = "e2e_" + fx.stream.substring("e2e_".length());
        Map<String, String> p = jdbc(fx, url.strip());
        p.put("jdbc.user", user);
        p.put("jdbc.password", password);
        String lines = """
                catalog_type = "jdbc"
                catalog_name = "%s"
                uri = "%s"
                catalog_user = "%s"
                catalog_password = "%s"
                warehouse = "s3://%s/warehouse"
                """.formatted(name, url.strip(), user, password, fx.bucket);
        return new TableCatalog(lines + storeLines(fx), CatalogUtil.buildIcebergCatalog(name, p, null), null);
    }

    /**
     * Apache Iceberg's REST catalog server ({@code iceberg-open-api} test fixtures) in this JVM, backed by a JDBC
     * catalog on an SQLite file in the scene's directory, with its warehouse on MinIO; the sink's processes reach it
     * over HTTP, as they would Polaris or Lakekeeper.
     */
    static TableCatalog rest(E2eFixture fx) throws IOException {
        int port = E2eFixture.freePort();
        Map<String, String> backend = fileIo(fx);
        backend.put(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
        // A file, not the server's default jdbc:sqlite::memory:, which is one database per pooled connection.
        backend.put(CatalogProperties.URI, "jdbc:sqlite:file:" + fx.dir.resolve("rest-backend.db"));
        backend.put("jdbc.schema-version", "V1");
        backend.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + fx.bucket + "/warehouse");
        backend.put(RESTCatalogServer.REST_PORT, Integer.toString(port));
        RESTCatalogServer server = RestCatalogServers.start(backend);
        String uri = "http://127.0.0.1:" + port + "/";
        Map<String, String> p = fileIo(fx);
        p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
        p.put(CatalogProperties.URI, uri);
        String lines = """
                catalog_type = "rest"
                uri = "%s"
                warehouse = "warehouse"
                """.formatted(uri);
        TableCatalog catalog = new TableCatalog(lines + storeLines(fx), CatalogUtil.buildIcebergCatalog("rest", p,
                null), server);
        catalog.serverConfig = backend;
        return catalog;
    }

    /** A JDBC catalog's client properties: its database at {@code uri}, its warehouse in the scene's bucket. */
    private static Map<String, String> jdbc(E2eFixture fx, String uri) {
        Map<String, String> p = fileIo(fx);
        p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, "jdbc");
        p.put(CatalogProperties.URI, uri);
        p.put("jdbc.schema-version", "V1");
        p.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + fx.bucket + "/warehouse");
        return p;
    }

    private static Map<String, String> fileIo(E2eFixture fx) {
        Map<String, String> p = new HashMap<>();
        p.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
        p.put("s3.endpoint", fx.minio.endpoint().toString());
        p.put("s3.path-style-access", "true");
        p.put("s3.access-key-id", fx.minio.accessKey());
        p.put("s3.secret-access-key", fx.minio.secretKey());
        p.put("client.region", "us-east-1");
        // Iceberg's default S3 client factory wants the SDK's Apache 4 client, which the build bans.
        p.putAll(Apache5S3ClientFactory.catalogProperties());
        return p;
    }

    private static String storeLines(E2eFixture fx) {
        return """
                store_url = "%s"
                store_access_key_id = "%s"
                store_secret_access_key = "%s"
                store_region = "us-east-1"
                store_class = "s3"
                """.formatted(fx.minio.endpoint(), fx.minio.accessKey(), fx.minio.secretKey());
    }

    /** The [plugin_config] lines that point the sink at this catalog and its warehouse. */
    String pluginLines() {
        return pluginLines;
    }

    /** Creates {@code namespace.table} with the given schema, partitioned by day(iggy_timestamp). */
    void createTable(String table, Schema schema) {
        createTable(table, schema, PartitionSpec.builderFor(schema).day("iggy_timestamp").build());
    }

    /** Creates {@code namespace.table} with the given schema and partitioning. */
    void createTable(String table, Schema schema, PartitionSpec spec) {
        TableIdentifier id = TableIdentifier.parse(table);
        SupportsNamespaces namespaces = (SupportsNamespaces) client;
        if (!namespaces.namespaceExists(id.namespace())) namespaces.createNamespace(id.namespace());
        client.createTable(id, schema, spec);
    }

    /** Drops {@code namespace.table} with its files and creates it again, empty, as a reset of the lake would. */
    void replaceTable(String table, Schema schema, PartitionSpec spec) {
        TableIdentifier id = TableIdentifier.parse(table);
        client.dropTable(id, true);
        client.createTable(id, schema, spec);
    }

    /** Drops {@code namespace.table} with its files, as an operator would. */
    void dropTable(String table) {
        client.dropTable(TableIdentifier.parse(table), true);
    }

    /** The table as the catalog has it now, for a test that writes to it as another writer would. */
    Table table(String table) {
        return client.loadTable(TableIdentifier.parse(table));
    }

    /** The columns of a table the sink fills: its metadata and a round number and page from each record. */
    static Schema clicksSchema() {
        return new Schema(
                Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
                Types.NestedField.required(2, "iggy_partition_id", Types.IntegerType.get()),
                Types.NestedField.required(3, "iggy_timestamp", Types.TimestampType.withZone()),
                Types.NestedField.required(4, "round", Types.LongType.get()),
                Types.NestedField.optional(5, "page", Types.StringType.get()));
    }

    /** Copies of each (partition, offset) in the table, read by Iceberg's own reader. */
    Map<Integer, Map<Long, Integer>> copies(String table) throws IOException {
        Table t = table(table);
        Map<Integer, Map<Long, Integer>> out = new TreeMap<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(t).build()) {
            for (Record r : rows) {
                out.computeIfAbsent((Integer) r.getField("iggy_partition_id"), k -> new TreeMap<>())
                        .merge((Long) r.getField("iggy_offset"), 1, Integer::sum);
            }
        }
        return out;
    }

    /** Records in the table as its current snapshot's summary counts them (total-records), 0 before any. */
    long totalRecords(String table) {
        Snapshot current = table(table).currentSnapshot();
        return current == null ? 0 : Long.parseLong(current.summary().getOrDefault("total-records", "0"));
    }

    /** Rows in the table, 0 before it has any. */
    long rows(String table) throws IOException {
        return copies(table).values().stream().flatMap(m -> m.values().stream()).mapToLong(Integer::longValue).sum();
    }

    @Override
    public void close() throws IOException {
        try {
            if (client instanceof Closeable c) c.close();
        } finally {
            if (service != null) {
                try {
                    service.close();
                } catch (Exception e) {
                    throw new IOException("the catalog's service did not stop", e);
                }
            }
            if (server != null) RestCatalogServers.stop(server);
        }
    }
}
