package dev.iggysink.adapters.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;

import org.junit.jupiter.api.Test;

import dev.iggysink.adapters.s3.aws.AwsS3ObjectStore;
import dev.iggysink.adapters.s3.minio.MinioObjectStore;
import dev.iggysink.application.port.out.ObjectStore;

class ObjectStoresTest {
    private static final URI NOWHERE = URI.create("http://127.0.0.1:9");

    @Test
    void the_storage_client_setting_picks_the_adapter() {
        try (ObjectStore aws = ObjectStores.create(TestStores.settings(StorageClient.AWS, NOWHERE, "b", "k", "s"));
             ObjectStore minio = ObjectStores.create(TestStores.settings(StorageClient.MINIO, NOWHERE, "b", "k", "s"))) {
            assertThat(aws).isInstanceOf(AwsS3ObjectStore.class);
            assertThat(minio).isInstanceOf(MinioObjectStore.class);
        }
    }

    @Test
    void a_store_shows_bucket_and_endpoint_but_never_the_secret() {
        try (ObjectStore aws = ObjectStores.create(TestStores.settings(StorageClient.AWS, NOWHERE, "b", "k",
                "do-not-print-me"));
             ObjectStore minio = ObjectStores.create(TestStores.settings(StorageClient.MINIO, NOWHERE, "b", "k",
                     "do-not-print-me"))) {
            assertThat(aws.toString()).contains("b").doesNotContain("do-not-print-me");
            assertThat(minio.toString()).contains("b").doesNotContain("do-not-print-me");
        }
    }
}
