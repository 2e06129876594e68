package dev.iggysink.adapters.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.iggysink.adapters.s3.support.AdapterSupport;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.testkit.s3.FaultProxy;
import dev.iggysink.testkit.s3.FaultProxy.Fault;
import dev.iggysink.testkit.s3.MinioServer;

import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.Tag;

/**
 * The contract, and what only a real server shows (object options, credential chain, failures injected between
 * adapter and server, outages), on a real MinIO ({@link MinioServer#shared()}). Subclasses pick the adapter.
 */
abstract class MinioContract extends ObjectStoreContract {
    private static final Logger LOG = LoggerFactory.getLogger(MinioContract.class);

    private MinioServer minio;
    private String bucket;
    private final String missing = TestStores.bucketName("missing");
    private ObjectStore store;
    private ObjectStore wrongSecret;
    private ObjectStore missingBucket;

    protected abstract StorageClient client();

    protected final MinioServer minio() {
        return minio;
    }

    protected final String bucket() {
        return bucket;
    }

    @BeforeAll
    void startServer() {
        minio = MinioServer.shared();
        bucket = TestStores.bucketName(client().name() + "-contract");
        minio.createBucket(bucket);
        store = create(settings(minio.endpoint().toString(), bucket, Optional.of(minio.accessKey()),
                Optional.of(minio.secretKey()), Duration.ofSeconds(30)));
        wrongSecret = create(settings(minio.endpoint().toString(), bucket, Optional.of(minio.accessKey()),
                Optional.of(wrongSecret()), Duration.ofSeconds(30)));
        missingBucket = create(settings(minio.endpoint().toString(), missing, Optional.of(minio.accessKey()),
                Optional.of(minio.secretKey()), Duration.ofSeconds(30)));
    }

    @AfterAll
    void closeStores() {
        store.close();
        wrongSecret.close();
        missingBucket.close();
    }

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Override
    protected ObjectStore storeWithWrongSecret() {
        return wrongSecret;
    }

    @Override
    protected String wrongSecret() {
        return "wrong-secret-minio-0123456789";
    }

    @Override
    protected ObjectStore storeOnMissingBucket() {
        return missingBucket;
    }

    @Override
    protected String missingBucketName() {
        return missing;
    }

    private ObjectStore create(StorageSettings settings) {
        return ObjectStores.create(settings);
    }

    private StorageSettings settings(String endpoint, String bucketName, Optional<String> accessKey,
                                     Optional<String> secret, Duration timeout) {
        return new StorageSettings(bucketName, minio.region(), Optional.of(endpoint), true, accessKey,
                secret.map(Secret::of), client(), THRESHOLD, PART_SIZE, 3, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Map.of(), timeout);
    }

    private StorageSettings withOptions(Optional<String> sse, Optional<String> kmsKey, Map<String, String> tags) {
        return new StorageSettings(bucket, minio.region(), Optional.of(minio.endpoint().toString()), true,
                Optional.of(minio.accessKey()), Optional.of(Secret.of(minio.secretKey())), client(), THRESHOLD,
                PART_SIZE, 3, sse, kmsKey, Optional.of("STANDARD"), Optional.of("private"), tags,
                Duration.ofSeconds(30));
    }

    // ---- object metadata and options ----

    @Test
    void the_content_type_is_stored_for_single_and_multipart_puts() throws Exception {
        store.put(prefix + "a.jsonl", chunked(bytes(10, 1)), "application/x-ndjson");
        store.put(prefix + "b.parquet", chunked(bytes((int) THRESHOLD + 1, 1)),
                "application/vnd.apache.parquet");

        assertThat(head(prefix + "a.jsonl").contentType()).isEqualTo("application/x-ndjson");
        assertThat(head(prefix + "b.parquet").contentType()).isEqualTo("application/vnd.apache.parquet");
    }

