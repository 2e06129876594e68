package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.iggysink.application.settings.Secret;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every S3 request of the table sink goes out on Apache HttpClient 5, never on the SDK's deprecated Apache 4 client:
 * the SDK names its HTTP client in each request's User-Agent ({@code md/http#Apache5}), which a stand-in store
 * records. Covered are the FileIO the catalog writes table metadata with and the one of the dead letters.
 */
class StoreHttpClientTest {
    @TempDir
    Path dir;

    private HttpServer store;
    private final List<String> requests = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startStore() throws IOException {
        store = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        store.createContext("/", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                body.readAllBytes();
            }
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestHeaders().getFirst("User-Agent"));
            boolean put = exchange.getRequestMethod().equals("PUT");
            if (put) exchange.getResponseHeaders().add("ETag", "\"0\"");
            // Nothing is stored: every HEAD or GET finds no object, every PUT succeeds.
            exchange.sendResponseHeaders(put ? 200 : 404, -1);
            exchange.close();
        });
        store.start();
    }

    @AfterEach
    void stopStore() {
        store.stop(0);
    }

    private CatalogSettings settings(Optional<String> dlqLocation) {
        return new CatalogSettings("jdbc", "http_" + System.nanoTime(), "jdbc:sqlite:file:" + dir.resolve("c.db"),
                "s3://lake/wh", Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.of("http://127.0.0.1:" + store.getAddress().getPort()), Optional.of("key"),
                Optional.of(Secret.of("secret")), Optional.of("us-east-1"), true, dlqLocation);
    }

    @Test
    void the_catalogs_warehouse_files_are_written_on_apache_httpclient_5() throws Exception {
        Catalog catalog = IcebergCatalogs.open(settings(Optional.empty()));
        try {
            ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
            catalog.createTable(TableIdentifier.of("db", "t"),
                    new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
        } finally {
            if (catalog instanceof AutoCloseable c) c.close();
        }
        assertThat(requests).anyMatch(r -> r.startsWith("PUT "));
        assertThat(requests).allMatch(r -> r.contains(" md/http#Apache5 "), "every request on Apache HttpClient 5");
    }

    @Test
    void dead_letters_below_the_warehouse_and_at_a_dlq_location_are_written_on_apache_httpclient_5()
            throws Exception {
        try (WarehouseFiles files = WarehouseFiles.of(settings(Optional.empty())).orElseThrow()) {
            files.write("_dlq/app/events/00000-00000000000000000000.json", "{}".getBytes(StandardCharsets.UTF_8));
        }
        try (WarehouseFiles files = WarehouseFiles.of(settings(Optional.of("s3://lake/letters")), "_dlq")
                .orElseThrow()) {
            files.write("_dlq/app/events/00000-00000000000000000001.json", "{}".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(requests).filteredOn(r -> r.startsWith("PUT ")).hasSize(2)
                .allMatch(r -> r.contains(" md/http#Apache5 "), "on Apache HttpClient 5");
    }
}
