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

import dev.iggysink.application.port.out.FileBytes;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.adapters.s3.StorageClient;
import dev.iggysink.adapters.s3.StorageSettings;

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

        Recording() {
            super(settings(), "test");
        }

        @Override
        protected void putObject(String operation, String key, FileBytes content, String contentType)
                throws StoreException {
            calls.add(operation + " " + key + " " + content.length());
            if (failPut) throw failure(operation);
        }

        @Override
        protected void deleteObject(String key) throws StoreException {
            calls.add("DELETE " + key);
            if (failDelete) throw failure("DELETE");
        }

        @Override
        protected String createMultipartUpload(String key, String contentType) {
            calls.add("CREATE " + key);
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
        protected void completeMultipartUpload(String key, String uploadId, List<Integer> uploaded)
                throws StoreException {
            if (failComplete) throw failure("COMPLETE");
            calls.add("COMPLETE " + key + " " + uploaded);
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
        public void close() {
            parts.shutdown();
        }
    }
}
