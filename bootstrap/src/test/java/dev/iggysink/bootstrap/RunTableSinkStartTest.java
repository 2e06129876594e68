package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * {@code run} of a table sink file asks its catalog what {@code validate} asks before consuming anything, with the
 * object sink's exit codes: a table it cannot write exits 2 naming the table; a catalog that refuses our credentials
 * exits 3 at once in one line naming its {@code uri} and no secret; one that does not answer is waited for (health
 * degraded, naming it) unless {@code --fail-fast}. No Iggy is needed: nothing gets that far.
 */
class RunTableSinkStartTest {
    private static final String TOKEN = "tok-5ecret-77";
    @TempDir
    Path dir;
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private HttpServer rest;

    @BeforeEach
    void capture() {
        logs.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
    }

    @AfterEach
    void release() {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
        if (rest != null) rest.stop(0);
    }

    private Path file(String catalog, String admin) throws IOException {
        Path file = dir.resolve("lake-" + System.nanoTime() + ".toml");
        Files.writeString(file, TableSinkFiles.text(TableSinkFiles.stream("app", List.of("events"), "sink"),
                "\"lake.missing\"", catalog, "[admin]\naddress = \"" + admin + "\"\n"), StandardCharsets.UTF_8);
        return file;
    }

    private List<String> lines(Level level) {
        return logs.list.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    private String everything() {
        StringBuilder all = new StringBuilder();
        logs.list.forEach(e -> all.append(e.getFormattedMessage()).append('\n'));
        return all.toString();
    }

    /** A REST catalog that refuses every request as unauthorised, echoing the token it was sent. */
    private void refusingCatalog(int port) throws IOException {
        rest = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        rest.createContext("/", exchange -> {
            String auth = String.valueOf(exchange.getRequestHeaders().getFirst("Authorization"));
            byte[] body = ("{\"error\":{\"message\":\"not authorized: " + auth + "\",\"type\":"
                    + "\"NotAuthorizedException\",\"code\":401}}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(401, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        rest.start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String restCatalog(int port) {
        return "catalog_type = \"rest\"\nuri = \"http://127.0.0.1:" + port + "\"\nwarehouse = \"lake\"\n"
                + "catalog_token = \"" + TOKEN + "\"";
    }

    @Test
    void a_table_that_does_not_exist_exits_2_naming_it_before_anything_is_consumed() throws IOException {
        String db = dir.resolve("c.db").toString();
        TableSinkFiles.openSqlite(db, dir.resolve("warehouse")); // the namespace lake, without the table
        Path file = file(TableSinkFiles.sqliteCatalog(db, dir.resolve("warehouse")), "off");

        CliRun o = CliRun.execute("run", "--config", file.toString());

        assertThat(o.code()).as(everything()).isEqualTo(2);
        assertThat(lines(Level.ERROR)).as(everything()).contains("sink lake: plugin_config.tables: table"
                + " lake.missing does not exist in the catalog at jdbc:sqlite:file:" + db
                + " (create it, or set create_tables = true)");
    }

    @Test
    @Timeout(60)
    void a_catalog_that_refuses_our_token_exits_3_at_once_in_one_line_without_the_token() throws IOException {
        int port = freePort();
        refusingCatalog(port);

        CliRun o = CliRun.execute("run", "--config", file(restCatalog(port), "off").toString());

        assertThat(o.code()).as(everything()).isEqualTo(3);
        assertThat(lines(Level.ERROR)).as(everything()).singleElement().asString()
                .startsWith("sink lake: plugin_config.uri: the rest catalog at http://127.0.0.1:" + port
                        + " refused our credentials (catalog_token)");
        assertThat(lines(Level.WARN)).as("no retry").noneMatch(l -> l.contains("retrying"));
        assertThat(everything() + o.err()).doesNotContain(TOKEN);
    }

    @Test
    @Timeout(60)
    void a_warehouse_store_that_refuses_our_keys_exits_2_in_one_line_without_the_secret() throws IOException {
        int port = freePort();
        rest = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        rest.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InvalidAccessKeyId</Code>"
                    + "<Message>The access key you provided does not exist</Message></Error>")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/xml");
            exchange.sendResponseHeaders(403, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        rest.start();
        String secret = "store-5ecret-key-99";
        String db = dir.resolve("c.db").toString();

        CliRun o = CliRun.execute("run", "--config", file(TableSinkFiles.sqliteCatalog(db, "s3://lake/warehouse")
                + "store_url = \"http://127.0.0.1:" + port + "\"\n"
                + "store_access_key_id = \"nobody\"\nstore_secret_access_key = \"" + secret + "\"\n"
                + "store_region = \"us-east-1\"", "off").toString());

        assertThat(o.code()).as(everything()).isEqualTo(2);
        assertThat(lines(Level.ERROR)).as(everything()).singleElement().asString()
                .startsWith("sink lake: plugin_config.warehouse: cannot write under s3://lake/warehouse (warehouse,"
                        + " store_url, store_access_key_id, store_secret_access_key, store_region): ");
        assertThat(everything() + o.err()).doesNotContain(secret);
    }

    /** A store down at start is waited for as the object sink waits for its bucket: not a bad config (exit 2). */
    @Test
    @Timeout(120)
    void a_warehouse_store_that_does_not_answer_is_a_service_down_not_a_bad_configuration() throws IOException {
        String db = dir.resolve("c.db").toString();

        CliRun o = CliRun.execute("run", "--fail-fast", "--config", file(TableSinkFiles.sqliteCatalog(db,
                "s3://lake/warehouse") + "store_url = \"http://127.0.0.1:" + freePort() + "\"\n"
                + "store_access_key_id = \"k\"\nstore_secret_access_key = \"s\"\nstore_region = \"us-east-1\"",
                "off").toString());

        assertThat(o.code()).as(everything()).isEqualTo(3);
        assertThat(lines(Level.ERROR)).as(everything()).singleElement().asString()
                .startsWith("sink lake: the warehouse's store (of the jdbc catalog at jdbc:sqlite:")
                .contains("plugin_config.warehouse").doesNotContain("plugin_config.warehouse: warehouse:")
                .endsWith("(--fail-fast: not retrying)");
    }

    @Test
    @Timeout(60)
    void a_catalog_that_cannot_be_opened_exits_3_at_once_without_retrying() throws IOException {
        String nowhere = dir.resolve("no-such-dir").resolve("c.db").toString();

        CliRun o = CliRun.execute("run", "--config", file(TableSinkFiles.sqliteCatalog(nowhere,
                dir.resolve("warehouse")), "off").toString());

        assertThat(o.code()).as(everything()).isEqualTo(3);
        assertThat(lines(Level.ERROR)).as(everything()).singleElement().asString()
                .startsWith("sink lake: plugin_config.uri: the jdbc catalog at jdbc:sqlite:file:" + nowhere
                        + " cannot be used: ");
        assertThat(lines(Level.WARN)).as("no retry").noneMatch(l -> l.contains("retrying"));
    }

    @Test
    @Timeout(60)
    void a_catalog_that_does_not_answer_exits_3_with_fail_fast() throws IOException {
        int port = freePort();

        CliRun o = CliRun.execute("run", "--fail-fast", "--config", file(restCatalog(port), "off").toString());

        assertThat(o.code()).as(everything()).isEqualTo(3);
        assertThat(lines(Level.ERROR)).as(everything()).singleElement().asString()
                .startsWith("sink lake: the rest catalog at http://127.0.0.1:" + port + " cannot be used: ")
                .endsWith("(--fail-fast: not retrying)");
    }

    @Test
    @Timeout(120)
    void a_catalog_that_does_not_answer_yet_is_waited_for_with_health_degraded() throws Exception {
        int catalogPort = freePort();
        int adminPort = freePort();
        Path file = file(restCatalog(catalogPort), "127.0.0.1:" + adminPort);
        CompletableFuture<CliRun> running = CompletableFuture.supplyAsync(() -> CliRun.execute("run", "--config",
                file.toString()));
        HttpClient http = HttpClient.newHttpClient();
        String health = "";
        while (!health.contains("waiting for the rest catalog at http://127.0.0.1:" + catalogPort)) {
            assertThat(running).as(everything()).isNotDone();
            Thread.sleep(100);
            try {
                health = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/health"))
                        .build(), HttpResponse.BodyHandlers.ofString()).body();
            } catch (IOException e) {
                // the admin server is not listening yet
            }
        }
        assertThat(health).contains("\"degraded\"");
        assertThat(lines(Level.WARN)).as(everything()).anyMatch(l -> l.startsWith("sink lake: the rest catalog at"
                + " http://127.0.0.1:" + catalogPort + " cannot be used yet: ") && l.contains("retrying in"));

        // Now it answers, with a refusal: that ends the start with 3, as at once.
        refusingCatalog(catalogPort);
        CliRun o = running.get(90, TimeUnit.SECONDS);
        assertThat(o.code()).as(everything()).isEqualTo(3);
        assertThat(lines(Level.ERROR)).as(everything()).anyMatch(l -> l.contains("refused our credentials"));
    }
}
