package dev.iggysink.adapters.iceberg;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.iggysink.application.settings.Secret;
import dev.iggysink.testkit.aws.MotoServer;
import dev.iggysink.testkit.iceberg.RestCatalogServers;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTCatalogServer;

/**
 * A real Iceberg catalog for integration tests, its warehouse on a real MinIO. Each {@link #newClient()} is a client
 * of its own (its own connection pool or HTTP client, its own table loads), as two sink instances would be.
 * Deliberately not {@link AutoCloseable}: JUnit closes such arguments of a parameterised test after each invocation,
 * which would stop a fixture meant to serve the whole class.
 */
abstract class CatalogFixture {
    private final String kind;
    private final MinioWarehouse warehouse;
    private final List<Closeable> clients = new ArrayList<>();

    private CatalogFixture(String kind, MinioWarehouse warehouse) {
        this.kind = kind;
        this.warehouse = warehouse;
    }

    /**
     * Apache Iceberg's REST catalog test server ({@code iceberg-open-api} test fixtures) in this JVM, backed by a
     * JDBC catalog on an SQLite file in {@code dir} with its warehouse on MinIO; clients are {@link RESTCatalog}s.
     */
    static CatalogFixture rest(MinioWarehouse warehouse, Path dir) {
        return new Rest(warehouse, dir);
    }

    /** {@link JdbcCatalog} on an SQLite file in {@code dir}: the zero-install catalog. */
    static CatalogFixture sqlite(MinioWarehouse warehouse, Path dir) {
        return new Jdbc("sqlite", warehouse, "jdbc:sqlite:file:" + dir.resolve("catalog.db"), "", "");
    }

