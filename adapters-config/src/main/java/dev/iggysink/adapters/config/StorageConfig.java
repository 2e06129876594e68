package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.Secret;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Where files go: {@code storage_client} and the options of that store. */
public sealed interface StorageConfig permits StorageConfig.S3, StorageConfig.Directory {

    /** For messages: {@code s3://bucket} or the directory. */
    String describe();

    /** Which S3 client library talks to the bucket. */
    enum S3Client { AWS, MINIO }

    /**
     * A bucket of S3 or an S3-compatible store ({@code storage_client = "aws"} or {@code "minio"}). The key pair is
     * both present or both absent (then {@code credentials} and the provider chain apply).
     */
    record S3(S3Client client, String bucket, String region, Optional<String> endpoint, boolean pathStyle,
              Optional<String> accessKeyId, Optional<Secret> secretAccessKey, long multipartThreshold,
              long multipartPartSize, Optional<String> sse, Optional<String> sseKmsKeyId,
              Optional<String> storageClass, Optional<String> cannedAcl, Map<String, String> objectTags,
              Duration requestTimeout, CredentialsConfig credentials) implements StorageConfig {
        public S3 {
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(bucket, "bucket");
            Objects.requireNonNull(region, "region");
            Objects.requireNonNull(endpoint, "endpoint");
            Objects.requireNonNull(accessKeyId, "accessKeyId");
            Objects.requireNonNull(secretAccessKey, "secretAccessKey");
            Objects.requireNonNull(sse, "sse");
            Objects.requireNonNull(sseKmsKeyId, "sseKmsKeyId");
            Objects.requireNonNull(storageClass, "storageClass");
            Objects.requireNonNull(cannedAcl, "cannedAcl");
            objectTags = Map.copyOf(objectTags);
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(credentials, "credentials");
        }

        /** Without a profile or a role to assume. */
        public S3(S3Client client, String bucket, String region, Optional<String> endpoint, boolean pathStyle,
                  Optional<String> accessKeyId, Optional<Secret> secretAccessKey, long multipartThreshold,
                  long multipartPartSize, Optional<String> sse, Optional<String> sseKmsKeyId,
                  Optional<String> storageClass, Optional<String> cannedAcl, Map<String, String> objectTags,
                  Duration requestTimeout) {
            this(client, bucket, region, endpoint, pathStyle, accessKeyId, secretAccessKey, multipartThreshold,
                    multipartPartSize, sse, sseKmsKeyId, storageClass, cannedAcl, objectTags, requestTimeout,
                    CredentialsConfig.NONE);
        }

        @Override
        public String describe() {
            return "s3://" + bucket;
        }
    }

    /** A directory of this machine or a mounted volume ({@code storage_client = "filesystem"}). */
    record Directory(Path directory) implements StorageConfig {
        public Directory {
            Objects.requireNonNull(directory, "directory");
        }

        @Override
        public String describe() {
            return "directory " + directory;
        }
    }
}