    @Test
    void user_metadata_is_the_objects_s3_metadata_for_single_multipart_and_conditional_writes() throws Exception {
        store.put(prefix + "single", chunked(bytes(100, 1)), "text/plain", STAMPS);
        store.put(prefix + "multi", chunked(bytes((int) THRESHOLD + 1, 1)), "text/plain", STAMPS);
        assertThat(store.create(prefix + "created", new byte[] {1}, STAMPS)).isTrue();

        for (String key : List.of("single", "multi", "created")) {
            // What another S3 client reads: the names as the server spells them, so compared in lower case.
            assertThat(AdapterSupport.lowerCaseNames(head(prefix + key).metadata())).as(key).isEqualTo(STAMPS);
        }
    }

    @Test
    void sse_s3_storage_class_acl_and_tags_reach_the_object_single_and_multipart() throws Exception {
        Map<String, String> tags = Map.of("source", "iggy sink", "team", "data+eng/raw=1:a@b");
        try (ObjectStore options = create(withOptions(Optional.of("AES256"), Optional.empty(), tags))) {
            for (int size : new int[] {100, (int) THRESHOLD + 1}) {
                String key = prefix + "sse-" + size;
                byte[] content = bytes(size, size);
                options.put(key, chunked(content), "application/octet-stream");

                assertThat(head(key).serverSideEncryptionAsString()).isEqualTo("AES256");
                assertThat(tags(key)).isEqualTo(Set.of("source=iggy sink", "team=data+eng/raw=1:a@b"));
                assertThat(options.get(key)).isEqualTo(content);
            }
            options.probe();
        }
    }

    @Test
    void sse_kms_with_a_key_id_reaches_the_object() throws Exception {
        try (ObjectStore kms = create(withOptions(Optional.of("aws:kms"), Optional.of(MinioServer.KMS_KEY_ID),
                Map.of()))) {
            for (int size : new int[] {100, (int) THRESHOLD + 1}) {
                String key = prefix + "kms-" + size;
                byte[] content = bytes(size, size);
                kms.put(key, chunked(content), "application/octet-stream");

                HeadObjectResponse head = head(key);
                assertThat(head.serverSideEncryptionAsString()).isEqualTo("aws:kms");
                assertThat(head.ssekmsKeyId()).contains(MinioServer.KMS_KEY_ID);
                assertThat(kms.get(key)).isEqualTo(content);
            }
        }
    }

    @Test
    void a_kms_key_the_server_does_not_know_is_a_final_error() {
        try (ObjectStore kms = create(withOptions(Optional.of("aws:kms"), Optional.of("no-such-key"), Map.of()))) {
            StoreException e = catchThrowableOfType(StoreException.class,
                    () -> kms.put(prefix + "x", chunked(bytes(10, 1)), "text/plain"));
            assertThat(e).isNotNull();
            assertThat(e.retryable()).as(e.getMessage()).isFalse();
            assertThat(e.getMessage()).contains(prefix + "x");
        }
    }

    // ---- credentials ----

    @Test
    void without_configured_keys_credentials_come_from_the_default_chain_system_properties() throws Exception {
        StorageSettings chain = settings(minio.endpoint().toString(), bucket, Optional.empty(), Optional.empty(),
                Duration.ofSeconds(30));
        System.setProperty("aws.accessKeyId", minio.accessKey());
        System.setProperty("aws.secretAccessKey", minio.secretKey());
        try (ObjectStore viaChain = create(chain)) {
            viaChain.put(prefix + "chain", chunked(bytes(10, 2)), "text/plain");
            assertThat(viaChain.get(prefix + "chain")).isEqualTo(bytes(10, 2));
        } finally {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
        }
        // The same settings with wrong keys in the chain are refused: the chain really is what signs.
        System.setProperty("aws.accessKeyId", minio.accessKey());
        System.setProperty("aws.secretAccessKey", "wrong-chain-secret-42");
        try (ObjectStore viaChain = create(chain)) {
            StoreException e = catchThrowableOfType(StoreException.class,
                    () -> viaChain.put(prefix + "chain", chunked(bytes(10, 2)), "text/plain"));
            assertThat(e.httpStatus()).isEqualTo(403);
            assertThat(everythingPrinted(e)).doesNotContain("wrong-chain-secret-42");
        } finally {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
        }
    }

