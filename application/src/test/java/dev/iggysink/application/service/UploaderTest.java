package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.service.UploadResult.Outcome;
import dev.iggysink.domain.buffer.SealedFile;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.retry.Backoff;
import dev.iggysink.domain.retry.RetryPolicy;
import dev.iggysink.domain.rotation.RotationReason;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class UploaderTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final PartitionRef P = new PartitionRef("s", "t", 0);

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private Uploader uploader;

    /** What one upload told its listener, in order. */
    private static final class Heard implements Uploader.Listener {
        final List<String> retries = new CopyOnWriteArrayList<>();
        final List<UploadResult> results = new CopyOnWriteArrayList<>();
        volatile boolean current = true;

        @Override
        public boolean current() {
            return current;
        }

        @Override
        public void retrying(UploadJob job, String error) {
            retries.add(error);
        }

        @Override
        public void done(UploadResult result) {
            results.add(result);
        }

        @Override
        public long committedOffset() {
            return -1; // one member: nobody else commits
        }
    }

    private Uploader uploader(int concurrency, Duration retryDelay) {
        uploader = new Uploader(store, new RetryPolicy(3, new Backoff(retryDelay, retryDelay, 0)),
                InstantSource.system(), SinkMetrics.NONE, concurrency);
        return uploader;
    }

    @AfterEach
    void close() {
        if (uploader != null) uploader.close();
    }

    private static UploadJob job(String key) {
        SealedFile file = new SealedFile(P, key, 0, 0, 1, 3, 0, RotationReason.COUNT);
        return new UploadJob(file, () -> FileBytes.of(new byte[] {1, 2, 3}), "application/octet-stream", 3);
    }

    @Test
    void a_durable_upload_ends_once_and_stores_the_bytes() {
        Heard heard = new Heard();
        uploader(2, Duration.ofMillis(5)).submit(job("a"), heard);

        await().atMost(WAIT).until(() -> heard.results.size() == 1);
        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.DURABLE);
        assertThat(heard.retries).isEmpty();
        assertThat(store.objects()).containsKey("a");
        assertThat(uploader.trouble()).isEmpty();
    }

    /** A job whose bytes count their releases and remember whether the store was still reading them. */
    private static final class Pooled {
        final AtomicInteger releases = new AtomicInteger();
        final AtomicBoolean releasedDuringPut = new AtomicBoolean();
        final AtomicBoolean inPut = new AtomicBoolean();
        final FileBytes bytes = FileBytes.ofChunks(new byte[][] {{1, 2}, {3}}, new int[] {2, 1}, () -> {
            if (inPut.get()) releasedDuringPut.set(true);
            releases.incrementAndGet();
        });

        UploadJob job(String key) {
            SealedFile file = new SealedFile(P, key, 0, 0, 1, 3, 0, RotationReason.COUNT);
            return new UploadJob(file, () -> bytes, "application/octet-stream", 3);
        }
    }

    /** The store under test, marking the time inside each put. */
    private ObjectStore watching(Pooled pooled) {
        return new dev.iggysink.application.fakes.ForwardingObjectStore(store) {
            @Override
            public void put(String key, FileBytes content, String contentType, java.util.Map<String, String> meta)
                    throws StoreException {
                pooled.inPut.set(true);
                try {
                    super.put(key, content, contentType, meta);
                } finally {
                    pooled.inPut.set(false);
                }
            }
        };
    }

    @Test
    void a_durable_file_is_released_for_reuse_once_after_its_put_returned_and_never_while_it_is_retried() {
        Pooled pooled = new Pooled();
        store.failNext(InMemoryObjectStore.unavailable(), InMemoryObjectStore.unavailable());
        uploader = new Uploader(watching(pooled), new RetryPolicy(5, new Backoff(Duration.ofMillis(5),
                Duration.ofMillis(5), 0)), InstantSource.system(), SinkMetrics.NONE, 2);
        Heard heard = new Heard();
        uploader.submit(pooled.job("a"), heard);

        await().atMost(WAIT).until(() -> heard.results.size() == 1);
        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.DURABLE);
        assertThat(heard.retries).hasSize(2);
        assertThat(store.objects().get("a")).containsExactly(1, 2, 3);
        assertThat(pooled.releases.get()).isEqualTo(1);
        assertThat(pooled.releasedDuringPut.get()).isFalse();
    }

    @Test
    void a_refused_file_is_not_released_since_nothing_says_no_one_reads_it() {
        Pooled pooled = new Pooled();
        store.refuseKeys(k -> true);
        uploader = new Uploader(watching(pooled), new RetryPolicy(3, new Backoff(Duration.ofMillis(5),
                Duration.ofMillis(5), 0)), InstantSource.system(), SinkMetrics.NONE, 1);
        Heard heard = new Heard();
        uploader.submit(pooled.job("a"), heard);

        await().atMost(WAIT).until(() -> heard.results.size() == 1);
        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(pooled.releases.get()).isZero();
    }

    @Test
    void a_retry_waits_without_a_pool_thread_so_other_files_go_up_meanwhile() {
        store.failKeys(k -> k.equals("stuck"));
        Heard stuck = new Heard();
        Heard other = new Heard();
        uploader(1, Duration.ofMillis(200)).submit(job("stuck"), stuck);
        await().atMost(WAIT).until(() -> !stuck.retries.isEmpty());
        uploader.submit(job("other"), other);

        await().atMost(WAIT).until(() -> other.results.size() == 1);
        assertThat(other.results.get(0).durable()).isTrue();
        assertThat(uploader.trouble()).hasValueSatisfying(t -> assertThat(t).startsWith("object store failing since"));

        store.failKeys(k -> false);
        await().atMost(WAIT).until(() -> stuck.results.size() == 1);
        assertThat(stuck.results.get(0).durable()).isTrue();
        assertThat(uploader.trouble()).isEmpty();
    }

    /** Uploads {@code key} alone on {@code uploader} and returns what its listener heard once it ended. */
    private static Heard uploadAlone(Uploader uploader, String key) {
        Heard heard = new Heard();
        uploader.submit(job(key), heard);
        await().atMost(WAIT).until(() -> heard.results.size() == 1);
        return heard;
    }

    @Test
    void a_refusal_ends_the_upload_at_once_as_refused() {
        store.failNext(new StoreException("400 InvalidArgument on PutObject", false, 400, null, null));
        Heard heard = uploadAlone(uploader(1, Duration.ofMillis(5)), "bad");

        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(heard.results.get(0).error()).hasValueSatisfying(e -> assertThat(e).contains("400"));
        assertThat(store.putAttempts()).isEqualTo(1);
        assertThat(heard.retries).isEmpty();
    }

    @Test
    void a_403_that_lasts_through_the_policys_attempts_ends_as_refused() {
        store.refuseKeys(k -> true);
        Heard heard = uploadAlone(uploader(1, Duration.ofMillis(5)), "denied");

        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(heard.results.get(0).error()).hasValueSatisfying(e -> assertThat(e).contains("403"));
        assertThat(store.putAttempts()).isEqualTo(3);
        assertThat(heard.retries).hasSize(2);
    }

    /** MinIO answered a fresh put 403 once while a key beside it was deleted; AWS does while a new grant spreads. */
    @Test
    void a_403_that_passes_is_retried_and_the_upload_is_durable() {
        store.failNext(InMemoryObjectStore.forbidden());
        Heard heard = uploadAlone(uploader(1, Duration.ofMillis(5)), "k");

        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.DURABLE);
        assertThat(heard.retries).singleElement().asString().contains("403");
        assertThat(store.objects()).containsKey("k");
    }

    @Test
    void with_no_retries_configured_a_403_ends_the_upload_at_once() {
        store.refuseKeys(k -> true);
        uploader = new Uploader(store, new RetryPolicy(0, new Backoff(Duration.ofMillis(5), Duration.ofMillis(5), 0)),
                InstantSource.system(), SinkMetrics.NONE, 1);
        Heard heard = uploadAlone(uploader, "denied");

        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(store.putAttempts()).isEqualTo(1);
    }

    @Test
    void a_runtime_exception_from_the_store_is_retried() {
        int[] calls = {0};
        store.throwOnKeys(k -> calls[0]++ == 0, () -> new IllegalStateException("adapter bug"));
        Heard heard = new Heard();
        uploader(1, Duration.ofMillis(5)).submit(job("k"), heard);

        await().atMost(WAIT).until(() -> heard.results.size() == 1);
        assertThat(heard.results.get(0).durable()).isTrue();
        assertThat(heard.retries).singleElement().asString().contains("adapter bug");
    }

    @Test
    void a_file_that_cannot_be_built_is_refused_and_an_error_is_fatal() {
        SealedFile file = new SealedFile(P, "k", 0, 0, 1, 3, 0, RotationReason.COUNT);
        Heard broken = new Heard();
        Heard fatal = new Heard();
        uploader(1, Duration.ofMillis(5));
        uploader.submit(new UploadJob(file, () -> {
            throw new IllegalStateException("compressor broke");
        }, "x", 3), broken);
        uploader.submit(new UploadJob(file, () -> {
            throw new StackOverflowError("simulated");
        }, "x", 3), fatal);

        await().atMost(WAIT).until(() -> broken.results.size() == 1 && fatal.results.size() == 1);
        assertThat(broken.results.get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(broken.results.get(0).fatal()).isFalse();
        assertThat(fatal.results.get(0).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(fatal.results.get(0).fatal()).isTrue();
        assertThat(store.putAttempts()).isZero();
    }

    @Test
    void abandon_ends_waiting_queued_and_later_uploads_as_given_up_and_is_no_recovery() {
        store.down(InMemoryObjectStore.unavailable());
        Heard waiting = new Heard();
        Heard later = new Heard();
        uploader(1, Duration.ofSeconds(30)).submit(job("w"), waiting);
        await().atMost(WAIT).until(() -> !waiting.retries.isEmpty());

        uploader.abandon();
        uploader.submit(job("l"), later);

        await().atMost(WAIT).until(() -> waiting.results.size() == 1 && later.results.size() == 1);
        assertThat(waiting.results.get(0).outcome()).isEqualTo(Outcome.GAVE_UP);
        assertThat(later.results.get(0).outcome()).isEqualTo(Outcome.GAVE_UP);
        assertThat(uploader.trouble()).isEmpty();
    }

    @Test
    void the_first_file_since_an_assignment_is_not_uploaded_when_another_copy_of_its_start_appeared() throws Exception {
        store.put("p/00000-00000000000000000000-00000000000000000049.jsonl", new byte[] {9}, "x");
        SealedFile file = new SealedFile(P, "p/00000-00000000000000000000-00000000000000000099.jsonl", 0, 99, 100, 3,
                0, RotationReason.COUNT);
        Heard heard = new Heard();
        uploader(1, Duration.ofMillis(5)).submit(new UploadJob(file, () -> FileBytes.of(new byte[] {1}), "x", 3, true), heard);

        await().atMost(WAIT).until(() -> heard.results.size() == 1);
        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.SUPERSEDED);
        assertThat(heard.results.get(0).supersededUpTo()).isEqualTo(49);
        assertThat(store.objects()).doesNotContainKey(file.key());
    }

    @Test
    void the_same_file_written_before_is_not_another_copy() {
        SealedFile file = new SealedFile(P, "p/00000-00000000000000000000-00000000000000000099.jsonl", 0, 99, 100, 3,
                0, RotationReason.COUNT);
        Heard again = new Heard();
        uploader(1, Duration.ofMillis(5)).submit(new UploadJob(file, () -> FileBytes.of(new byte[] {1}), "x", 3, true), again);
        await().atMost(WAIT).until(() -> again.results.size() == 1);
        Heard twice = new Heard();
        uploader.submit(new UploadJob(file, () -> FileBytes.of(new byte[] {1}), "x", 3, true), twice);

        await().atMost(WAIT).until(() -> twice.results.size() == 1);
        assertThat(twice.results.get(0).outcome()).isEqualTo(Outcome.DURABLE);
        assertThat(store.overwrites()).isEqualTo(1);
    }

    @Test
    void an_upload_waiting_for_its_retry_ends_at_once_when_its_partition_is_lost() {
        store.failKeys(k -> true);
        Heard heard = new Heard();
        uploader(1, Duration.ofSeconds(30)).submit(job("lost"), heard);
        await().atMost(WAIT).until(() -> heard.retries.size() == 1);

        heard.current = false;
        uploader.dropLost();

        await().atMost(WAIT).until(() -> heard.results.size() == 1);
        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.GAVE_UP);
        assertThat(heard.results.get(0).error()).hasValueSatisfying(e -> assertThat(e).contains("partition was lost"));
        assertThat(store.putAttempts()).isEqualTo(1);
        // Given up on, not recovered: the store is still failing as far as anyone knows.
        assertThat(uploader.trouble()).isEmpty();
    }

    @Test
    void an_upload_still_wanted_is_not_ended_by_the_loss_of_another_partition() {
        store.failKeys(k -> true);
        Heard lost = new Heard();
        Heard kept = new Heard();
        uploader(1, Duration.ofSeconds(30));
        uploader.submit(job("lost"), lost);
        uploader.submit(job("kept"), kept);
        await().atMost(WAIT).until(() -> lost.retries.size() == 1 && kept.retries.size() == 1);

        lost.current = false;
        uploader.dropLost();

        await().atMost(WAIT).until(() -> lost.results.size() == 1);
        assertThat(kept.results).isEmpty();
        assertThat(uploader.trouble()).isPresent();
    }

    @Test
    void an_upload_no_longer_wanted_before_its_first_attempt_is_never_tried() {
        Heard heard = new Heard();
        heard.current = false;
        uploader(1, Duration.ofMillis(5)).submit(job("late"), heard);

        await().atMost(WAIT).until(() -> heard.results.size() == 1);
        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.GAVE_UP);
        assertThat(store.putAttempts()).isZero();
    }

    @Test
    void a_failed_attempt_of_an_upload_no_longer_wanted_is_not_retried() {
        Heard heard = new Heard();
        // The partition is lost while the PUT is under way; the PUT then fails retryably.
        store.throwOnKeys(k -> {
            heard.current = false;
            return false;
        }, () -> null);
        store.failKeys(k -> true);
        uploader(1, Duration.ofMillis(5)).submit(job("k"), heard);

        await().atMost(WAIT).until(() -> heard.results.size() == 1);
        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.GAVE_UP);
        assertThat(heard.retries).isEmpty();
        assertThat(store.putAttempts()).isEqualTo(1);
    }

    @Test
    void a_store_that_answers_the_probe_but_fails_a_put_keeps_that_put_to_its_backoff() {
        store.failKeys(k -> k.equals("stuck"));
        Heard stuck = new Heard();
        uploader(1, Duration.ofHours(1)).submit(job("stuck"), stuck);
        await().atMost(WAIT).until(() -> stuck.retries.size() == 1);

        // Two probes answered: had either woken the upload, it would have been tried again by now.
        await().atMost(WAIT).until(() -> store.headCalls() >= 2);
        assertThat(store.putAttempts(k -> k.equals("stuck"))).isEqualTo(1);
        assertThat(stuck.results).isEmpty();
    }

    @Test
    void a_store_seen_down_by_the_probe_and_then_answering_gets_the_waiting_uploads_at_once() {
        store.down(InMemoryObjectStore.unavailable());
        Heard heard = new Heard();
        uploader(2, Duration.ofHours(1)).submit(job("a"), heard);
        await().atMost(WAIT).until(() -> heard.retries.size() == 1);
        await().atMost(WAIT).until(() -> store.headCalls() >= 1);

        store.up();
        await().atMost(WAIT).until(() -> heard.results.size() == 1);
        assertThat(heard.results.get(0).outcome()).isEqualTo(Outcome.DURABLE);
        assertThat(store.objects()).containsKey("a");
        assertThat(uploader.trouble()).isEmpty();
    }
}
