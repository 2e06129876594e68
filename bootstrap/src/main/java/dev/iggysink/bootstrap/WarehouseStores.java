package dev.iggysink.bootstrap;

import dev.iggysink.adapters.iceberg.StoreFileIO;
import dev.iggysink.adapters.s3.ObjectStores;
import dev.iggysink.adapters.s3.StorageClient;
import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.settings.Secret;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The object store of a table warehouse's bucket, for {@link StoreFileIO}: the object sink's own S3 client, made
 * from the catalog properties that class serves (endpoint, path style, key pair or the AWS credential chain, region).
 */
final class WarehouseStores implements StoreFileIO.Opener {
    /** Registered once, before any catalog is opened (class initialization of the table sink's assembly). */
    static void register() {
        StoreFileIO.useStores(new WarehouseStores());
    }

    @Override
    public ObjectStore open(String bucket, Map<String, String> p) {
        Optional<String> endpoint = Optional.ofNullable(p.get("s3.endpoint"));
        StorageSettings settings = new StorageSettings(bucket, p.get("client.region"), endpoint,
                Boolean.parseBoolean(p.get("s3.path-style-access")), Optional.ofNullable(p.get("s3.access-key-id")),
                Optional.ofNullable(p.get("s3.secret-access-key")).map(Secret::of), StorageClient.AWS,
                64L * 1024 * 1024, 8L * 1024 * 1024, 4, Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Map.of(), Duration.ofSeconds(60));
        return ObjectStores.create(settings);
    }
}