    @Test
    void the_chain_reads_the_shared_credentials_file_and_honours_the_profile(@TempDir Path dir) throws Exception {
        assertThat(System.getenv("AWS_ACCESS_KEY_ID"))
                .as("AWS_ACCESS_KEY_ID in the environment comes before the profile file; unset it for this test")
                .isNull();
        Path credentials = dir.resolve("credentials");
        Files.writeString(credentials, "[default]\naws_access_key_id = " + minio.accessKey()
                + "\naws_secret_access_key = wrong-default-secret\n\n[sink-test]\naws_access_key_id = "
                + minio.accessKey() + "\naws_secret_access_key = " + minio.secretKey() + "\n",
                StandardCharsets.UTF_8);
        Path config = Files.writeString(dir.resolve("config"), "", StandardCharsets.UTF_8);
        StorageSettings chain = settings(minio.endpoint().toString(), bucket, Optional.empty(), Optional.empty(),
                Duration.ofSeconds(30));
        // The SDK's system-property twins of AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE and AWS_PROFILE.
        System.setProperty("aws.sharedCredentialsFile", credentials.toString());
        System.setProperty("aws.configFile", config.toString());
        try {
            System.setProperty("aws.profile", "sink-test");
            try (ObjectStore viaProfile = create(chain)) {
                viaProfile.put(prefix + "profile", chunked(bytes(10, 3)), "text/plain");
                assertThat(viaProfile.get(prefix + "profile")).isEqualTo(bytes(10, 3));
            }
            System.clearProperty("aws.profile");
            try (ObjectStore viaDefault = create(chain)) {
                StoreException e = catchThrowableOfType(StoreException.class,
                        () -> viaDefault.put(prefix + "profile", chunked(bytes(10, 3)), "text/plain"));
                assertThat(e.httpStatus()).as("[default] has the wrong secret").isEqualTo(403);
            }
        } finally {
            System.clearProperty("aws.profile");
            System.clearProperty("aws.sharedCredentialsFile");
            System.clearProperty("aws.configFile");
        }
    }

    // ---- failures between adapter and server ----

    protected final ObjectStore throughProxy(FaultProxy proxy, Duration timeout) {
        return create(settings(proxy.endpoint().toString(), bucket, Optional.of(minio.accessKey()),
                Optional.of(minio.secretKey()), timeout));
    }

    private static long requestsFor(FaultProxy proxy, String key) {
        return proxy.requestLines().stream().filter(l -> l.contains(key)).count();
    }

