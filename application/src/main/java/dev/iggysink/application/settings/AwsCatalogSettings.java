package dev.iggysink.application.settings;

import java.util.Objects;
import java.util.Optional;

/**
 * What a table sink's catalog on AWS needs beyond its address: the region of a Glue catalog, and for a REST catalog
 * behind AWS (Glue's and S3 Tables' Iceberg REST endpoints) whether each request is signed with SigV4, for which
 * service and region. The credentials are the store's: its key pair, else the AWS credential chain.
 *
 * @param sigv4       sign every REST catalog request with AWS SigV4 ({@code catalog_sigv4})
 * @param signingName the service a signature is for, {@code glue} or {@code s3tables} ({@code catalog_signing_name});
 *                    empty: Iceberg's default, {@code execute-api}
 * @param region      the Glue catalog's region, or the region requests are signed for ({@code catalog_region});
 *                    empty: the store's region, then the AWS region chain
 */
public record AwsCatalogSettings(boolean sigv4, Optional<String> signingName, Optional<String> region) {
    /** Neither signing nor a region of its own: a catalog off AWS, or Glue in the store's region. */
    public static final AwsCatalogSettings NONE = new AwsCatalogSettings(false, Optional.empty(), Optional.empty());

    public AwsCatalogSettings {
        Objects.requireNonNull(signingName, "signingName");
        Objects.requireNonNull(region, "region");
    }
}
