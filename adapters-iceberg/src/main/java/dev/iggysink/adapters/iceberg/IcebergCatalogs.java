package dev.iggysink.adapters.iceberg;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.aws.AwsProperties;
import org.apache.iceberg.catalog.Catalog;

/**
 * Opens the catalog {@link CatalogSettings} describe, its tables' files read and written through the sink's own
 * object store ({@link StoreFileIO}; where that does not serve, Iceberg's S3FileIO with its S3 clients on Apache
 * HttpClient 5, {@link Apache5S3ClientFactory}), or {@link LocalFileIO} when the warehouse is on the local
 * filesystem.
 */
public final class IcebergCatalogs {
    private IcebergCatalogs() {
    }

    public static Catalog open(CatalogSettings s) {
        return CatalogUtil.buildIcebergCatalog(s.name(), properties(s), null);
    }

    /**
     * Whether the warehouse is on the local filesystem: a {@code file:} URI or an absolute path; for a JDBC catalog
     * also a relative path (a REST catalog's warehouse is a name the server resolves).
     */
    static boolean localWarehouse(CatalogSettings s) {
        return LocalFileIO.isLocal(s.warehouse()) || s.type().equals("jdbc") && !s.warehouse().contains("://");
    }

    /** The catalog properties, secrets included: never log them. */
    static Map<String, String> properties(CatalogSettings s) {
        Map<String, String> p = new HashMap<>();
        p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, switch (s.type()) {
            case "rest" -> CatalogUtil.ICEBERG_CATALOG_TYPE_REST;
            case "glue" -> CatalogUtil.ICEBERG_CATALOG_TYPE_GLUE;
            default -> "jdbc";
        });
        if (s.type().equals("glue")) {
            glue(s, p);
        } else {
            p.put(CatalogProperties.URI, s.uri());
        }
        boolean local = localWarehouse(s);
        p.put(CatalogProperties.WAREHOUSE_LOCATION, local ? LocalFileIO.normalize(s.warehouse()) : s.warehouse());
        p.put(CatalogProperties.FILE_IO_IMPL, local ? LocalFileIO.class.getName()
                : StoreFileIO.class.getName());
        if (!local) p.putAll(Apache5S3ClientFactory.catalogProperties());
        s.token().ifPresent(t -> p.put("token", t.reveal()));
        s.credential().ifPresent(c -> p.put("credential", c.reveal()));
        s.oauth2ServerUri().ifPresent(u -> p.put("oauth2-server-uri", u));
        s.user().ifPresent(u -> p.put("jdbc.user", u));
        s.password().ifPresent(pw -> p.put("jdbc.password", pw.reveal()));
        if (s.type().equals("jdbc")) p.put("jdbc.schema-version", "V1");
        s.storeUrl().ifPresent(u -> p.put("s3.endpoint", u));
        if (s.pathStyle()) p.put("s3.path-style-access", "true");
        s.accessKeyId().ifPresent(k -> p.put("s3.access-key-id", k));
        s.secretAccessKey().ifPresent(k -> p.put("s3.secret-access-key", k.reveal()));
        s.region().ifPresent(r -> p.put("client.region", r));
        if (s.aws().sigv4()) sigv4(s, p);
        return p;
    }

    /**
     * Iceberg's GlueCatalog on our Glue client ({@link Apache5AwsClientFactory}); {@code uri}, when given, is a
     * Glue-compatible endpoint instead of AWS's own.
     */
    private static void glue(CatalogSettings s, Map<String, String> p) {
        p.put(AwsProperties.CLIENT_FACTORY, Apache5AwsClientFactory.class.getName());
        if (!s.uri().isEmpty()) p.put(AwsProperties.GLUE_CATALOG_ENDPOINT, s.uri());
        s.aws().region().ifPresent(r -> p.put(Apache5AwsClientFactory.GLUE_REGION, r));
    }

    /**
     * AWS SigV4 on every REST catalog request (Glue's and S3 Tables' Iceberg REST endpoints), signed with the store's
     * key pair when given, else the AWS credential chain, as S3FileIO does.
     */
    private static void sigv4(CatalogSettings s, Map<String, String> p) {
        p.put("rest.sigv4-enabled", "true");
        s.aws().signingName().ifPresent(n -> p.put(AwsProperties.REST_SIGNING_NAME, n));
        s.aws().region().or(s::region).ifPresent(r -> p.put(AwsProperties.REST_SIGNER_REGION, r));
        s.accessKeyId().ifPresent(k -> p.put(AwsProperties.REST_ACCESS_KEY_ID, k));
        s.secretAccessKey().ifPresent(k -> p.put(AwsProperties.REST_SECRET_ACCESS_KEY, k.reveal()));
    }
}
