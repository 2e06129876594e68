package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.settings.Secret;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What {@code validate} finds in each real catalog (REST server, JDBC on SQLite, JDBC on PostgreSQL, warehouse on
 * MinIO): a table the sink can fill passes and is left as it was; a missing table, columns no record can fill, a
 * partition spec on no column and a store that refuses our keys are all reported in one go.
 */
class TableChecksIT extends AllCatalogs {
    private static final Schema GOOD = new Schema(
            Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
            Types.NestedField.required(2, "iggy_timestamp", Types.TimestampType.withZone()),
            Types.NestedField.required(3, "user", Types.StringType.get()),
            Types.NestedField.optional(4, "attrs", Types.MapType.ofOptional(5, 6, Types.IntegerType.get(),
                    Types.StringType.get())));
    private static final Schema BAD = new Schema(
            Types.NestedField.required(1, "iggy_offset", Types.BooleanType.get()),
            Types.NestedField.required(2, "scores", Types.MapType.ofRequired(3, 4, Types.IntegerType.get(),
                    Types.StringType.get())),
            Types.NestedField.optional(5, "user", Types.StringType.get()));

    @Override
    String purpose() {
        return "checks";
    }

    /** {@code good} with its catalog {@code uri}, catalog password, store URL and store secret replaced. */
    private static CatalogSettings with(CatalogSettings good, String uri, Optional<Secret> password,
                                        Optional<String> storeUrl, Optional<Secret> storeSecret) {
        return new CatalogSettings(good.type(), good.name(), uri, good.warehouse(), good.token(), good.credential(),
                good.oauth2ServerUri(), good.user(), password, storeUrl, good.accessKeyId(), storeSecret,
                good.region(), good.pathStyle());
    }

