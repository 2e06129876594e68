package dev.iggysink.adapters.s3.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;

import dev.iggysink.adapters.s3.StorageClient;
import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.testkit.s3.MinioServer;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;

/** {@link PlainHttpPut} on a real MinIO: what the store makes of a signing clock that is off. */
class PlainHttpPutIT {
    private static final byte[] BODY = "{\"a\":1}\n".getBytes(StandardCharsets.UTF_8);

    @Test
    // Apache5HttpClient, as the store builds it: only the fallback, never called here
    void a_clock_an_hour_behind_fails_once_then_signs_with_the_stores_time() throws Exception {
        MinioServer minio = MinioServer.shared();
        String bucket = "plain-put-skew";
        minio.createBucket(bucket);
        StorageSettings settings = settings(minio, bucket);
        Clock behind = Clock.offset(Clock.systemUTC(), Duration.ofHours(-1));
        FilePutHttpClient http = new FilePutHttpClient(Apache5HttpClient.builder().build(), Duration.ofSeconds(5),
                Duration.ofSeconds(20));
        try (http; PlainHttpPut put = new PlainHttpPut(settings, StaticCredentialsProvider.create(
                AwsBasicCredentials.create(minio.accessKey(), minio.secretKey())), http, behind)) {
            StoreException first = catchThrowableOfType(StoreException.class,
                    () -> put.put("PUT", "skew/one", FileBytes.of(BODY), "text/plain", crc32c(BODY), Map.of()));

            assertThat(first).isNotNull();
            assertThat(first.httpStatus()).isEqualTo(403);
            assertThat(first.getMessage()).contains("RequestTimeTooSkewed").doesNotContain(minio.secretKey());
            assertThat(put.skewMillis()).as("learnt from the answer's Date")
                    .isBetween(Duration.ofMinutes(59).toMillis(), Duration.ofMinutes(61).toMillis());

            put.put("PUT", "skew/one", FileBytes.of(BODY), "text/plain", crc32c(BODY), Map.of());
        }
        assertThat(minio.client().getObjectAsBytes(b -> b.bucket(bucket).key("skew/one")).asByteArray())
                .isEqualTo(BODY);
    }

    /**
     * Adversarial keys as MinIO stores them: each is listed under exactly the key written. (MinIO refuses keys with
     * a doubled slash whoever sends them, 400 XMinioInvalidObjectName; their encoding is checked against the SDK's in
     * {@link PlainHttpPutDifferentialTest}.)
     */
    @Test
    void keys_with_reserved_characters_unicode_and_1024_bytes_are_stored_under_themselves() throws Exception {
        MinioServer minio = MinioServer.shared();
        String bucket = "plain-put-keys";
        minio.createBucket(bucket);
        StorageSettings settings = settings(minio, bucket);
        String[] keys = {"a b/c+d=e&f.json", "k%20y/~tilde/*star*", "plus+sign/%41/~tilde/sp ace/\u00e9\u65e5\uD83D\uDE00",
                PlainHttpPutDifferentialTest.longKey()};
        FilePutHttpClient http = new FilePutHttpClient(Apache5HttpClient.builder().build(), Duration.ofSeconds(5),
                Duration.ofSeconds(20));
        try (http; PlainHttpPut put = new PlainHttpPut(settings, StaticCredentialsProvider.create(
                AwsBasicCredentials.create(minio.accessKey(), minio.secretKey())), http)) {
            for (String key : keys) put.put("PUT", key, FileBytes.of(BODY), "text/plain", crc32c(BODY), Map.of());
        }
        assertThat(minio.client().listObjectsV2(b -> b.bucket(bucket)).contents())
                .extracting(o -> o.key()).containsExactlyInAnyOrder(keys);
    }

    /** Claims go through this path: MinIO must refuse the second create of a key, and keep the first object. */
    @Test
    void a_second_conditional_create_of_a_key_is_refused_with_412_and_leaves_the_first() throws Exception {
        MinioServer minio = MinioServer.shared();
        String bucket = "plain-put-create";
        minio.createBucket(bucket);
        StorageSettings settings = settings(minio, bucket);
        byte[] other = "another body".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        FilePutHttpClient http = new FilePutHttpClient(Apache5HttpClient.builder().build(), Duration.ofSeconds(5),
                Duration.ofSeconds(20));
        try (http; PlainHttpPut put = new PlainHttpPut(settings, StaticCredentialsProvider.create(
                AwsBasicCredentials.create(minio.accessKey(), minio.secretKey())), http)) {
            put.put("PUT If-None-Match", "c/0.claim", FileBytes.of(BODY), "application/octet-stream", crc32c(BODY),
                    Map.of("iggy-offsets", "0-9"), true);
            StoreException second = catchThrowableOfType(StoreException.class, () -> put.put("PUT If-None-Match",
                    "c/0.claim", FileBytes.of(other), "application/octet-stream", crc32c(other),
                    Map.of("iggy-offsets", "0-4"), true));

            assertThat(second).isNotNull();
            assertThat(second.httpStatus()).isIn(412, 409);
            assertThat(second.getMessage()).contains("c/0.claim").doesNotContain(minio.secretKey());
        }
        assertThat(minio.client().getObjectAsBytes(b -> b.bucket(bucket).key("c/0.claim")).asByteArray())
                .isEqualTo(BODY);
        assertThat(minio.client().headObject(b -> b.bucket(bucket).key("c/0.claim")).metadata())
                .containsEntry("iggy-offsets", "0-9");
    }

