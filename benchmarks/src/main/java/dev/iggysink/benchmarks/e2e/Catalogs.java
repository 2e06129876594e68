package dev.iggysink.benchmarks.e2e;

import dev.iggysink.adapters.iceberg.Apache5S3ClientFactory;
import dev.iggysink.testkit.s3.MinioServer;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogServer;

/**
 * The catalogs {@link TableBench} runs the table sink on, each with its warehouse on the bench's MinIO: {@code jdbc}, a
 * JDBC catalog on an SQLite file, and {@code rest}, Apache Iceberg's REST catalog server in this JVM (as the table
 * sink's tests start it), backed by a JDBC catalog on another SQLite file, which the sink reaches over HTTP.
 */
final class Catalogs implements Closeable {
    /** One catalog: a client of the bench's own, and the {@code [plugin_config]} lines that point the sink at it. */
    record Handle(Catalog catalog, String pluginLines, Map<String, String> tableProperties) {
        /** Creates {@code namespace.table} with the bench's columns, partitioned by day(iggy_timestamp). */
        void createTable(String table) {
            TableIdentifier id = TableIdentifier.parse(table);
            // Listed rather than asked for: the REST server logs a stack trace for each namespace it lacks.
            SupportsNamespaces namespaces = (SupportsNamespaces) catalog;
            if (!namespaces.listNamespaces().contains(id.namespace())) namespaces.createNamespace(id.namespace());
            Schema schema = dev.iggysink.benchmarks.BenchTable.SCHEMA;
            catalog.createTable(id, schema, PartitionSpec.builderFor(schema).day("iggy_timestamp").build(), null,
                    tableProperties);
        }
    }

    private final Map<String, Handle> handles;
    private final RESTCatalogServer server;

    private Catalogs(Map<String, Handle> handles, RESTCatalogServer server) {
        this.handles = handles;
        this.server = server;
    }

    /** @param tableProperties set on every table the bench creates, e.g. Iceberg's {@code write.parquet.*} */
    static Catalogs open(MinioServer minio, Path runDir, String bucket, List<String> names,
                         Map<String, String> tableProperties) throws IOException {
        Map<String, Handle> handles = new LinkedHashMap<>();
        RESTCatalogServer server = null;
        String warehouse = "s3://" + bucket + "/warehouse";
        for (String name : names) {
            if (name.equals("jdbc")) {
                String uri = "jdbc:sqlite:file:" + runDir.toAbsolutePath().resolve("catalog.db");
                Map<String, String> p = fileIo(minio);
                String jdbcWarehouse = warehouse;
                if (TableBench.localFiles) {
                    jdbcWarehouse = runDir.toAbsolutePath().resolve("warehouse").toUri().toString();
                    p.put(CatalogProperties.FILE_IO_IMPL, "dev.iggysink.adapters.iceberg.LocalFileIO");
                }
                p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, "jdbc");
                p.put(CatalogProperties.URI, uri);
                p.put("jdbc.schema-version", "V1");
                p.put(CatalogProperties.WAREHOUSE_LOCATION, jdbcWarehouse);
                // the sink names its catalog "iggy": a JDBC catalog keeps its tables under that name
                handles.put(name, new Handle(CatalogUtil.buildIcebergCatalog("iggy", p, null), """
                        catalog_type = "jdbc"
                        uri = "%s"
                        warehouse = "%s"
                        """.formatted(uri, jdbcWarehouse), tableProperties));
            } else {
                int port = freePort();
                Map<String, String> backend = fileIo(minio);
                backend.put(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
                // A file, not the server's default jdbc:sqlite::memory:, which is one database per pooled connection.
                backend.put(CatalogProperties.URI, "jdbc:sqlite:file:"
                        + runDir.toAbsolutePath().resolve("rest-backend.db"));
                backend.put("jdbc.schema-version", "V1");
                backend.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
                backend.put(RESTCatalogServer.REST_PORT, Integer.toString(port));
                server = dev.iggysink.testkit.iceberg.RestCatalogServers.start(backend);
                String uri = "http://127.0.0.1:" + port + "/";
                Map<String, String> p = fileIo(minio);
                p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
                p.put(CatalogProperties.URI, uri);
                handles.put(name, new Handle(CatalogUtil.buildIcebergCatalog("rest", p, null), """
                        catalog_type = "rest"
                        uri = "%s"
                        warehouse = "warehouse"
                        """.formatted(uri), tableProperties));
            }
        }
        return new Catalogs(handles, server);
    }

    Map<String, Handle> handles() {
        return handles;
    }

    private static Map<String, String> fileIo(MinioServer minio) {
        Map<String, String> p = new HashMap<>();
        p.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
        p.put("s3.endpoint", minio.endpoint().toString());
        p.put("s3.path-style-access", "true");
        p.put("s3.access-key-id", minio.accessKey());
        p.put("s3.secret-access-key", minio.secretKey());
        p.put("client.region", minio.region());
        // Iceberg's default S3 client factory wants the SDK's Apache 4 client, which the build bans.
        p.putAll(Apache5S3ClientFactory.catalogProperties());
        return p;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            for (Handle h : handles.values()) if (h.catalog() instanceof Closeable c) c.close();
        } finally {
            if (server != null) {
                try {
                    // closes the server's backend catalog too, which its stop() leaves open
                    dev.iggysink.testkit.iceberg.RestCatalogServers.stop(server);
                } catch (IllegalStateException e) {
                    throw new IOException("the REST catalog server did not stop", e);
                }
            }
        }
    }
}
