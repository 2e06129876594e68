package dev.iggysink.adapters.s3.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.iggysink.adapters.s3.StorageClient;
import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;

/** The shared write path against a recording store: which requests go out, in which order, and what fails. */
class S3WritePathTest {
    private static final long PART = 5L * 1024 * 1024;
    private static final long THRESHOLD = 6L * 1024 * 1024;

    private final Recording store = new Recording();

    @AfterEach
    void tearDown() {
        store.close();
    }

    @Test
    void up_to_the_threshold_is_one_put_above_it_is_multipart() throws Exception {
        store.put("a", FileBytes.of(new byte[(int) THRESHOLD]), "text/plain");
        assertThat(store.calls).containsExactly("PUT a " + THRESHOLD);

        store.calls.clear();
        store.put("b", FileBytes.of(new byte[(int) THRESHOLD + 1]), "text/plain");
        assertThat(store.calls).containsExactly("CREATE b", "PART 1 " + PART, "PART 2 " + (THRESHOLD + 1 - PART),
                "COMPLETE b [1, 2]");
    }

    @Test
    void the_parts_are_the_files_bytes_in_order_across_its_chunks() throws Exception {
        byte[] all = new byte[(int) (2 * PART + 1000)];
        new java.util.Random(3).nextBytes(all);
        // Chunks that do not line up with the parts, as an encoder's buffer leaves them.
        int[] used = {1000, 3 * 1024 * 1024, 0, (int) (2 * PART + 1000) - 1000 - 3 * 1024 * 1024};
        byte[][] chunks = new byte[used.length][];
        int at = 0;
        for (int i = 0; i < used.length; i++) {
            chunks[i] = java.util.Arrays.copyOfRange(all, at, at + used[i]);
            at += used[i];
        }

        store.put("k", FileBytes.ofChunks(chunks, used), "text/plain");

        java.io.ByteArrayOutputStream sent = new java.io.ByteArrayOutputStream();
        for (int n = 1; n <= 3; n++) sent.writeBytes(store.sentParts.get(n));
        assertThat(sent.toByteArray()).isEqualTo(all);
        assertThat(store.sentParts.get(1)).hasSize((int) PART);
    }

    @Test
    void a_failed_part_aborts_the_upload_and_a_failed_abort_is_kept_with_the_failure() {
        store.failPart = 2;
        store.failAbort = true;

        assertThatThrownBy(() -> store.put("k", FileBytes.of(new byte[(int) THRESHOLD + 1]), "text/plain"))
                .isInstanceOf(StoreException.class).hasMessage("UPLOAD PART 2 failed")
                .satisfies(e -> assertThat(e.getSuppressed()).extracting(Throwable::getMessage)
                        .containsExactly("ABORT failed"));
        assertThat(store.calls).startsWith("CREATE k").endsWith("ABORT k").doesNotContain("COMPLETE k [1, 2]");
    }

    @Test
    void a_failed_completion_aborts_the_upload() {
        store.failComplete = true;

        assertThatThrownBy(() -> store.put("k", FileBytes.of(new byte[(int) THRESHOLD + 1]), "text/plain"))
                .hasMessage("COMPLETE failed");
        assertThat(store.calls).last().isEqualTo("ABORT k");
    }

    @Test
    void the_probe_writes_an_empty_object_and_a_failed_delete_does_not_fail_it() throws Exception {
        store.failDelete = true;

        store.probe();

        assertThat(store.calls).containsExactly("PUT (startup probe) .iggy-sink-probe 0",
                "DELETE .iggy-sink-probe");
    }

    @Test
    void the_probe_fails_when_its_put_fails() {
        store.failPut = true;

        assertThatThrownBy(store::probe).hasMessage("PUT (startup probe) failed");
        assertThat(store.calls).containsExactly("PUT (startup probe) .iggy-sink-probe 0");
    }

    @Test
    void metadata_goes_with_the_single_put_and_with_the_start_of_a_multipart_upload_not_with_its_parts()
            throws Exception {
        Map<String, String> meta = Map.of("iggy-offsets", "0-9", "iggy-first", "0/1/2");
        store.put("a", FileBytes.of(new byte[10]), "text/plain", meta);
        store.put("b", FileBytes.of(new byte[(int) THRESHOLD + 1]), "text/plain", meta);

        assertThat(store.calls).containsExactly("PUT a 10 {iggy-first=0/1/2, iggy-offsets=0-9}",
                "CREATE b {iggy-first=0/1/2, iggy-offsets=0-9}", "PART 1 " + PART,
                "PART 2 " + (THRESHOLD + 1 - PART), "COMPLETE b [1, 2]");
    }

