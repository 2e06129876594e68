package dev.iggysink.adapters.iceberg;

import dev.iggysink.application.settings.Secret;
import java.util.Objects;
import java.util.Optional;

/**
 * The catalog and the warehouse's store, as this adapter needs them.
 *
 * @param type      {@code rest}, {@code jdbc} or {@code glue}
 * @param uri       the REST catalog's {@code http(s)://} address, or the JDBC URL ({@code jdbc:sqlite:},
 *                  {@code jdbc:postgresql:}), or a Glue-compatible endpoint (empty: AWS Glue itself)
 * @param warehouse the REST catalog's warehouse name, or the JDBC catalog's warehouse location ({@code s3://...})
 * @param dlqLocation where dead letters go, {@code <dlq_location>/<stream>/<topic>/...}, instead of
 *                  {@code <warehouse>/<dlq_prefix>/<stream>/<topic>/...}; written through the warehouse's FileIO choice
 * @param aws       Glue's region, and SigV4 signing of a REST catalog's requests
 */
public record CatalogSettings(String type, String name, String uri, String warehouse, Optional<Secret> token,
                              Optional<Secret> credential, Optional<String> oauth2ServerUri, Optional<String> user,
                              Optional<Secret> password, Optional<String> storeUrl, Optional<String> accessKeyId,
                              Optional<Secret> secretAccessKey, Optional<String> region, boolean pathStyle,
                              Optional<String> dlqLocation, Aws aws) {
    public CatalogSettings {
        Objects.requireNonNull(dlqLocation, "dlqLocation");
        Objects.requireNonNull(aws, "aws");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(warehouse, "warehouse");
    }

    /** A catalog off AWS. */
    public CatalogSettings(String type, String name, String uri, String warehouse, Optional<Secret> token,
                           Optional<Secret> credential, Optional<String> oauth2ServerUri, Optional<String> user,
                           Optional<Secret> password, Optional<String> storeUrl, Optional<String> accessKeyId,
                           Optional<Secret> secretAccessKey, Optional<String> region, boolean pathStyle,
                           Optional<String> dlqLocation) {
        this(type, name, uri, warehouse, token, credential, oauth2ServerUri, user, password, storeUrl, accessKeyId,
                secretAccessKey, region, pathStyle, dlqLocation, Aws.NONE);
    }

    /** Without a {@code dlq_location}: dead letters below the warehouse. */
    public CatalogSettings(String type, String name, String uri, String warehouse, Optional<Secret> token,
                           Optional<Secret> credential, Optional<String> oauth2ServerUri, Optional<String> user,
                           Optional<Secret> password, Optional<String> storeUrl, Optional<String> accessKeyId,
                           Optional<Secret> secretAccessKey, Optional<String> region, boolean pathStyle) {
        this(type, name, uri, warehouse, token, credential, oauth2ServerUri, user, password, storeUrl, accessKeyId,
                secretAccessKey, region, pathStyle, Optional.empty());
    }

    /**
     * What a catalog on AWS needs beyond its address. The credentials are the store's: its key pair, else the AWS
     * credential chain.
     *
     * @param sigv4       sign every REST catalog request with AWS SigV4
     * @param signingName the service a signature is for, {@code glue} or {@code s3tables}; empty: Iceberg's
     *                    default, {@code execute-api}
     * @param region      the Glue catalog's region, or the region requests are signed for; empty: the store's
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
