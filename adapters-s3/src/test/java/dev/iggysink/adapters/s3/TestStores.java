package dev.iggysink.adapters.s3;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import dev.iggysink.application.settings.Secret;

/** Settings for adapters under test: small parts and threshold (see {@link ObjectStoreContract}). */
final class TestStores {
    private TestStores() {
    }

    static StorageSettings settings(StorageClient client, URI endpoint, String bucket, String accessKey,
                                    String secret) {
        return settings(client, endpoint, bucket, Optional.of(accessKey), Optional.of(secret), Duration.ofSeconds(30));
    }

    static StorageSettings settings(StorageClient client, URI endpoint, String bucket, Optional<String> accessKey,
                                    Optional<String> secret, Duration requestTimeout) {
        return new StorageSettings(bucket, "us-east-1", Optional.of(endpoint.toString()), true, accessKey,
                secret.map(Secret::of), client, ObjectStoreContract.THRESHOLD, ObjectStoreContract.PART_SIZE, 3,
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Map.of(), requestTimeout);
    }

    /** A valid, unique bucket name: S3 names are 3-63 lowercase letters, digits and hyphens. */
    static String bucketName(String hint) {
        String base = hint.toLowerCase().replaceAll("[^a-z0-9-]", "-");
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        return (base.length() > 40 ? base.substring(0, 40) : base) + "-" + suffix;
    }
}
