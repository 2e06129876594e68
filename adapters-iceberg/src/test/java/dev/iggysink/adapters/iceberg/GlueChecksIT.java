package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.settings.Secret;
import dev.iggysink.testkit.aws.MotoServer;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What {@code validate} asks of a Glue catalog (moto's server, warehouse on MinIO): that Glue answers and takes the
 * store's credentials (GlueCatalog asks nothing when it opens, so the check lists Glue's databases), that each table
 * exists, and that its data location takes a probe file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GlueChecksIT {
    private CatalogFixture glue;

    @BeforeAll
    void start() {
        glue = CatalogFixture.glue(MinioWarehouse.create("glue-checks"));
    }

    @AfterAll
    void stop() {
        glue.close();
    }

    @Test
    void an_existing_table_passes_and_a_missing_one_is_named() {
        Catalog catalog = glue.newClient();
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("checks"));
        catalog.createTable(TableIdentifier.parse("checks.present"), new Schema(
                Types.NestedField.required(1, "iggy_offset", Types.LongType.get())));

        TableChecks.Report report = TableChecks.check(glue.settings(), List.of("checks.present", "checks.absent"),
                Optional.empty());

        assertThat(report.reached()).isTrue();
        assertThat(report.problems()).containsExactly("tables: table checks.absent does not exist in the catalog at "
                + glue.settings().uri() + " (create it, or set create_tables = true)");
    }

    @Test
    void a_glue_that_refuses_the_key_is_refused_credentials_naming_the_keys_not_the_secret() {
        try (MotoServer strict = MotoServer.start()) {
            strict.requireAuthentication();
            CatalogSettings base = glue.settings();
            CatalogSettings settings = new CatalogSettings("glue", "glue", strict.endpoint().toString(),
                    base.warehouse(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.empty(), base.storeUrl(), Optional.of("AKIDUNKNOWN"), Optional.of(Secret.of("n0t-s3cret")),
                    base.region(), true);

            TableChecks.Report report = TableChecks.check(settings, List.of("checks.any"), Optional.empty());

            assertThat(report.reached()).isFalse();
            assertThat(report.unanswered()).isFalse();
            assertThat(report.problems()).singleElement().asString()
                    .startsWith("uri: the glue catalog at " + strict.endpoint() + " refused our credentials"
                            + " (store_access_key_id, store_secret_access_key, signed with SigV4)")
                    .doesNotContain("n0t-s3cret");
        }
    }

    @Test
    void a_glue_endpoint_that_does_not_answer_is_unanswered_so_run_retries_it() {
        CatalogSettings base = glue.settings();
        CatalogSettings settings = new CatalogSettings("glue", "glue", "http://127.0.0.1:1", base.warehouse(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                base.storeUrl(), base.accessKeyId(), base.secretAccessKey(), base.region(), true);

        TableChecks.Report report = TableChecks.check(settings, List.of("checks.any"), Optional.empty());

        assertThat(report.reached()).isFalse();
        assertThat(report.unanswered()).isTrue();
        assertThat(report.problems()).singleElement().asString().startsWith("uri: the glue catalog at"
                + " http://127.0.0.1:1 cannot be used");
    }
}
