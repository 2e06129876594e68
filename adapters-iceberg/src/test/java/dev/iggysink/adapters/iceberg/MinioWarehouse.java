package dev.iggysink.adapters.iceberg;

import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.iceberg.CatalogProperties;

import dev.iggysink.testkit.s3.MinioServer;

import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A warehouse on a real MinIO ({@link MinioServer#shared()}, the same server the S3 adapter's tests use): a bucket
 * of its own and the catalog properties that make Iceberg's S3FileIO reach it.
 */
final class MinioWarehouse {
    private final MinioServer minio;
    private final String bucket;

    private MinioWarehouse(MinioServer minio, String bucket) {
        this.minio = minio;
        this.bucket = bucket;
    }

    /** A new bucket on the shared server; {@code purpose} only makes the bucket name readable. */
    static MinioWarehouse create(String purpose) {
        MinioServer minio = MinioServer.shared();
        byte[] suffix = new byte[4];
        ThreadLocalRandom.current().nextBytes(suffix);
        String bucket = "iceberg-" + purpose + "-" + HexFormat.of().formatHex(suffix);
        minio.createBucket(bucket);
        return new MinioWarehouse(minio, bucket);
    }

    String bucket() {
        return bucket;
    }

    /** An {@code s3://} location inside the bucket. */
    String location(String path) {
        return "s3://" + bucket + "/" + path;
    }

    /**
     * S3FileIO on this MinIO: path-style requests (MinIO serves no virtual-host buckets on 127.0.0.1), the endpoint
     * and static keys. Used by the catalog clients and by the REST server's own backend catalog alike.
     */
    Map<String, String> fileIoProperties() {
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
        properties.put("s3.endpoint", minio.endpoint().toString());
        properties.put("s3.path-style-access", "true");
        properties.put("s3.access-key-id", minio.accessKey());
        properties.put("s3.secret-access-key", minio.secretKey());
        properties.put("client.region", minio.region());
        properties.putAll(Apache5S3ClientFactory.catalogProperties());
        return properties;
    }

    /** The keys of the objects under an {@code s3://} location of this bucket, read with MinIO's own client. */
    List<String> keysUnder(String location) {
        String prefix = "s3://" + bucket + "/";
        if (!location.startsWith(prefix)) {
            throw new IllegalArgumentException(location + " is not in bucket " + bucket);
        }
        String keyPrefix = location.substring(prefix.length());
        return minio.client().listObjectsV2Paginator(b -> b.bucket(bucket).prefix(keyPrefix)).contents().stream()
                .map(S3Object::key).toList();
    }
}