    /**
     * The self-audit's read-back goes through this path: the metadata as written, nothing for a missing key, a
     * refused HEAD named by its key; and the answer's Content-Length announces no body, so the connection is handed
     * back at once and the next request on it is answered.
     */
    @Test
    void a_head_reads_the_metadata_back_and_leaves_the_connection_for_the_next_request() throws Exception {
        MinioServer minio = MinioServer.shared();
        String bucket = "plain-head";
        minio.createBucket(bucket);
        StorageSettings settings = settings(minio, bucket);
        // A HEAD whose answer were read for the body its Content-Length announces would wait out this read timeout,
        // then close its connection.
        FilePutHttpClient http = new FilePutHttpClient(Apache5HttpClient.builder().build(), Duration.ofSeconds(5),
                Duration.ofSeconds(2));
        String key = "h/a b+\u00e9/0.jsonl";
        Map<String, String> stamps = Map.of("iggy-offsets", "0-9", "iggy-records", "10", "iggy-first", "p0@0");
        try (http; PlainHttpPut put = new PlainHttpPut(settings, StaticCredentialsProvider.create(
                AwsBasicCredentials.create(minio.accessKey(), minio.secretKey())), http)) {
            put.put("PUT", key, FileBytes.of(BODY), "text/plain", crc32c(BODY), stamps);
            for (int i = 0; i < 3; i++) {
                assertThat(put.metadata(key)).contains(stamps);
                assertThat(put.metadata("h/absent")).isEmpty();
            }
            put.put("PUT", "h/after", FileBytes.of(BODY), "text/plain", crc32c(BODY), Map.of());

            assertThat(http.connections()).as("one connection, handed back after each answer").isEqualTo(1);
        }
        FilePutHttpClient other = new FilePutHttpClient(Apache5HttpClient.builder().build(), Duration.ofSeconds(5),
                Duration.ofSeconds(20));
        try (other; PlainHttpPut wrongSecret = new PlainHttpPut(settings, StaticCredentialsProvider.create(
                AwsBasicCredentials.create(minio.accessKey(), "not-the-secret")), other)) {
            StoreException refused = catchThrowableOfType(StoreException.class, () -> wrongSecret.metadata(key));

            assertThat(refused).isNotNull();
            assertThat(refused.httpStatus()).isEqualTo(403);
            assertThat(refused.getMessage()).contains("HEAD", key).doesNotContain("not-the-secret");
        }
    }

    static String crc32c(byte[] content) {
        CRC32C crc = new CRC32C();
        crc.update(content);
        long v = crc.getValue();
        return Base64.getEncoder().encodeToString(new byte[] {
                (byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
    }

    /**
     * A table sink reads its metadata and manifests and deletes its probe through this path (the SDK's client is then
     * never made): whole and ranged GETs of keys with reserved characters, nothing from the object's end on, a missing
     * key's 404, DELETEs of a key and of one that is not there, each connection handed back after its answer.
     */
    @Test
    void gets_and_deletes_read_and_remove_what_was_put_on_one_connection() throws Exception {
        MinioServer minio = MinioServer.shared();
        String bucket = "plain-get";
        minio.createBucket(bucket);
        StorageSettings settings = settings(minio, bucket);
        byte[] content = new byte[300_000];
        new java.util.Random(11).nextBytes(content);
        String key = "t/a b+\u00e9/%41/snap-1.avro";
        FilePutHttpClient http = new FilePutHttpClient(Apache5HttpClient.builder().build(), Duration.ofSeconds(5),
                Duration.ofSeconds(2));
        try (http; PlainHttpPut put = new PlainHttpPut(settings, StaticCredentialsProvider.create(
                AwsBasicCredentials.create(minio.accessKey(), minio.secretKey())), http)) {
            // an empty PUT's answer comes before any body was sent, which leaves its connection closed: first
            put.put("PUT", "t/empty", FileBytes.of(new byte[0]), "application/octet-stream", crc32c(new byte[0]),
                    Map.of());
            put.put("PUT", key, FileBytes.of(content), "application/octet-stream", crc32c(content), Map.of());
            long opened = http.connections();
            for (int i = 0; i < 2; i++) {
                assertThat(put.get(key, 0, -1)).isEqualTo(content);
                assertThat(put.get(key, 1000, 10)).isEqualTo(java.util.Arrays.copyOfRange(content, 1000, 1010));
                assertThat(put.get(key, content.length - 5, 100))
                        .isEqualTo(java.util.Arrays.copyOfRange(content, content.length - 5, content.length));
                assertThat(put.get(key, content.length, 100)).isEmpty();
                assertThat(put.get("t/empty", 0, -1)).isEmpty();
            }
            StoreException missing = catchThrowableOfType(StoreException.class, () -> put.get("t/absent", 0, 10));
            assertThat(missing).isNotNull();
            assertThat(missing.httpStatus()).isEqualTo(404);
            assertThat(missing.retryable()).isFalse();
            assertThat(missing.getMessage()).contains("GET", "t/absent");

            put.delete(key);
            put.delete("t/absent");
            assertThat(put.metadata(key)).isEmpty();
            assertThat(http.connections()).as("no connection more: each handed back after its answer")
                    .isEqualTo(opened);
        }
        assertThat(minio.client().listObjectsV2(b -> b.bucket(bucket)).contents()).extracting(o -> o.key())
                .containsExactly("t/empty");
    }

    /** {@code bucket} on {@code minio}, path-style over plain http, with its key pair. */
    static StorageSettings settings(MinioServer minio, String bucket) {
        return new StorageSettings(bucket, minio.region(), Optional.of(minio.endpoint().toString()), true,
                Optional.of(minio.accessKey()), Optional.of(Secret.of(minio.secretKey())), StorageClient.AWS,
                64L << 20, 8L << 20, 2, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Map.of(), Duration.ofSeconds(20));
    }
}
