package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.Secret;
import java.util.Objects;
import java.util.Optional;

/**
 * How the table sink reaches its Iceberg catalog and the warehouse's object store, as the Rust Iggy Iceberg sink's
 * {@code [plugin_config]} names them ({@code catalog_type}, {@code uri}, {@code warehouse}, {@code store_*}), plus
 * what it lacks: catalog credentials (a bearer token, or an OAuth2 client credential with its server) and the JDBC
 * catalog's user and password. Secrets print as {@code ****}.
 *
 * @param type      {@code rest}, {@code jdbc} or {@code glue}
 * @param name      the catalog's name ({@code catalog_name}): a JDBC catalog keeps its tables under it, so other
 *                  engines reading them name their catalog the same
 * @param pathStyle path-style requests to {@code storeUrl} (MinIO and most S3-compatible stores need them)
 * @param dlqLocation where dead letters go instead of {@code <warehouse>/<dlq_prefix>} ({@code s3://}, {@code s3a://},
 *                  {@code file:} or an absolute path): a REST catalog's warehouse named by name has no place for them
 * @param aws       Glue's region, and SigV4 signing of a REST catalog's requests ({@code catalog_sigv4},
 *                  {@code catalog_signing_name}, {@code catalog_region})
 */
public record CatalogConfig(String type, String name, String uri, String warehouse, Optional<Secret> token,
                            Optional<Secret> credential, Optional<String> oauth2ServerUri, Optional<String> user,
                            Optional<Secret> password, Optional<String> storeUrl, Optional<String> storeAccessKeyId,
                            Optional<Secret> storeSecretAccessKey, Optional<String> storeRegion, boolean pathStyle,
                            Optional<String> dlqLocation, Aws aws) {
    public CatalogConfig {
        Objects.requireNonNull(dlqLocation, "dlqLocation");
        Objects.requireNonNull(aws, "aws");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(warehouse, "warehouse");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(credential, "credential");
        Objects.requireNonNull(oauth2ServerUri, "oauth2ServerUri");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(storeUrl, "storeUrl");
        Objects.requireNonNull(storeAccessKeyId, "storeAccessKeyId");
        Objects.requireNonNull(storeSecretAccessKey, "storeSecretAccessKey");
        Objects.requireNonNull(storeRegion, "storeRegion");
    }

    /** A catalog off AWS. */
    public CatalogConfig(String type, String name, String uri, String warehouse, Optional<Secret> token,
                         Optional<Secret> credential, Optional<String> oauth2ServerUri, Optional<String> user,
                         Optional<Secret> password, Optional<String> storeUrl, Optional<String> storeAccessKeyId,
                         Optional<Secret> storeSecretAccessKey, Optional<String> storeRegion, boolean pathStyle,
                         Optional<String> dlqLocation) {
        this(type, name, uri, warehouse, token, credential, oauth2ServerUri, user, password, storeUrl,
                storeAccessKeyId, storeSecretAccessKey, storeRegion, pathStyle, dlqLocation, Aws.NONE);
    }

    /** Without a {@code dlq_location}: dead letters below the warehouse. */
    public CatalogConfig(String type, String name, String uri, String warehouse, Optional<Secret> token,
                         Optional<Secret> credential, Optional<String> oauth2ServerUri, Optional<String> user,
                         Optional<Secret> password, Optional<String> storeUrl, Optional<String> storeAccessKeyId,
                         Optional<Secret> storeSecretAccessKey, Optional<String> storeRegion, boolean pathStyle) {
        this(type, name, uri, warehouse, token, credential, oauth2ServerUri, user, password, storeUrl,
                storeAccessKeyId, storeSecretAccessKey, storeRegion, pathStyle, Optional.empty());
    }

    /**
     * What a catalog on AWS needs beyond its address. The credentials are the store's: its key pair, else the AWS
     * credential chain.
     *
     * @param sigv4       sign every REST catalog request with AWS SigV4 ({@code catalog_sigv4})
     * @param signingName the service a signature is for, {@code glue} or {@code s3tables} ({@code catalog_signing_name}); empty: Iceberg's
     *                    default, {@code execute-api}
     * @param region      the Glue catalog's region, or the region requests are signed for ({@code catalog_region}); empty: the store's
     *                    region, then the AWS region chain
     */
    public record Aws(boolean sigv4, Optional<String> signingName, Optional<String> region) {
        /** Neither signing nor a region of its own: a catalog off AWS, or Glue in the store's region. */
        public static final Aws NONE = new Aws(false, Optional.empty(), Optional.empty());

        public Aws {
            Objects.requireNonNull(signingName, "signingName");
            Objects.requireNonNull(region, "region");
        }
    }
}
