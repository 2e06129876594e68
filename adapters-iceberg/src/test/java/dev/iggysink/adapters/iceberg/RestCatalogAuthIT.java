package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The REST catalog's credentials against a server that checks them: Apache Iceberg's REST catalog servlet (test
 * fixtures) behind a filter that answers 401 to any request without the bearer token it expects, beside an OAuth2
 * token endpoint that issues that token only for the right client id and secret. The warehouse is a local directory.
 * Every test also looks for the secrets in what the sink logged (at DEBUG), in the errors and in the settings' text.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestCatalogAuthIT {
    private static final String TOKEN = "tok-" + Long.toHexString(System.nanoTime()) + "-s3cret";
    private static final String CLIENT_ID = "iggy-sink";
    private static final String CLIENT_SECRET = "client-" + Long.toHexString(System.nanoTime()) + "-s3cret";
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);

    private LocalRestCatalog catalog;
    private JdbcCatalog backend;
    private String uri;
    private String tokenUri;
    private String warehouse;
    private final AtomicInteger tokensIssued = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final Set<String> servedWith = ConcurrentHashMap.newKeySet();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Map<String, Level> levels = new ConcurrentHashMap<>();
    private int tableNumber;

    @BeforeAll
    void startServer(@TempDir Path dir) throws Exception {
        catalog = LocalRestCatalog.start(dir, "auth_backend", context -> addAuth(context));
        backend = catalog.backend;
        warehouse = catalog.warehouse;
        uri = catalog.uri() + "/";
        tokenUri = uri + "oauth/tokens";
    }

    /** The token endpoint, and the filter that lets only requests with the token through to the catalog. */
    private void addAuth(ServletContextHandler context) {
        context.addServlet(new ServletHolder(new TokenEndpoint(tokensIssued)), "/oauth/tokens");
        context.addFilter(new FilterHolder((request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            String authorization = http.getHeader("Authorization");
            if (http.getRequestURI().startsWith("/oauth/")) {
                chain.doFilter(request, response);
            } else if (("Bearer " + TOKEN).equals(authorization)) {
                servedWith.add(TOKEN);
                chain.doFilter(request, response);
            } else {
                refused.incrementAndGet();
                HttpServletResponse out = (HttpServletResponse) response;
                out.setStatus(401);
                out.setContentType("application/json");
                out.getWriter().write("{\"error\":{\"message\":\"bad or missing bearer token\","
                        + "\"type\":\"NotAuthorizedException\",\"code\":401}}");
            }
        }), "/*", EnumSet.of(DispatcherType.REQUEST));
    }

    /** Issues {@link #TOKEN} for the client credentials grant of the right client; 401 otherwise. */
    private static final class TokenEndpoint extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final AtomicInteger issued;

        TokenEndpoint(AtomicInteger issued) {
            this.issued = issued;
        }

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String id = request.getParameter("client_id");
            String secret = request.getParameter("client_secret");
            String basic = request.getHeader("Authorization");
            if (basic != null && basic.startsWith("Basic ")) {
                String[] pair = new String(Base64.getDecoder().decode(basic.substring(6)), StandardCharsets.UTF_8)
                        .split(":", 2);
                id = pair[0];
                secret = pair.length > 1 ? pair[1] : null;
            }
            response.setContentType("application/json");
            if (!"client_credentials".equals(request.getParameter("grant_type")) || !CLIENT_ID.equals(id)
                    || !CLIENT_SECRET.equals(secret)) {
                response.setStatus(401);
                response.getWriter().write("{\"error\":\"invalid_client\",\"error_description\":\"unknown client\"}");
                return;
            }
            issued.incrementAndGet();
            response.getWriter().write("{\"access_token\":\"" + TOKEN + "\",\"token_type\":\"bearer\","
                    + "\"expires_in\":3600,\"issued_token_type\":\"urn:ietf:params:oauth:token-type:access_token\"}");
        }
    }

    @AfterAll
    void stopServer() throws Exception {
        catalog.close();
    }

    @BeforeEach
    void captureLogs() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        for (String name : List.of("org.apache.iceberg", "dev.iggysink")) {
            Logger logger = context.getLogger(name);
            levels.put(name, logger.getLevel() == null ? Level.INFO : logger.getLevel());
            logger.setLevel(Level.DEBUG);
        }
        logs.list.clear();
        logs.start();
        context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(logs);
        tokensIssued.set(0);
        refused.set(0);
        servedWith.clear();
    }

    @AfterEach
    void stopCapture() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).detachAppender(logs);
        levels.forEach((name, level) -> context.getLogger(name).setLevel(level));
    }

    private CatalogSettings rest(Optional<String> token, Optional<String> credential) {
        return new CatalogSettings("rest", "rest", uri, warehouse, token.map(Secret::of), credential.map(Secret::of),
                credential.map(c -> tokenUri), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), false);
    }

    private record Decoded(SinkRecord source) implements DecodedRecord {
        @Override
        public Optional<String> fieldText(String dottedPath) {
            return Optional.empty();
        }
    }

    /** Creates a table through the sink, commits two rows and reads the offset back: every step needs the catalog. */
    private void commitTwoRows(CatalogSettings settings) throws Exception {
        String table = "auth.t" + (++tableNumber);
        TableTemplate template = new TableTemplate(List.of("user string"), List.of());
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink",
                Optional.of(template))) {
            store.open(table);
            TableStore.RowFile file = store.newFile(table);
            for (long o = 0; o < 2; o++) {
                file.append(new Decoded(new SinkRecord(P0, o, 1_000_000L, 1_000_000L, new MessageId(0, o + 1),
                        List.of(), "{\"user\":\"ann\"}".getBytes(StandardCharsets.UTF_8))));
            }
            TableStore.CommitResult result = store.commit(table,
                    List.of(new TableStore.Append(P0, -1, 1, List.of(file.stage()))));
            assertThat(result.committed()).containsExactly(P0);
            assertThat(store.durableOffsets(table, List.of(P0))).isEqualTo(Map.of(P0, 1L));
        }
        assertThat(backend.loadTable(TableIdentifier.parse(table)).currentSnapshot().summary())
                .containsEntry("iggy.offsets.sink.app.events", "{\"0\":1}");
    }

    private void assertNoSecretIn(String... texts) {
        for (String text : texts) {
            assertThat(text).doesNotContain(TOKEN).doesNotContain(CLIENT_SECRET).doesNotContain("s3cret");
        }
        List<ILoggingEvent> events;
        synchronized (logs) { // AppenderBase.doAppend holds this lock; server threads still log
            events = List.copyOf(logs.list);
        }
        for (ILoggingEvent event : events) {
            assertThat(event.getFormattedMessage()).doesNotContain(TOKEN, CLIENT_SECRET);
            if (event.getThrowableProxy() != null) {
                assertThat(event.getThrowableProxy().getMessage()).doesNotContain(TOKEN, CLIENT_SECRET);
            }
        }
    }

    private static String stackTrace(Throwable e) {
        StringWriter text = new StringWriter();
        e.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    @Test
    void with_the_right_bearer_token_the_sink_creates_a_table_and_commits() throws Exception {
        CatalogSettings settings = rest(Optional.of(TOKEN), Optional.empty());
        commitTwoRows(settings);
        assertThat(TableChecks.check(settings, List.of("auth.t" + tableNumber), Optional.empty()).problems())
                .isEmpty();
        assertThat(servedWith).containsExactly(TOKEN);
        assertThat(refused.get()).isZero();
        synchronized (logs) {
            assertThat(logs.list).as("logs captured at DEBUG").isNotEmpty();
        }
        assertNoSecretIn(settings.toString());
    }

    @Test
    void a_wrong_bearer_token_is_refused_with_an_error_naming_the_catalog_and_not_the_token() {
        String wrong = "wrong-" + TOKEN;
        CatalogSettings settings = rest(Optional.of(wrong), Optional.empty());

        TableChecks.Report report = TableChecks.check(settings, List.of("auth.any"), Optional.empty());
        Throwable atStart = catchThrowable(() -> IcebergCatalogs.open(settings));

        assertThat(report.reached()).isFalse();
        assertThat(report.problems()).singleElement().asString()
                .startsWith("uri: the rest catalog at " + uri + " refused our credentials (catalog_token): ");
        assertThat(atStart).as("what the sink's start reports").isNotNull();
        assertThat(refused.get()).isPositive();
        assertNoSecretIn(String.join("\n", report.problems()), stackTrace(atStart), settings.toString());
        assertThat(String.join("\n", report.problems()) + stackTrace(atStart)).doesNotContain(wrong);
    }

    @Test
    void client_credentials_fetch_a_token_from_the_oauth2_server_and_the_sink_commits_with_it() throws Exception {
        CatalogSettings settings = rest(Optional.empty(), Optional.of(CLIENT_ID + ":" + CLIENT_SECRET));
        commitTwoRows(settings);
        assertThat(tokensIssued.get()).as("a token was fetched").isPositive();
        assertThat(servedWith).as("and every catalog request carried it").containsExactly(TOKEN);
        assertThat(refused.get()).isZero();
        assertNoSecretIn(settings.toString());
    }

    @Test
    void a_wrong_client_secret_gets_no_token_and_the_error_names_the_catalog_and_not_the_secret() {
        String wrong = "wrong-" + CLIENT_SECRET;
        CatalogSettings settings = rest(Optional.empty(), Optional.of(CLIENT_ID + ":" + wrong));

        TableChecks.Report report = TableChecks.check(settings, List.of("auth.any"), Optional.empty());
        Throwable atStart = catchThrowable(() -> IcebergCatalogs.open(settings));

        assertThat(report.reached()).isFalse();
        assertThat(report.problems()).singleElement().asString().startsWith("uri: the rest catalog at " + uri
                + " refused our credentials (catalog_credential, catalog_oauth2_server_uri): ");
        assertThat(atStart).isNotNull();
        assertThat(tokensIssued.get()).isZero();
        assertThat(servedWith).isEmpty();
        assertNoSecretIn(String.join("\n", report.problems()), stackTrace(atStart), settings.toString());
        assertThat(String.join("\n", report.problems()) + stackTrace(atStart)).doesNotContain(wrong);
    }
}
