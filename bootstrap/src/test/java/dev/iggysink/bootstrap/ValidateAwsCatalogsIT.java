package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.iceberg.CatalogSettings;
import dev.iggysink.adapters.iceberg.IcebergCatalogs;
import dev.iggysink.adapters.iceberg.LocalFileIO;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.testkit.aws.MotoServer;
import dev.iggysink.testkit.aws.SigV4Proxy;
import dev.iggysink.testkit.s3.MinioServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.apache.iceberg.types.Types;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} of table sinks whose catalogs are on AWS: a REST catalog that takes only SigV4-signed requests
 * (Iceberg's REST catalog servlet behind {@link SigV4Proxy}), and Glue (moto's server, warehouse on MinIO). The OK
 * line says what was checked; a wrong secret is refused credentials, exit 3, and never printed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ValidateAwsCatalogsIT {
    private static final String KEY_ID = "AKIDVALIDATE";
    private static final String SECRET = "validate-" + Long.toHexString(System.nanoTime()) + "-s3cret";
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "iggy_offset",
            Types.LongType.get()), Types.NestedField.optional(2, "user", Types.StringType.get()));

    private Path dir;
    private Server server;
    private JdbcCatalog backend;
    private SigV4Proxy proxy;
    private String warehouse;

    @BeforeAll
    void start(@TempDir Path tempDir) throws Exception {
        dir = tempDir;
        warehouse = dir.resolve("warehouse").toUri().toString();
        backend = new JdbcCatalog();
        backend.initialize("validate_backend", Map.of(
                CatalogProperties.URI, "jdbc:sqlite:file:" + dir.resolve("backend.db"),
                CatalogProperties.WAREHOUSE_LOCATION, warehouse,
                CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName(),
                "jdbc.schema-version", "V1"));
        backend.createNamespace(Namespace.of("lake"));
        backend.createTable(TableIdentifier.parse("lake.events"), SCHEMA, PartitionSpec.unpartitioned());
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(context);
        server.start();
        proxy = SigV4Proxy.start(URI.create("http://127.0.0.1:" + connector.getLocalPort()), KEY_ID, SECRET,
                "s3tables", "us-west-2");
    }

    @AfterAll
    void stop() throws Exception {
        proxy.close();
        server.stop();
        backend.close();
    }

    private Path file(String plugin) throws IOException {
        Path file = dir.resolve("sink-" + System.nanoTime() + ".toml");
        Files.writeString(file, TableSinkFiles.text(TableSinkFiles.stream("app", List.of("events"), "sink"),
                "\"lake.events\"", plugin, ""), StandardCharsets.UTF_8);
        return file;
    }

    private Path signedRest(String secret) throws IOException {
        return file("""
                catalog_type = "rest"
                uri = "%s"
                warehouse = "%s"
                catalog_sigv4 = true
                catalog_signing_name = "s3tables"
                catalog_region = "us-west-2"
                store_access_key_id = "%s"
                store_secret_access_key = "%s"
                """.formatted(proxy.uri(), warehouse, KEY_ID, secret));
    }

    @Test
    void a_rest_catalog_that_takes_the_signatures_validates_saying_how_it_was_signed() throws IOException {
        CliRun o = CliRun.execute("validate", "--config", signedRest(SECRET).toString());

        assertThat(o.code()).as(o.err()).isZero();
        assertThat(o.out()).contains("OK: Iceberg table sink lake", "rest catalog " + proxy.uri() + " (SigV4 for"
                + " s3tables in us-west-2, store_access_key_id; the catalog took the signatures)");
    }

    @Test
    void a_wrong_secret_is_refused_credentials_exit_3_and_is_never_printed() throws IOException {
        String wrong = "wrong-" + SECRET;
        int refusedBefore = proxy.refused();

        CliRun o = CliRun.execute("validate", "--config", signedRest(wrong).toString());

        assertThat(o.code()).as(o.err()).isEqualTo(ExitCodes.STARTUP);
        assertThat(o.err()).contains("plugin_config.uri: the rest catalog at " + proxy.uri() + " refused our"
                + " credentials (store_access_key_id, store_secret_access_key, signed with SigV4)")
                .doesNotContain(wrong).doesNotContain(SECRET);
        assertThat(o.out()).doesNotContain(wrong).doesNotContain(SECRET);
        assertThat(proxy.refused()).isGreaterThan(refusedBefore);
    }

    @Test
    void a_glue_catalog_validates_saying_glue_listed_its_databases() throws IOException {
        MinioServer minio = MinioServer.shared();
        String bucket = "validate-glue-" + Long.toHexString(System.nanoTime());
        minio.createBucket(bucket);
        try (MotoServer moto = MotoServer.start()) {
            CatalogSettings glue = new CatalogSettings("glue", "iggy", moto.endpoint().toString(),
                    "s3://" + bucket + "/warehouse", Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.empty(), Optional.empty(), Optional.of(minio.endpoint().toString()),
                    Optional.of(minio.accessKey()), Optional.of(Secret.of(minio.secretKey())),
                    Optional.of("us-east-1"), true);
            Catalog catalog = IcebergCatalogs.open(glue);
            ((SupportsNamespaces) catalog).createNamespace(Namespace.of("lake"));
            catalog.createTable(TableIdentifier.parse("lake.events"), SCHEMA);

            CliRun o = CliRun.execute("validate", "--config", file("""
                    catalog_type = "glue"
                    uri = "%s"
                    warehouse = "s3://%s/warehouse"
                    store_url = "%s"
                    store_access_key_id = "%s"
                    store_secret_access_key = "%s"
                    store_region = "us-east-1"
                    """.formatted(moto.endpoint(), bucket, minio.endpoint(), minio.accessKey(), minio.secretKey()))
                    .toString());

            assertThat(o.code()).as(o.err()).isZero();
            assertThat(o.out()).contains("OK: Iceberg table sink lake", "glue catalog " + moto.endpoint()
                    + " (region us-east-1, store_access_key_id; Glue listed its databases), tables [lake.events]");
        }
    }
}
