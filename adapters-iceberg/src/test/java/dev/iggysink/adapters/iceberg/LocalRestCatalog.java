package dev.iggysink.adapters.iceberg;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Apache Iceberg's REST catalog servlet (test fixtures) on a free loopback port, in front of a JDBC catalog on SQLite
 * whose warehouse is a local directory ({@code file:} URI: the client's FileIO follows its scheme). A test adds to
 * the servlet context what stands before or beside the catalog: a filter that checks credentials, a token endpoint, a
 * failing path. Closing stops the server and the catalog.
 */
final class LocalRestCatalog implements AutoCloseable {
    /** The catalog behind the servlet, for what a test sets up or checks without the REST client. */
    final JdbcCatalog backend;
    /** The warehouse location, a {@code file:} URI. */
    final String warehouse;
    private final Server server;
    private final int port;

    private LocalRestCatalog(JdbcCatalog backend, String warehouse, Server server, int port) {
        this.backend = backend;
        this.warehouse = warehouse;
        this.server = server;
        this.port = port;
    }

    /** Starts one with its database and warehouse in {@code dir}; {@code more} adds to the servlet context. */
    static LocalRestCatalog start(Path dir, String name, Consumer<ServletContextHandler> more) throws Exception {
        String warehouse = dir.resolve("warehouse").toUri().toString();
        JdbcCatalog backend = new JdbcCatalog();
        backend.initialize(name, Map.of(
                CatalogProperties.URI, "jdbc:sqlite:file:" + dir.resolve("backend.db"),
                CatalogProperties.WAREHOUSE_LOCATION, warehouse,
                CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName(),
                "jdbc.schema-version", "V1"));
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
        more.accept(context);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(context);
        try {
            server.start();
        } catch (Exception e) {
            backend.close();
            throw e;
        }
        return new LocalRestCatalog(backend, warehouse, server, connector.getLocalPort());
    }

    /** The server's base address, {@code http://127.0.0.1:<port>}, without a trailing slash. */
    String uri() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() throws IOException {
        try {
            server.stop();
        } catch (Exception e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            throw new IOException("stopping the REST catalog server", e);
        } finally {
            backend.close();
        }
    }
}
