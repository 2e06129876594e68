package dev.iggysink.adapters.s3.aws;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.testkit.s3.MinioServer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A table sink's files go through the object store (its metadata, manifests and data files: GETs, HEADs, PUTs and
 * DELETEs), and the SDK's S3 client with its request models is the largest part of the store's memory: over plain
 * http with path-style addressing those requests never make it, and a LIST does.
 */
class AwsS3ObjectStoreWithoutSdkClientIT {
    @Test
    void puts_gets_heads_and_deletes_over_plain_http_leave_the_sdk_client_unmade() throws Exception {
        MinioServer minio = MinioServer.shared();
        String bucket = "no-sdk-client";
        minio.createBucket(bucket);
        StorageSettings settings = PlainHttpPutIT.settings(minio, bucket);
        byte[] body = "{\"format-version\":2}".getBytes(StandardCharsets.UTF_8);
        try (AwsS3ObjectStore store = new AwsS3ObjectStore(settings)) {
            store.put("w/t/metadata/v1.json", FileBytes.of(body), "application/json");
            assertThat(store.get("w/t/metadata/v1.json")).isEqualTo(body);
            assertThat(store.get("w/t/metadata/v1.json", 2, 6)).isEqualTo("format".getBytes(StandardCharsets.UTF_8));
            assertThat(store.metadata("w/t/metadata/v1.json")).isPresent();
            store.delete("w/t/metadata/v1.json");
            assertThat(store.metadata("w/t/metadata/v1.json")).isEmpty();
            assertThat(store.sdkClientMade()).isFalse();

            assertThat(store.list("w/")).isEmpty();
            assertThat(store.sdkClientMade()).as("a LIST goes through the SDK").isTrue();
        }
    }
}