    @Test
    void status_503_429_and_500_are_retryable_with_retry_after_and_cost_one_request_each() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(minio.endpoint());
             ObjectStore viaProxy = throughProxy(proxy, Duration.ofSeconds(10))) {
            record Case(Fault fault, int status, Optional<Duration> retryAfter) {
            }
            for (Case c : new Case[] {
                    new Case(Fault.status(503), 503, Optional.empty()),
                    new Case(Fault.throttled(Duration.ofSeconds(7)), 429, Optional.of(Duration.ofSeconds(7))),
                    new Case(Fault.status(500), 500, Optional.empty()),
                    new Case(Fault.statusWithRetryAfter(503, Duration.ofSeconds(2)), 503,
                            Optional.of(Duration.ofSeconds(2)))}) {
                String key = prefix + "status-" + c.status() + "-" + c.retryAfter().map(Duration::toSeconds).orElse(0L);
                proxy.enqueue(c.fault());
                StoreException e = catchThrowableOfType(StoreException.class,
                        () -> viaProxy.put(key, chunked(bytes(100, 1)), "text/plain"));

                assertThat(e).as(c.toString()).isNotNull();
                assertThat(e.retryable()).as(e.getMessage()).isTrue();
                assertThat(e.httpStatus()).isEqualTo(c.status());
                assertThat(e.retryAfter()).isEqualTo(c.retryAfter());
                assertThat(requestsFor(proxy, key)).as("the client did not retry on its own").isEqualTo(1);

                viaProxy.put(key, chunked(bytes(100, 1)), "text/plain");
                assertThat(stored(key)).isEqualTo(bytes(100, 1));
            }
        }
    }

    @Test
    void a_body_damaged_on_the_way_is_refused_by_the_store_retryably_and_stores_nothing() throws Exception {
        // Small (one request) and multipart (the damaged part fails the upload, which is aborted).
        for (long size : new long[] {100, THRESHOLD + 1}) {
            try (FaultProxy proxy = FaultProxy.start(minio.endpoint());
                 ObjectStore viaProxy = throughProxy(proxy, Duration.ofSeconds(30))) {
                String key = prefix + "damaged-" + size;
                proxy.enqueue(size > THRESHOLD ? Fault.corruptBody().matching("partNumber=1") : Fault.corruptBody());
                StoreException e = catchThrowableOfType(StoreException.class,
                        () -> viaProxy.put(key, chunked(bytes((int) size, 3)), "text/plain"));

                assertThat(e).as("size %d: the store must check the body", size).isNotNull();
                assertThat(proxy.pendingFaults()).isZero();
                assertThat(e.retryable()).as(e.getMessage()).isTrue();
                assertThat(e.httpStatus()).isEqualTo(400);
                assertThat(minio.client().listObjectsV2(b -> b.bucket(bucket).prefix(key)).contents())
                        .as("nothing stored under the key").isEmpty();

                viaProxy.put(key, chunked(bytes((int) size, 3)), "text/plain");
                assertThat(stored(key)).isEqualTo(bytes((int) size, 3));
            }
        }
    }

    @Test
    void a_connection_reset_is_retryable_without_an_http_status_and_is_not_resent() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(minio.endpoint());
             ObjectStore viaProxy = throughProxy(proxy, Duration.ofSeconds(10))) {
            proxy.enqueue(Fault.reset());
            StoreException e = catchThrowableOfType(StoreException.class,
                    () -> viaProxy.put(prefix + "reset", chunked(bytes(100, 1)), "text/plain"));

            assertThat(e).isNotNull();
            assertThat(e.retryable()).as(e.getMessage()).isTrue();
            assertThat(e.httpStatus()).isZero();
            assertThat(e.retryAfter()).isEmpty();
            assertThat(requestsFor(proxy, prefix + "reset")).as("the client did not resend on its own").isEqualTo(1);
        }
    }

    @Test
    void a_delay_past_the_request_timeout_is_a_retryable_timeout() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(minio.endpoint());
             ObjectStore viaProxy = throughProxy(proxy, Duration.ofSeconds(1))) {
            proxy.enqueue(Fault.delay(Duration.ofSeconds(4)));
            long start = System.nanoTime();
            StoreException e = catchThrowableOfType(StoreException.class,
                    () -> viaProxy.put(prefix + "slow", chunked(bytes(100, 1)), "text/plain"));
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(e).isNotNull();
            assertThat(e.retryable()).as(e.getMessage()).isTrue();
            assertThat(e.httpStatus()).isZero();
            assertThat(e.getMessage()).contains("timed out");
            assertThat(took).isLessThan(Duration.ofMillis(3500));
            assertThat(requestsFor(proxy, prefix + "slow")).isEqualTo(1);

            // A delay within the timeout is just a slow success.
            proxy.enqueue(Fault.delay(Duration.ofMillis(200)));
            viaProxy.put(prefix + "slow", chunked(bytes(100, 1)), "text/plain");
        }
    }

    @Test
    void a_multipart_upload_failing_midway_is_aborted_and_leaves_no_parts() throws Exception {
        for (String where : new String[] {"part 2 fails", "part 3 resets", "completion fails"}) {
            String key = prefix + "mp-" + where.replace(' ', '-');
            Fault fault = switch (where) {
                case "part 2 fails" -> Fault.status(500).matching("partNumber=2");
                case "part 3 resets" -> Fault.reset().matching("partNumber=3");
                default -> Fault.status(503).matching("POST /" + bucket + "/" + key + "?uploadId=");
            };
            try (FaultProxy proxy = FaultProxy.start(minio.endpoint());
                 ObjectStore viaProxy = throughProxy(proxy, Duration.ofSeconds(10))) {
                proxy.enqueue(fault);
                StoreException e = catchThrowableOfType(StoreException.class,
                        () -> viaProxy.put(key, chunked(bytes((int) (2 * PART_SIZE + 1), 8)),
                                "application/octet-stream"));

                assertThat(e).as(fault.toString()).isNotNull();
                assertThat(e.retryable()).as(e.getMessage()).isTrue();
                assertThat(proxy.pendingFaults()).isZero();
                assertThat(proxy.requestLines()).as("an abort was sent")
                        .anyMatch(l -> l.startsWith("DELETE ") && l.contains("uploadId="));
            }
            assertThat(minio.client().listMultipartUploads(b -> b.bucket(bucket).prefix(key)).uploads())
                    .as("incomplete uploads left for " + key).isEmpty();
            assertThat(catchThrowableOfType(NoSuchKeyException.class, () -> head(key))).isNotNull();
        }
    }

    // ---- outage ----

    @Test
    void while_the_server_is_down_puts_fail_retryably_and_succeed_once_it_is_back() throws Exception {
        try (MinioServer own = MinioServer.start()) {
            own.createBucket("outage");
            StorageSettings s = new StorageSettings("outage", own.region(), Optional.of(own.endpoint().toString()),
                    true, Optional.of(own.accessKey()), Optional.of(Secret.of(own.secretKey())), client(), THRESHOLD,
                    PART_SIZE, 3, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Map.of(),
                    Duration.ofSeconds(5));
            try (ObjectStore outage = create(s)) {
                outage.put("before", chunked(bytes(10, 1)), "text/plain");
                own.stop();
                assertThat(own.running()).isFalse();

                StoreException e = catchThrowableOfType(StoreException.class,
                        () -> outage.put("during", chunked(bytes(10, 2)), "text/plain"));
                assertThat(e).isNotNull();
                assertThat(e.retryable()).as(e.getMessage()).isTrue();
                assertThat(e.httpStatus()).isZero();

                own.restart();
                assertThat(own.running()).isTrue();
                outage.put("during", chunked(bytes(10, 2)), "text/plain");
                assertThat(outage.get("before")).isEqualTo(bytes(10, 1));
                assertThat(outage.get("during")).isEqualTo(bytes(10, 2));
            }
        }
    }

    // ---- figures ----

    @Test
    void a_64_mib_object_goes_up_in_parallel_parts_and_round_trips() throws Exception {
        StorageSettings big = new StorageSettings(bucket, minio.region(), Optional.of(minio.endpoint().toString()),
                true, Optional.of(minio.accessKey()), Optional.of(Secret.of(minio.secretKey())), client(),
                16L * MIB, 8L * MIB, 4, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Map.of(), Duration.ofSeconds(60));
        byte[] content = bytes(64 * MIB, 64);
        try (ObjectStore store64 = create(big)) {
            store64.put(prefix + "warm-up", chunked(bytes((int) (17L * MIB), 1)),
                    "application/octet-stream");
            FileBytes file = chunked(content);
            long start = System.nanoTime();
            store64.put(prefix + "64mib", file, "application/octet-stream");
            long ms = (System.nanoTime() - start) / 1_000_000;
            LOG.info("FIGURE {}: 64 MiB multipart put (8 MiB parts, 4 in flight) on MinIO took {} ms ({} MiB/s)",
                    client(), ms, ms == 0 ? "-" : String.format("%.0f", 64_000.0 / ms));
            assertThat(store64.get(prefix + "64mib")).isEqualTo(content);
            assertThat(head(prefix + "64mib").eTag()).as("a multipart ETag ends in -<parts>").endsWith("-8\"");
        }
    }

    /**
     * The object as MinIO holds it, read by the assertion-side client, which sends again on a connection the server
     * has closed. The adapter's own client does not (by design), and MinIO closes a connection idle for 30 s, which a
     * pooled one of {@link #store} reaches between two tests of a loaded run.
     */
    private byte[] stored(String key) {
        return minio.client().getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
    }

    private HeadObjectResponse head(String key) {
        return minio.client().headObject(b -> b.bucket(bucket).key(key));
    }

    private Set<String> tags(String key) {
        return minio.client().getObjectTagging(b -> b.bucket(bucket).key(key)).tagSet().stream()
                .map((Tag t) -> t.key() + "=" + t.value()).collect(Collectors.toSet());
    }
}
