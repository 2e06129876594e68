package dev.iggysink.adapters.iceberg;

import dev.iggysink.application.settings.Secret;
import java.util.Objects;
import java.util.Optional;

/**
 * The catalog and the warehouse's store, as this adapter needs them.
 *
 * @param type      {@code rest} or {@code jdbc}
 * @param uri       the REST catalog's {@code http(s)://} address, or the JDBC URL ({@code jdbc:sqlite:},
 *                  {@code jdbc:postgresql:})
 * @param warehouse the REST catalog's warehouse name, or the JDBC catalog's warehouse location ({@code s3://...})
 */
public record CatalogSettings(String type, String name, String uri, String warehouse, Optional<Secret> token,
                              Optional<Secret> credential, Optional<String> oauth2ServerUri, Optional<String> user,
                              Optional<Secret> password, Optional<String> storeUrl, Optional<String> accessKeyId,
                              Optional<Secret> secretAccessKey, Optional<String> region, boolean pathStyle) {
    public CatalogSettings {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(warehouse, "warehouse");
    }
}
