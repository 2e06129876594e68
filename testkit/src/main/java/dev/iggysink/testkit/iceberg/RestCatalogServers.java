package dev.iggysink.testkit.iceberg;

import java.io.Closeable;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;

import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServer;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;

/**
 * Apache Iceberg's REST catalog server ({@code iceberg-open-api} test fixtures) started and stopped for a test. The
 * Iceberg and Jetty classes are not dependencies of testkit: a module that calls this has them on its test class path.
 */
public final class RestCatalogServers {
    private RestCatalogServers() {
    }

    /**
     * Starts a server with {@code config} (its backend catalog's properties and {@link RESTCatalogServer#REST_PORT}).
     * The constructor that takes a configuration is package-private (the public entry point reads only
     * {@code CATALOG_*} environment variables, which a test JVM cannot set), hence reflection.
     */
    public static RESTCatalogServer start(Map<String, String> config) {
        try {
            Constructor<RESTCatalogServer> constructor = RESTCatalogServer.class.getDeclaredConstructor(Map.class);
            constructor.setAccessible(true);
            RESTCatalogServer server = constructor.newInstance(config);
            server.start(false);
            return server;
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("the REST catalog server did not start", e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException("the REST catalog server did not start", e);
        }
    }

    /**
     * Stops {@code server} and closes its backend catalog. The server's {@code stop()} stops Jetty but leaves that
     * catalog open; its S3FileIO then logs "Unclosed S3FileIO instance" at WARN whenever the collector finds it, in
     * whatever test runs then, so it is dug out (servlet, adapter, catalog: all private) and closed.
     */
    public static void stop(RESTCatalogServer server) {
        try {
            Closeable backend = backendCatalog(server);
            server.stop();
            backend.close();
        } catch (Exception e) {
            throw new IllegalStateException("the REST catalog server did not stop", e);
        }
    }

    private static Closeable backendCatalog(RESTCatalogServer server) throws Exception {
        Server jetty = (Server) field(RESTCatalogServer.class, "httpServer").get(server);
        ServletContextHandler context = jetty.getDescendant(ServletContextHandler.class);
        Object servlet = context.getServletHandler().getServlets()[0].getServlet();
        Object adapter = field(RESTCatalogServlet.class, "restCatalogAdapter").get(servlet);
        return (Closeable) field(RESTCatalogAdapter.class, "catalog").get(adapter);
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }
}
