package dev.iggysink.adapters.s3;

import dev.iggysink.application.settings.Secret;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The bucket and how to reach it. The key pair is both present or both absent (then {@code credentials} and the
 * provider chain apply, {@link dev.iggysink.adapters.s3.credentials.AwsCredentialChain}).
 * {@code multipartThreshold}: objects larger than this go up in parts of {@code multipartPartSize},
 * {@code uploadConcurrency} at a time (also the number of files uploaded at once).
 */
public record StorageSettings(String bucket, String region, Optional<String> endpoint, boolean pathStyle,
                              Optional<String> accessKeyId, Optional<Secret> secretAccessKey,
                              StorageClient client, long multipartThreshold, long multipartPartSize,
                              int uploadConcurrency, Optional<String> sse, Optional<String> sseKmsKeyId,
                              Optional<String> storageClass, Optional<String> cannedAcl,
                              Map<String, String> objectTags, Duration requestTimeout,
                              CredentialSettings credentials) {
    public StorageSettings {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(accessKeyId, "accessKeyId");
        Objects.requireNonNull(secretAccessKey, "secretAccessKey");
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(sse, "sse");
        Objects.requireNonNull(sseKmsKeyId, "sseKmsKeyId");
        Objects.requireNonNull(storageClass, "storageClass");
        Objects.requireNonNull(cannedAcl, "cannedAcl");
        objectTags = Map.copyOf(objectTags);
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        Objects.requireNonNull(credentials, "credentials");
        if (accessKeyId.isPresent() != secretAccessKey.isPresent()) {
            throw new IllegalArgumentException("access_key_id and secret_access_key go together");
        }
        if (multipartPartSize < 5L * 1024 * 1024) throw new IllegalArgumentException("multipart part size < 5 MiB");
        if (uploadConcurrency <= 0) throw new IllegalArgumentException("uploadConcurrency must be > 0");
    }

    /** Without a profile or a role to assume. */
    public StorageSettings(String bucket, String region, Optional<String> endpoint, boolean pathStyle,
                           Optional<String> accessKeyId, Optional<Secret> secretAccessKey, StorageClient client,
                           long multipartThreshold, long multipartPartSize, int uploadConcurrency, Optional<String> sse,
                           Optional<String> sseKmsKeyId, Optional<String> storageClass, Optional<String> cannedAcl,
                           Map<String, String> objectTags, Duration requestTimeout) {
        this(bucket, region, endpoint, pathStyle, accessKeyId, secretAccessKey, client, multipartThreshold,
                multipartPartSize, uploadConcurrency, sse, sseKmsKeyId, storageClass, cannedAcl, objectTags,
                requestTimeout, CredentialSettings.NONE);
    }

    /** These settings with other credential sources. */
    public StorageSettings withCredentials(CredentialSettings other) {
        return new StorageSettings(bucket, region, endpoint, pathStyle, accessKeyId, secretAccessKey, client,
                multipartThreshold, multipartPartSize, uploadConcurrency, sse, sseKmsKeyId, storageClass, cannedAcl,
                objectTags, requestTimeout, other);
    }

    /** Defaults for the object options, for callers that only know bucket, region and endpoint. */
    public static StorageSettings basic(String bucket, String region, Optional<String> endpoint,
                                        Optional<String> accessKeyId, Optional<Secret> secret) {
        return new StorageSettings(bucket, region, endpoint, endpoint.isPresent(), accessKeyId, secret,
                StorageClient.AWS, 64L * 1024 * 1024, 8L * 1024 * 1024, 4, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Map.of(), Duration.ofSeconds(60));
    }
}