    @Test
    void metadata_s3_would_refuse_or_a_header_could_not_carry_is_refused_for_good_before_any_request() {
        String big = "v".repeat(2048); // with the name, one byte over S3's 2 KiB
        for (Map<String, String> bad : List.of(Map.of("Upper", "v"), Map.of("under_score", "v"), Map.of("", "v"),
                Map.of("k", "line\r\nx-amz-acl: public-read"), Map.of("k", "caf\u00e9"), Map.of("k", big))) {
            for (ThrowingCall call : List.<ThrowingCall>of(
                    () -> store.put("k", FileBytes.of(new byte[1]), "text/plain", bad),
                    () -> store.put("k", FileBytes.of(new byte[(int) THRESHOLD + 1]), "text/plain", bad),
                    () -> store.create("k", new byte[1], bad))) {
                assertThatThrownBy(call::run).as("%s", bad).isInstanceOfSatisfying(StoreException.class, e -> {
                    assertThat(e.retryable()).isFalse();
                    assertThat(e.httpStatus()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("s3://bucket/k").contains("user metadata")
                            .doesNotContain("\r").doesNotContain("\n");
                });
            }
        }
        assertThat(store.calls).isEmpty();
    }

    @Test
    void create_is_a_conditional_put_and_the_stores_refusals_mean_the_key_is_taken() throws Exception {
        assertThat(store.create("c", new byte[3], Map.of("n", "v"))).isTrue();
        store.createStatus = 412;
        assertThat(store.create("c", new byte[3], Map.of())).as("412 PreconditionFailed").isFalse();
        store.createStatus = 409;
        assertThat(store.create("c", new byte[3], Map.of())).as("409 ConditionalRequestConflict").isFalse();
        store.createStatus = 503;
        assertThatThrownBy(() -> store.create("c", new byte[3], Map.of()))
                .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.retryable()).isTrue());
        store.createStatus = 403;
        assertThatThrownBy(() -> store.create("c", new byte[3], Map.of()))
                .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.httpStatus()).isEqualTo(403));

        assertThat(store.calls).first().isEqualTo("PUT If-None-Match c 3 {n=v}");
        assertThat(store.calls).hasSize(5);
    }

    /**
     * A replace is one PUT with If-Match whatever the size; the store's answers that another version is there (412),
     * that another conditional write won (409) or that the object is gone (404 NoSuchKey) mean "not replaced", while
     * a missing bucket, a refusal and an outage are failures.
     */
    @Test
    void replace_is_one_put_if_match_and_only_the_stores_version_answers_mean_not_replaced() throws Exception {
        assertThat(store.replace("m", new byte[(int) THRESHOLD + 1], "application/json", "\"e1\"")).isTrue();
        assertThat(store.calls).containsExactly("PUT If-Match \"e1\" m " + (THRESHOLD + 1));

        for (String[] refused : new String[][] {{"412", "PreconditionFailed"}, {"409", "ConditionalRequestConflict"},
                {"404", "NoSuchKey"}}) {
            store.replaceFailure = StoreFailures.fromStatus("PUT If-Match", "bucket", "m",
                    Integer.parseInt(refused[0]), refused[1], null, null, null);
            assertThat(store.replace("m", new byte[3], "application/json", "\"e1\"")).as(refused[1]).isFalse();
        }
        for (String[] failed : new String[][] {{"404", "NoSuchBucket"}, {"403", "AccessDenied"},
                {"503", "SlowDown"}}) {
            StoreException answer = StoreFailures.fromStatus("PUT If-Match", "bucket", "m",
                    Integer.parseInt(failed[0]), failed[1], null, null, null);
            store.replaceFailure = answer;
            assertThatThrownBy(() -> store.replace("m", new byte[3], "application/json", "\"e1\""))
                    .as(failed[1]).isSameAs(answer);
        }
        store.calls.clear();
        assertThatThrownBy(() -> store.replace("m", new byte[3], "application/json", null))
                .as("no ETag was read").isInstanceOfSatisfying(StoreException.class, e -> {
                    assertThat(e.retryable()).isFalse();
                    assertThat(e.getMessage()).contains("s3://bucket/m").contains("no ETag");
                });
        assertThat(store.calls).isEmpty();
    }

    /**
     * A file written conditionally (the first-offset key layout): one conditional PUT up to the threshold; above it a
     * multipart upload whose completion carries the condition, its parts aborted when the key is taken.
     */
    @Test
    void a_file_created_conditionally_is_one_conditional_put_or_a_multipart_upload_completed_conditionally()
            throws Exception {
        assertThat(store.create("a", FileBytes.of(new byte[(int) THRESHOLD]), "text/plain", Map.of("n", "v")))
                .isTrue();
        assertThat(store.calls).containsExactly("PUT If-None-Match a " + THRESHOLD + " {n=v}");

        store.calls.clear();
        assertThat(store.create("b", FileBytes.of(new byte[(int) THRESHOLD + 1]), "text/plain", Map.of())).isTrue();
        assertThat(store.calls).containsExactly("CREATE b", "PART 1 " + PART, "PART 2 " + (THRESHOLD + 1 - PART),
                "COMPLETE If-None-Match b [1, 2]");

        store.calls.clear();
        store.createStatus = 412;
        assertThat(store.create("b", FileBytes.of(new byte[(int) THRESHOLD + 1]), "text/plain", Map.of()))
                .as("412 on the completion: the key is taken").isFalse();
        assertThat(store.calls).containsExactly("CREATE b", "PART 1 " + PART, "PART 2 " + (THRESHOLD + 1 - PART),
                "ABORT b");
    }

    @Test
    void delete_is_one_delete_request() throws Exception {
        store.delete("gone");

        assertThat(store.calls).containsExactly("DELETE gone");
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws Exception;
    }

    private static StorageSettings settings() {
        return new StorageSettings("bucket", "us-east-1", Optional.empty(), false, Optional.empty(),
                Optional.empty(), StorageClient.AWS, THRESHOLD, PART, 1, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Map.of(), Duration.ofSeconds(5));
    }

    private static final class Recording extends S3WritePath<Integer> {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        final Map<Integer, byte[]> sentParts = new java.util.concurrent.ConcurrentHashMap<>();
        int failPart;
        boolean failAbort;
        boolean failComplete;
        boolean failDelete;
        boolean failPut;
        /** The status {@code putObjectIfAbsent} fails with; 0 for none. */
        int createStatus;

        Recording() {
            super(settings(), "test");
        }

        @Override
        protected void putObject(String operation, String key, FileBytes content, String contentType,
                                 Map<String, String> metadata) throws StoreException {
            calls.add(operation + " " + key + " " + content.length() + (metadata.isEmpty() ? "" : " " + metadata));
            if (failPut) throw failure(operation);
        }

        @Override
        protected void putObjectIfAbsent(String key, FileBytes content, String contentType,
                                         Map<String, String> metadata) throws StoreException {
            calls.add("PUT If-None-Match " + key + " " + content.length() + " " + metadata);
            if (createStatus != 0) {
                throw new StoreException("PUT If-None-Match failed (" + createStatus + ")",
                        StoreFailures.retryableStatus(createStatus), createStatus, null, null);
            }
        }

        /** The answer {@code putObjectIfMatch} fails with (status, S3 error code); none when null. */
        StoreException replaceFailure;

        @Override
        protected void putObjectIfMatch(String key, FileBytes content, String contentType, String etag)
                throws StoreException {
            calls.add("PUT If-Match " + etag + " " + key + " " + content.length());
            if (replaceFailure != null) throw replaceFailure;
        }

        @Override
        public Optional<Map<String, String>> metadata(String key) {
            return Optional.empty();
        }

        @Override
        protected void deleteObject(String key) throws StoreException {
            calls.add("DELETE " + key);
            if (failDelete) throw failure("DELETE");
        }

        @Override
        protected List<String[]> deleteObjects(List<String> keys) {
            calls.add("DELETE OBJECTS " + String.join(",", keys));
            return List.of();
        }

        @Override
        protected String createMultipartUpload(String key, String contentType, Map<String, String> metadata) {
            calls.add("CREATE " + key + (metadata.isEmpty() ? "" : " " + metadata));
            return "upload-1";
        }

        @Override
        protected Integer uploadPart(String key, String uploadId, PartPlan.Part part, FileBytes content,
                                     String contentType) throws StoreException {
            calls.add("PART " + part.number() + " " + part.length());
            assertThat(content.length()).isEqualTo(part.length());
            sentParts.put(part.number(), content.toByteArray());
            if (part.number() == failPart) throw failure("UPLOAD PART " + part.number());
            return part.number();
        }

        @Override
        protected void completeMultipartUpload(String key, String uploadId, List<Integer> uploaded,
                                               boolean ifNoneMatch) throws StoreException {
            if (failComplete) throw failure("COMPLETE");
            if (ifNoneMatch && createStatus != 0) {
                throw new StoreException("COMPLETE If-None-Match failed (" + createStatus + ")",
                        StoreFailures.retryableStatus(createStatus), createStatus, null, null);
            }
            calls.add("COMPLETE " + (ifNoneMatch ? "If-None-Match " : "") + key + " " + uploaded);
        }

        @Override
        protected void abortMultipartUpload(String key, String uploadId) throws StoreException {
            calls.add("ABORT " + key);
            if (failAbort) throw failure("ABORT");
        }

        private static StoreException failure(String operation) {
            return new StoreException(operation + " failed", false, 0, null, null);
        }

        @Override
        public List<StoredObject> list(String prefix) {
            return List.of();
        }

        @Override
        public byte[] get(String key) {
            return new byte[0];
        }

        @Override
        public byte[] get(String key, long from, int length) {
            return new byte[0];
        }

        @Override
        public void close() {
            parts.shutdown();
        }
    }
}