    /**
     * {@link JdbcCatalog} on the PostgreSQL named by {@code POSTGRES_JDBC_URL}, {@code POSTGRES_USER} and
     * {@code POSTGRES_PASSWORD} (scripts/ensure-postgres.sh starts one and prints them). Missing, it throws: a test
     * that needs the server must fail without it, not pass having proved nothing.
     */
    static CatalogFixture postgres(MinioWarehouse warehouse) {
        String url = System.getenv("POSTGRES_JDBC_URL");
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("No PostgreSQL for the JDBC catalog tests. Run"
                    + " eval \"$(bash scripts/ensure-postgres.sh start)\" (or set POSTGRES_JDBC_URL, POSTGRES_USER and"
                    + " POSTGRES_PASSWORD to a server of your own).");
        }
        return new Jdbc("postgres", warehouse, url.strip(), System.getenv().getOrDefault("POSTGRES_USER", ""),
                System.getenv().getOrDefault("POSTGRES_PASSWORD", ""));
    }

    /**
     * Iceberg's GlueCatalog on moto's server (started here, stopped with the fixture) through the sink's own client
     * factory, its warehouse on MinIO: Glue keeps only each table's metadata location, as on AWS.
     */
    static CatalogFixture glue(MinioWarehouse warehouse) {
        return new Glue(warehouse);
    }

    /** The catalog's kind, for test names. */
    final String kind() {
        return kind;
    }

    final MinioWarehouse warehouse() {
        return warehouse;
    }

    /** A new client of the catalog; closed with the fixture. */
    final Catalog newClient() {
        Catalog client = openClient();
        clients.add((Closeable) client);
        return client;
    }

    protected abstract Catalog openClient();

    /** The sink's own description of this catalog, as the connector file would give it. */
    abstract CatalogSettings settings();

    /** The MinIO store keys of {@code settings()}, taken from the fixture's own FileIO properties. */
    final CatalogSettings settings(String type, String name, String uri, String warehouseLocation,
                                   Optional<String> user, Optional<Secret> password) {
        Map<String, String> io = warehouse.fileIoProperties();
        return new CatalogSettings(type, name, uri, warehouseLocation, Optional.empty(), Optional.empty(),
                Optional.empty(), user, password, Optional.of(io.get("s3.endpoint")),
                Optional.of(io.get("s3.access-key-id")), Optional.of(Secret.of(io.get("s3.secret-access-key"))),
                Optional.of(io.get("client.region")), true);
    }

    void close() {
        for (Closeable client : clients) {
            try {
                client.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        clients.clear();
    }

    @Override
    public String toString() {
        return kind;
    }

    /** Properties every catalog of the fixture shares: the warehouse on MinIO and the JDBC schema with views. */
    private static Map<String, String> common(MinioWarehouse warehouse, String warehousePath) {
        Map<String, String> properties = new HashMap<>(warehouse.fileIoProperties());
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse.location(warehousePath));
        return properties;
    }

    private static final class Jdbc extends CatalogFixture {
        private final Map<String, String> properties;
        /** One catalog name per fixture: a PostgreSQL reused across runs keeps the catalogs of each run apart. */
        private final String catalogName = "it_" + System.nanoTime();

        Jdbc(String kind, MinioWarehouse warehouse, String uri, String user, String password) {
            super(kind, warehouse);
            properties = common(warehouse, kind);
            properties.put(CatalogProperties.URI, uri);
            properties.put("jdbc.user", user);
            properties.put("jdbc.password", password);
            // V1 adds the views column; without it JdbcCatalog warns on every start that views are unsupported.
            properties.put("jdbc.schema-version", "V1");
        }

        @Override
        protected Catalog openClient() {
            JdbcCatalog catalog = new JdbcCatalog();
            catalog.initialize(catalogName, properties);
            return catalog;
        }

        @Override
        CatalogSettings settings() {
            String user = properties.get("jdbc.user");
            String password = properties.get("jdbc.password");
            return settings("jdbc", catalogName, properties.get(CatalogProperties.URI), warehouse().location(kind()),
                    user.isEmpty() ? Optional.empty() : Optional.of(user),
                    password.isEmpty() ? Optional.empty() : Optional.of(Secret.of(password)));
        }
    }

    private static final class Rest extends CatalogFixture {
        private final RESTCatalogServer server;
        private final Map<String, String> clientProperties;

        Rest(MinioWarehouse warehouse, Path dir) {
            super("rest", warehouse);
            int port = freePort();
            Map<String, String> backend = common(warehouse, "rest");
            backend.put(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
            // A file, not the server's default jdbc:sqlite::memory:, which is one database per pooled connection.
            backend.put(CatalogProperties.URI, "jdbc:sqlite:file:" + dir.resolve("rest-backend.db"));
            backend.put("jdbc.schema-version", "V1");
            backend.put(RESTCatalogServer.REST_PORT, Integer.toString(port));
            server = RestCatalogServers.start(backend);

            clientProperties = new HashMap<>(warehouse.fileIoProperties());
            clientProperties.put(CatalogProperties.URI, "http://127.0.0.1:" + port + "/");
        }

        @Override
        protected Catalog openClient() {
            RESTCatalog catalog = new RESTCatalog();
            catalog.initialize("rest", clientProperties);
            return catalog;
        }

        @Override
        CatalogSettings settings() {
            return settings("rest", "rest", clientProperties.get(CatalogProperties.URI), "rest", Optional.empty(),
                    Optional.empty());
        }

        @Override
        void close() {
            super.close();
            RestCatalogServers.stop(server);
        }
    }

    private static final class Glue extends CatalogFixture {
        private final MotoServer moto = MotoServer.start();

        Glue(MinioWarehouse warehouse) {
            super("glue", warehouse);
        }

        @Override
        protected Catalog openClient() {
            return IcebergCatalogs.open(settings());
        }

        @Override
        CatalogSettings settings() {
            return settings("glue", "glue", moto.endpoint().toString(), warehouse().location("glue"),
                    Optional.empty(), Optional.empty());
        }

        @Override
        void close() {
            super.close();
            moto.close();
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