    private static String newTable(Catalog catalog, String table, Schema schema) {
        Namespace ns = Namespace.of("checks_" + Long.toHexString(System.nanoTime()));
        ((SupportsNamespaces) catalog).createNamespace(ns);
        TableIdentifier id = TableIdentifier.of(ns, table);
        Table t = catalog.createTable(id, schema, PartitionSpec.unpartitioned());
        t.newAppend().commit();
        return id.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_table_the_sink_can_fill_passes_and_nothing_is_written_to_it(CatalogFixture catalogs) {
        Catalog catalog = catalogs.newClient();
        String name = newTable(catalog, "good", GOOD);
        Table before = catalog.loadTable(TableIdentifier.parse(name));
        String metadata = ((HasTableOperations) before).operations().current().metadataFileLocation();

        TableChecks.Report report = TableChecks.check(catalogs.settings(), List.of(name), Optional.empty());

        assertThat(report.problems()).isEmpty();
        assertThat(report.ok()).isTrue();
        assertThat(report.warnings()).singleElement().asString()
                .startsWith("tables: table " + name + ": column attrs").contains("keys of type int");
        Table after = catalogs.newClient().loadTable(TableIdentifier.parse(name));
        assertThat(((HasTableOperations) after).operations().current().metadataFileLocation())
                .as("no new metadata").isEqualTo(metadata);
        assertThat(after.snapshots()).hasSize(1);
        assertThat(catalogs.warehouse().keysUnder(catalogs.warehouse().location("")))
                .as("the probe files are gone").noneMatch(key -> key.contains("iggy-sink-probe"))
                .anyMatch(key -> key.endsWith(".metadata.json"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void every_problem_of_every_table_is_listed_at_once(CatalogFixture catalogs) {
        Catalog catalog = catalogs.newClient();
        String bad = newTable(catalog, "bad", BAD);
        String missing = bad.substring(0, bad.indexOf('.')) + ".missing";

        TableChecks.Report report = TableChecks.check(catalogs.settings(), List.of(bad, missing), Optional.empty());

        assertThat(report.reached()).isTrue();
        assertThat(report.problems()).satisfiesExactlyInAnyOrder(
                p -> assertThat(p).startsWith("tables: table " + bad + ": column 'iggy_offset' holds Iggy metadata")
                        .contains("boolean", "every record would be refused"),
                p -> assertThat(p).startsWith("tables: table " + bad + ": column scores")
                        .contains("keys of type int", "required"),
                p -> assertThat(p).startsWith("tables: table " + missing + " does not exist in the catalog at "
                        + catalogs.settings().uri()).contains("create_tables = true"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_table_to_create_with_a_partition_on_no_column_is_refused(CatalogFixture catalogs) {
        Catalog catalog = catalogs.newClient();
        String existing = newTable(catalog, "existing", GOOD);
        String missing = existing.substring(0, existing.indexOf('.')) + ".created_later";
        TableTemplate template = new TableTemplate(List.of("user string"), List.of("identity(country)"));

        TableChecks.Report report = TableChecks.check(catalogs.settings(), List.of(missing), Optional.of(template));

        assertThat(report.problems()).singleElement().asString()
                .startsWith("tables: table " + missing + " cannot be created: partition_spec[0]: no column country");
        assertThat(catalog.tableExists(TableIdentifier.parse(missing))).as("not created by the check").isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_store_that_refuses_our_keys_is_named_without_the_secret(CatalogFixture catalogs) {
        Catalog catalog = catalogs.newClient();
        String existing = newTable(catalog, "refused", GOOD);
        CatalogSettings good = catalogs.settings();
        String wrongSecret = "wrong-secret-" + System.nanoTime();
        CatalogSettings wrong = with(good, good.uri(), good.password(), good.storeUrl(),
                Optional.of(Secret.of(wrongSecret)));

        TableChecks.Report report = TableChecks.check(wrong, List.of(existing), Optional.empty());

        assertThat(report.reached()).isTrue();
        if (good.type().equals("jdbc")) {
            // A JDBC catalog's table metadata is read through the same store: the store is asked first and once.
            assertThat(report.problems()).singleElement().asString()
                    .startsWith("warehouse: cannot write under " + good.warehouse())
                    .contains("store_access_key_id", "the tables were not checked");
        } else {
            // The REST server reads the metadata with its own keys: the table loads, our write is refused.
            assertThat(report.problems()).singleElement().asString()
                    .startsWith("tables: table " + existing + ": cannot write its data files under ")
                    .contains("store_access_key_id");
        }
        assertThat(String.join("\n", report.problems())).doesNotContain(wrongSecret);
        assertThat(report.unanswered()).as("a store that refuses is not waited for").isFalse();
    }

    /**
     * A store that does not answer at start (MinIO starting after the sink, a network blip) is waited for, as the
     * object sink waits for its bucket: a problem that is only that must not end `run` as a bad configuration.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_store_that_does_not_answer_is_waited_for_not_taken_for_a_bad_configuration(CatalogFixture catalogs) {
        CatalogSettings good = catalogs.settings();
        String existing = newTable(catalogs.newClient(), "unanswered", GOOD);
        TableChecks.Report report = TableChecks.check(with(good, good.uri(), good.password(),
                Optional.of("http://127.0.0.1:1"), good.secretAccessKey()), List.of(existing), Optional.empty());

        assertThat(report.reached()).isTrue();
        assertThat(report.problems()).singleElement().asString().contains("store_url");
        assertThat(report.unanswered()).as("run waits for it").isTrue();
    }

    @Test
    void a_database_that_refuses_the_password_is_named_without_it() {
        CatalogSettings good = catalogs().filter(c -> c.kind().equals("postgres")).findFirst().orElseThrow()
                .settings();
        String wrong = "wrong-password-" + System.nanoTime();
        CatalogSettings refused = with(good, good.uri(), Optional.of(Secret.of(wrong)), good.storeUrl(),
                good.secretAccessKey());

        TableChecks.Report report = TableChecks.check(refused, List.of("ns.t"), Optional.empty());

        assertThat(report.reached()).isFalse();
        assertThat(report.unanswered()).as("a refusal is not retried by run").isFalse();
        assertThat(report.problems()).singleElement().asString().startsWith("uri: the jdbc catalog at " + good.uri()
                + " refused our credentials (catalog_user, catalog_password): ").doesNotContain(wrong);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_catalog_that_does_not_answer_is_named_by_its_uri(CatalogFixture catalogs) {
        CatalogSettings good = catalogs.settings();
        String uri = good.type().equals("rest") ? "http://127.0.0.1:1/" : good.uri().startsWith("jdbc:sqlite:")
                ? "jdbc:sqlite:file:/nonexistent-dir-" + System.nanoTime() + "/catalog.db"
                : "jdbc:postgresql://127.0.0.1:1/none";
        CatalogSettings unreachable = with(good, uri, good.password(), good.storeUrl(), good.secretAccessKey());

        TableChecks.Report report = TableChecks.check(unreachable, List.of("ns.t"), Optional.empty());

        assertThat(report.reached()).isFalse();
        // run retries a closed port (the catalog may be starting), not a SQLite file in no directory
        assertThat(report.unanswered()).isEqualTo(!uri.startsWith("jdbc:sqlite:"));
        assertThat(report.problems()).singleElement().asString()
                .startsWith("uri: the " + good.type() + " catalog at " + uri + " cannot be used: ");
    }

    /**
     * A REST catalog that answers its config but fails loading a table with a 5xx (its own store down, say) did not
     * answer: `run` waits for it and `validate` exits 3, as for a catalog that is down, not 2 as for a bad table.
     */
    @Test
    void a_rest_catalog_that_fails_loading_a_table_with_a_5xx_did_not_answer(@TempDir Path dir) throws Exception {
        Filter failingLoads = (request, response, chain) -> {
            String path = ((HttpServletRequest) request).getRequestURI();
            if (path.contains("/tables/")) {
                // Iceberg's client retries a 5xx five times, about 30 s in all, a 503 after its Retry-After: 5 s here
                ((HttpServletResponse) response).setHeader("Retry-After", "1");
                ((HttpServletResponse) response).sendError(503, "the store did not answer");
            } else {
                chain.doFilter(request, response);
            }
        };
        try (LocalRestCatalog down = LocalRestCatalog.start(dir, "down_backend", context -> context.addFilter(
                new FilterHolder(failingLoads), "/*", EnumSet.of(DispatcherType.REQUEST)))) {
            String name = newTable(down.backend, "stored", GOOD);
            CatalogSettings rest = new CatalogSettings("rest", "down", down.uri(),
                    down.warehouse, Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.empty(), false);

            TableChecks.Report report = TableChecks.check(rest, List.of(name), Optional.empty());

            assertThat(report.reached()).isTrue();
            assertThat(report.problems()).singleElement().asString().contains("table " + name)
                    .contains("cannot be loaded");
            assertThat(report.unanswered()).as("run waits for it, validate exits 3").isTrue();
        }
    }
}
