package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.testkit.aws.SigV4Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A REST catalog on AWS, as Glue's and S3 Tables' Iceberg REST endpoints are: Apache Iceberg's REST catalog servlet
 * (test fixtures) reachable only through {@link SigV4Proxy}, which recomputes each request's SigV4 signature with the
 * AWS SDK's signer for its key pair, service and region, and refuses whatever does not match. The warehouse is a
 * local directory.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestSigV4IT {
    private static final String KEY_ID = "AKIDSIGV4TEST";
    private static final String SECRET = "sigv4-" + Long.toHexString(System.nanoTime()) + "-s3cret";
    private static final String SERVICE = "glue";
    private static final String REGION = "eu-west-1";
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);

    private LocalRestCatalog catalog;
    private SigV4Proxy proxy;
    private String warehouse;
    private int tableNumber;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        catalog = LocalRestCatalog.start(dir, "sigv4_backend", context -> { });
        warehouse = catalog.warehouse;
        proxy = SigV4Proxy.start(URI.create(catalog.uri()), KEY_ID, SECRET, SERVICE, REGION);
    }

    @AfterAll
    void stop() throws Exception {
        proxy.close();
        catalog.close();
    }

    private CatalogSettings settings(String secret, boolean sigv4, String signingName) {
        return new CatalogSettings("rest", "rest", proxy.uri().toString(), warehouse, Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(KEY_ID), Optional.of(Secret.of(secret)), Optional.of("us-east-1"), false, Optional.empty(),
                new CatalogSettings.Aws(sigv4, Optional.of(signingName), Optional.of(REGION)));
    }

    private record Decoded(SinkRecord source) implements DecodedRecord {
        @Override
        public Optional<String> fieldText(String dottedPath) {
            return Optional.empty();
        }
    }

    @Test
    void signed_requests_create_a_table_commit_rows_and_read_them_back_through_the_proxy() throws Exception {
        CatalogSettings settings = settings(SECRET, true, SERVICE);
        String table = "aws.t" + (++tableNumber);
        int refusedBefore = proxy.refused();
        int verifiedBefore = proxy.verified();
        TableTemplate template = new TableTemplate(List.of("user string"), List.of());
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink",
                Optional.of(template))) {
            store.open(table);
            TableStore.RowFile file = store.newFile(table);
            for (long o = 0; o < 3; o++) {
                file.append(new Decoded(new SinkRecord(P0, o, 1_000_000L, 1_000_000L, new MessageId(0, o + 1),
                        List.of(), ("{\"user\":\"u" + o + "\"}").getBytes(StandardCharsets.UTF_8))));
            }
            TableStore.CommitResult result = store.commit(table,
                    List.of(new TableStore.Append(P0, -1, 2, List.of(file.stage()))));
            assertThat(result.committed()).containsExactly(P0);
            assertThat(store.durableOffsets(table, List.of(P0))).isEqualTo(Map.of(P0, 2L));
        }
        Catalog reader = IcebergCatalogs.open(settings);
        List<String> users = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(reader.loadTable(TableIdentifier.parse(table)))
                .build()) {
            rows.forEach(r -> users.add((String) r.getField("user")));
        }
        assertThat(users).containsExactlyInAnyOrder("u0", "u1", "u2");
        assertThat(TableChecks.check(settings, List.of(table), Optional.empty()).problems()).isEmpty();
        assertThat(proxy.refused()).isEqualTo(refusedBefore);
        // config, namespace, create, commit, loads: every call went through the signature check
        assertThat(proxy.verified() - verifiedBefore).isGreaterThan(5);
    }

    @Test
    void unsigned_requests_are_refused_as_refused_credentials() {
        int refusedBefore = proxy.refused();
        TableChecks.Report report = TableChecks.check(settings(SECRET, false, SERVICE), List.of("aws.any"),
                Optional.empty());
        assertThat(report.reached()).isFalse();
        assertThat(report.unanswered()).isFalse();
        assertThat(report.problems()).singleElement().asString().startsWith("uri: the rest catalog at "
                + proxy.uri()).contains("refused our credentials").contains("not signed");
        assertThat(proxy.refused()).isGreaterThan(refusedBefore);
    }

    @Test
    void a_wrong_secret_is_refused_naming_the_keys_and_never_the_secret() {
        String wrong = "wrong-" + SECRET;
        int refusedBefore = proxy.refused();
        TableChecks.Report report = TableChecks.check(settings(wrong, true, SERVICE), List.of("aws.any"),
                Optional.empty());
        assertThat(report.reached()).isFalse();
        assertThat(report.unanswered()).isFalse();
        assertThat(report.problems()).singleElement().asString()
                .contains("refused our credentials (store_access_key_id, store_secret_access_key, signed with"
                        + " SigV4)")
                .contains("the signature does not match").doesNotContain(wrong).doesNotContain(SECRET);
        assertThat(proxy.refused()).isGreaterThan(refusedBefore);
    }

    @Test
    void a_signature_for_another_service_is_refused() {
        TableChecks.Report report = TableChecks.check(settings(SECRET, true, "s3tables"), List.of("aws.any"),
                Optional.empty());
        assertThat(report.reached()).isFalse();
        assertThat(report.problems()).singleElement().asString().contains("the signature does not match");
    }
}
