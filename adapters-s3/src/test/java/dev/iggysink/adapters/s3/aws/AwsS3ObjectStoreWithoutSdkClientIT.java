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
 * http with path-style addressing those requests, listings and batch deletes never make it.
 */
class AwsS3ObjectStoreWithoutSdkClientIT {
    @Test
    void puts_gets_heads_lists_and_deletes_over_plain_http_leave_the_sdk_client_unmade() throws Exception {
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
            for (int i = 0; i < 3; i++) store.put("w/t/data/" + i + " a+b&c.parquet", FileBytes.of(body), "x/y");
            assertThat(store.list("w/t/")).extracting(o -> o.key() + ":" + o.size()).containsExactly(
                    "w/t/data/0 a+b&c.parquet:20", "w/t/data/1 a+b&c.parquet:20", "w/t/data/2 a+b&c.parquet:20");
            store.delete(java.util.List.of("w/t/data/0 a+b&c.parquet", "w/t/data/2 a+b&c.parquet", "w/t/none"));
            assertThat(store.list("w/")).extracting(o -> o.key()).containsExactly("w/t/data/1 a+b&c.parquet");
            assertThat(store.sdkClientMade()).isFalse();

            store.getVersioned("w/t/data/1 a+b&c.parquet");
            assertThat(store.sdkClientMade()).as("a read for a compare-and-swap goes through the SDK").isTrue();
        }
    }

    /** ListObjectsV2 answers 1,000 keys a page: the listing follows the continuation token, and a bound ends it. */
    @Test
    void a_listing_follows_pages_past_a_thousand_keys_from_a_start_to_a_bound() throws Exception {
        MinioServer minio = MinioServer.shared();
        String bucket = "plain-list-pages";
        minio.createBucket(bucket);
        try (AwsS3ObjectStore store = new AwsS3ObjectStore(PlainHttpPutIT.settings(minio, bucket))) {
            for (int i = 0; i < 1_005; i++) {
                store.put(String.format("p/%05d.json", i), FileBytes.of(new byte[i % 7]), "application/json");
            }
            java.util.List<dev.iggysink.application.port.out.StoredObject> all = store.list("p/");
            assertThat(all).hasSize(1_005);
            assertThat(all.get(1_004).key()).isEqualTo("p/01004.json");
            assertThat(all.get(1_004).size()).isEqualTo(1_004 % 7);
            assertThat(store.list("p/", "p/00998.json", "p/01001.json")).extracting(o -> o.key())
                    .containsExactly("p/00999.json", "p/01000.json", "p/01001.json");
            assertThat(store.list("p/", "", "p/00002.json")).extracting(o -> o.key())
                    .containsExactly("p/00000.json", "p/00001.json", "p/00002.json");
            assertThat(store.list("q/")).isEmpty();
            assertThat(store.sdkClientMade()).isFalse();
        }
    }
}
