package dev.iggysink.adapters.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;

/**
 * What every {@link ObjectStore} must do, run against the in-memory fake and each real adapter (this module's test-jar
 * carries it to adapters outside it). Each test writes under its own key prefix, so implementations may share one
 * bucket per class. For a store without credentials or buckets (a directory), "wrong secret" means a place the sink
 * may not write and "bucket" means its root directory.
 *
 * <p>Sizes: a 5 MiB part and a 6 MiB threshold keep multipart cases small; implementations must be configured with
 * {@link #PART_SIZE} and {@link #THRESHOLD}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ObjectStoreContract {
    protected static final int MIB = 1024 * 1024;
    protected static final long PART_SIZE = 5L * MIB;
    protected static final long THRESHOLD = 6L * MIB;
    protected static final String PROBE_KEY = ".iggy-sink-probe";

    /** The store under test, with {@link #PART_SIZE} and {@link #THRESHOLD}. Shared by the tests of a class. */
    protected abstract ObjectStore store();

    /** A store on the same server whose secret is wrong. */
    protected abstract ObjectStore storeWithWrongSecret();

    /** The wrong secret {@link #storeWithWrongSecret()} uses: it must never appear in a failure. */
    protected abstract String wrongSecret();

    /** A store on the same server whose bucket is {@link #missingBucketName()}, which does not exist. */
    protected abstract ObjectStore storeOnMissingBucket();

    protected abstract String missingBucketName();

    /** What the failure on a missing bucket must say: that the sink will not make one itself. */
    protected String doesNotCreateTheBucket() {
        return "does not create buckets";
    }

    /**
     * Whether {@link ObjectStore#create} is refused for a key that exists ({@code If-None-Match: *} honoured). A store
     * that ignores the condition overwrites and answers true; the sink finds that out at start by creating one key
     * twice, so such a store must answer exactly that way.
     */
    protected boolean honoursConditionalWrites() {
        return true;
    }

    /**
     * Whether of replaces racing from one version exactly one passes its If-Match: so on S3, MinIO and a directory;
     * a test double may check the condition and write in two steps.
     */
    protected boolean replacesAtomically() {
        return true;
    }

    protected String prefix;

    @BeforeEach
    void prefixPerTest(TestInfo info) {
        prefix = info.getTestMethod().orElseThrow().getName().toLowerCase(Locale.ROOT)
                + "-" + Integer.toHexString(info.getDisplayName().hashCode()) + "/";
    }

    /**
     * {@code content} as an encoder hands a sealed file over: in chunks that double from 64 KiB up to 4 MiB (less a
     * header slack), with an empty chunk among them and spare room after each, so a single PUT and the multipart
     * parts (5 MiB, cut across chunks) are sent from chunk views, never from one array.
     */
    protected static FileBytes chunked(byte[] content) {
        List<byte[]> chunks = new ArrayList<>();
        List<Integer> used = new ArrayList<>();
        int at = 0;
        int size = 64 * 1024 - 64;
        while (at < content.length || chunks.isEmpty()) {
            int n = Math.min(size, content.length - at);
            byte[] chunk = new byte[n + 7];
            System.arraycopy(content, at, chunk, 0, n);
            java.util.Arrays.fill(chunk, n, chunk.length, (byte) 0x5a); // never to be sent
            chunks.add(chunk);
            used.add(n);
            if (chunks.size() == 1) {
                chunks.add(new byte[3]);
                used.add(0);
            }
            at += n;
            size = Math.min(2 * (size + 64) - 64, 4 * MIB - 64);
        }
        return FileBytes.ofChunks(chunks.toArray(new byte[0][]),
                used.stream().mapToInt(Integer::intValue).toArray());
    }

    protected static byte[] bytes(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void a_small_object_round_trips_byte_for_byte() throws Exception {
        byte[] content = bytes(1000, 1);
        store().put(prefix + "small.bin", chunked(content), "application/octet-stream");

        assertThat(store().get(prefix + "small.bin")).isEqualTo(content);
        assertThat(store().list(prefix)).containsExactly(new StoredObject(prefix + "small.bin", 1000));
    }

    /** Characters a key template or a header value can bring: each must reach the store as itself. */
    @Test
    void keys_with_spaces_reserved_and_non_ascii_characters_round_trip() throws Exception {
        List<String> keys = List.of(
                prefix + "a b/c+d/e%25f/g%h.json",
                prefix + "ü/日本/emoji-\uD83D\uDE00.json",
                prefix + "x~y*z'(q)!=&;,$@:.json");
        for (int i = 0; i < keys.size(); i++) {
            store().put(keys.get(i), chunked(bytes(500 + i, 20 + i)), "text/plain");
        }
        for (int i = 0; i < keys.size(); i++) {
            assertThat(store().get(keys.get(i))).as(keys.get(i)).isEqualTo(bytes(500 + i, 20 + i));
        }
        assertThat(store().list(prefix)).extracting(StoredObject::key).containsExactlyInAnyOrderElementsOf(keys);
    }

    @Test
    void an_empty_object_round_trips() throws Exception {
        store().put(prefix + "empty.jsonl", chunked(new byte[0]), "application/x-ndjson");

        assertThat(store().get(prefix + "empty.jsonl")).isEmpty();
        assertThat(store().list(prefix)).containsExactly(new StoredObject(prefix + "empty.jsonl", 0));
    }

    /** Regression: a server that mishandles empty bodies can break the next request on the same connection. */
    @Test
    void empty_puts_probes_and_gets_in_a_row_all_succeed() throws Exception {
        for (int i = 0; i < 15; i++) {
            store().put(prefix + "e" + i, chunked(new byte[0]), "text/plain");
            assertThat(store().get(prefix + "e" + i)).isEmpty();
            store().probe();
        }
        assertThat(store().list(prefix)).hasSize(15);
    }

    /** Below, at and just above the threshold, and a three-part object whose last part is short. */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(longs = {THRESHOLD - 1, THRESHOLD, THRESHOLD + 1, 2 * PART_SIZE + 17})
    void objects_around_the_multipart_threshold_round_trip_byte_for_byte(long size) throws Exception {
        byte[] content = bytes((int) size, size);
        String key = prefix + "object-" + size + ".bin";
        store().put(key, chunked(content), "application/octet-stream");

        assertThat(store().get(key)).isEqualTo(content);
        assertThat(store().list(prefix)).containsExactly(new StoredObject(key, size));
    }

    @Test
    void a_put_replaces_the_object_whatever_the_sizes() throws Exception {
        String key = prefix + "file.jsonl";
        byte[] big = bytes((int) THRESHOLD + 10, 2);
        byte[] small = bytes(300, 3);

        store().put(key, chunked(big), "application/x-ndjson");
        store().put(key, chunked(small), "application/x-ndjson");
        assertThat(store().get(key)).isEqualTo(small);
        assertThat(store().list(prefix)).containsExactly(new StoredObject(key, 300));

        store().put(key, chunked(big), "application/x-ndjson");
        assertThat(store().get(key)).isEqualTo(big);
        assertThat(store().list(prefix)).containsExactly(new StoredObject(key, big.length));
    }

    @Test
    void putting_the_same_bytes_twice_leaves_one_identical_object() throws Exception {
        byte[] content = bytes(4096, 4);
        FileBytes file = chunked(content);
        store().put(prefix + "same", file, "application/octet-stream");
        store().put(prefix + "same", file, "application/octet-stream"); // a retry sends the same bytes again

        assertThat(store().list(prefix)).containsExactly(new StoredObject(prefix + "same", 4096));
        assertThat(store().get(prefix + "same")).isEqualTo(content);
    }

    @Test
    void list_gives_the_keys_under_a_prefix_in_order_with_sizes() throws Exception {
        store().put(prefix + "b/2", chunked(bytes(2, 5)), "text/plain");
        store().put(prefix + "a/1", chunked(bytes(1, 5)), "text/plain");
        store().put(prefix + "a/3", chunked(bytes(3, 5)), "text/plain");
        store().put(prefix + "ab", chunked(bytes(4, 5)), "text/plain");

        assertThat(store().list(prefix + "a/")).containsExactly(
                new StoredObject(prefix + "a/1", 1), new StoredObject(prefix + "a/3", 3));
        assertThat(store().list(prefix)).extracting(StoredObject::key)
                .containsExactly(prefix + "a/1", prefix + "a/3", prefix + "ab", prefix + "b/2");
        assertThat(store().list(prefix + "nothing-here/")).isEmpty();
    }

    /** What the self-audit's rounds list: only the keys of its windows (S3's start-after, no page past the last). */
    @Test
    void list_of_a_range_gives_only_the_keys_after_its_start_up_to_its_end() throws Exception {
        store().put(prefix + "b/2", chunked(bytes(2, 5)), "text/plain");
        store().put(prefix + "a/1", chunked(bytes(1, 5)), "text/plain");
        store().put(prefix + "a/3", chunked(bytes(3, 5)), "text/plain");
        store().put(prefix + "ab", chunked(bytes(4, 5)), "text/plain");

        assertThat(store().list(prefix, prefix + "a/1", "")).containsExactly(new StoredObject(prefix + "a/3", 3),
                new StoredObject(prefix + "ab", 4), new StoredObject(prefix + "b/2", 2));
        assertThat(store().list(prefix, prefix + "a/2", "")).extracting(StoredObject::key)
                .containsExactly(prefix + "a/3", prefix + "ab", prefix + "b/2");
        assertThat(store().list(prefix, prefix + "a", "")).extracting(StoredObject::key)
                .containsExactly(prefix + "a/1", prefix + "a/3", prefix + "ab", prefix + "b/2");
        assertThat(store().list(prefix + "a/", prefix + "a/3", "")).isEmpty();
        assertThat(store().list(prefix, prefix + "c", "")).isEmpty();
        // A range: after one key, up to another (included), and up to a key that is not there.
        assertThat(store().list(prefix, prefix + "a/1", prefix + "ab")).extracting(StoredObject::key)
                .containsExactly(prefix + "a/3", prefix + "ab");
        assertThat(store().list(prefix, "", prefix + "a/4")).extracting(StoredObject::key)
                .containsExactly(prefix + "a/1", prefix + "a/3");
    }

    /** What the recovery reads of an object without metadata: its first and its last bytes. */
    @Test
    void a_ranged_get_reads_the_bytes_asked_for_and_fewer_at_the_end() throws Exception {
        byte[] content = bytes(1000, 7);
        store().put(prefix + "ranged.jsonl", chunked(content), "application/x-ndjson");
        store().put(prefix + "empty.jsonl", chunked(new byte[0]), "application/x-ndjson");

        assertThat(store().get(prefix + "ranged.jsonl", 0, 10)).isEqualTo(Arrays.copyOfRange(content, 0, 10));
        assertThat(store().get(prefix + "ranged.jsonl", 990, 64)).isEqualTo(Arrays.copyOfRange(content, 990, 1000));
        assertThat(store().get(prefix + "ranged.jsonl", 123, 1)).containsExactly(content[123]);
        assertThat(store().get(prefix + "ranged.jsonl", 0, 5000)).isEqualTo(content);
        assertThat(store().get(prefix + "ranged.jsonl", 1000, 10)).isEmpty();
        assertThat(store().get(prefix + "empty.jsonl", 0, 10)).isEmpty();
        StoreException e = catchThrowableOfType(StoreException.class, () -> store().get(prefix + "absent", 0, 10));
        assertThat(e).isNotNull();
        assertThat(e.httpStatus()).isEqualTo(404);
        assertThat(e.getMessage()).contains(prefix + "absent");
    }

    @Test
    void getting_a_missing_key_is_a_final_404() {
        StoreException e = catchThrowableOfType(StoreException.class, () -> store().get(prefix + "absent"));

        assertThat(e).isNotNull();
        assertThat(e.retryable()).isFalse();
        assertThat(e.httpStatus()).isEqualTo(404);
        assertThat(e.getMessage()).contains(prefix + "absent");
    }

    @Test
    void the_probe_succeeds_and_leaves_no_object_behind() throws Exception {
        store().probe();
        store().probe();

        assertThat(store().list(PROBE_KEY)).isEmpty();
    }

    @Test
    void a_wrong_secret_is_a_final_403_that_names_the_operation_and_key_but_not_the_secret() {
        String key = prefix + "denied.bin";
        StoreException e = catchThrowableOfType(StoreException.class,
                () -> storeWithWrongSecret().put(key, chunked(bytes(10, 6)), "application/octet-stream"));

        assertThat(e).isNotNull();
        assertThat(e.retryable()).isFalse();
        assertThat(e.httpStatus()).isEqualTo(403);
        assertThat(e.getMessage()).contains("PUT").contains(key);
        assertThat(everythingPrinted(e)).doesNotContain(wrongSecret());
    }

    @Test
    void the_probe_fails_on_a_wrong_secret() {
        assertThatThrownBy(() -> storeWithWrongSecret().probe())
                .isInstanceOfSatisfying(StoreException.class, e -> {
                    assertThat(e.retryable()).isFalse();
                    assertThat(e.httpStatus()).isEqualTo(403);
                    assertThat(e.getMessage()).contains(PROBE_KEY);
                    assertThat(everythingPrinted(e)).doesNotContain(wrongSecret());
                });
    }

    @Test
    void a_missing_bucket_is_final_and_says_the_sink_does_not_create_buckets() {
        for (ThrowingCall call : List.<ThrowingCall>of(
                () -> storeOnMissingBucket().put(prefix + "x", chunked(bytes(10, 7)), "text/plain"),
                () -> storeOnMissingBucket().probe(),
                () -> storeOnMissingBucket().put(prefix + "big", chunked(bytes((int) THRESHOLD + 1, 7)),
                        "text/plain"))) {
            StoreException e = catchThrowableOfType(StoreException.class, call::run);
            assertThat(e).isNotNull();
            assertThat(e.retryable()).as(e.getMessage()).isFalse();
            assertThat(e.httpStatus()).as(e.getMessage()).isEqualTo(404);
            assertThat(e.getMessage()).contains("'" + missingBucketName() + "'").contains(doesNotCreateTheBucket());
        }
    }

    @Test
    void concurrent_puts_all_land() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<byte[]>> writes = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int n = i;
                writes.add(pool.submit(() -> {
                    byte[] content = bytes(n % 3 == 0 ? (int) THRESHOLD + 1000 * n : 1000 * n, n);
                    store().put(prefix + "f" + n, chunked(content), "application/octet-stream");
                    return content;
                }));
            }
            for (int i = 0; i < 8; i++) {
                byte[] written = writes.get(i).get();
                assertThat(store().get(prefix + "f" + i)).isEqualTo(written);
            }
            assertThat(store().list(prefix)).hasSize(8);
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- user metadata, conditional create, delete ----

    /** Metadata as the sink writes it: offsets, a count and two record identities (a u128 message id among them). */
    protected static final Map<String, String> STAMPS = Map.of(
            "iggy-offsets", "1000-1999",
            "iggy-records", "1000",
            "iggy-first", "1000/340282366920938463463374607431768211455/1767225600000000",
            "iggy-last", "1999/7/1767225600999999");

    @Test
    void user_metadata_round_trips_on_a_small_put_and_on_an_empty_one() throws Exception {
        byte[] content = bytes(70_000, 30);
        store().put(prefix + "small.jsonl", chunked(content), "application/x-ndjson", STAMPS);
        store().put(prefix + "empty.jsonl", chunked(new byte[0]), "application/x-ndjson", Map.of("iggy-records", "0"));

        assertThat(store().metadata(prefix + "small.jsonl")).contains(STAMPS);
        assertThat(store().metadata(prefix + "empty.jsonl")).contains(Map.of("iggy-records", "0"));
        assertThat(store().get(prefix + "small.jsonl")).isEqualTo(content);
        assertThat(store().list(prefix)).containsExactly(new StoredObject(prefix + "empty.jsonl", 0),
                new StoredObject(prefix + "small.jsonl", content.length));
    }

    @Test
    void user_metadata_round_trips_on_a_multipart_put() throws Exception {
        byte[] content = bytes((int) (PART_SIZE + THRESHOLD), 31);
        store().put(prefix + "big.parquet", chunked(content), "application/vnd.apache.parquet", STAMPS);

        assertThat(store().metadata(prefix + "big.parquet")).contains(STAMPS);
        assertThat(store().get(prefix + "big.parquet")).isEqualTo(content);
        assertThat(store().list(prefix)).containsExactly(new StoredObject(prefix + "big.parquet", content.length));
    }

    @Test
    void a_put_replaces_the_metadata_too_and_an_object_put_without_any_has_none() throws Exception {
        String key = prefix + "k.jsonl";
        store().put(key, chunked(bytes(10, 32)), "text/plain", STAMPS);
        store().put(key, chunked(bytes(20, 33)), "text/plain", Map.of("iggy-offsets", "5-6"));
        assertThat(store().metadata(key)).contains(Map.of("iggy-offsets", "5-6"));

        store().put(key, chunked(bytes(30, 34)), "text/plain");
        assertThat(store().metadata(key)).contains(Map.of());
        assertThat(store().get(key)).isEqualTo(bytes(30, 34));
    }

    @Test
    void the_metadata_of_a_missing_key_is_empty() throws Exception {
        assertThat(store().metadata(prefix + "absent")).isEmpty();
        assertThat(store().metadata(prefix + "absent/below")).isEmpty();
    }

    @Test
    void a_second_create_of_a_key_is_refused_and_leaves_the_first_object_and_its_metadata() throws Exception {
        String key = prefix + "00001-00000000000000001000.claim";
        byte[] first = "{\"first\":1000,\"last\":1999}\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] second = "{\"first\":1000,\"last\":1500}\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);

        assertThat(store().create(key, first, Map.of("iggy-offsets", "1000-1999"))).isTrue();
        assertThat(store().metadata(key)).contains(Map.of("iggy-offsets", "1000-1999"));
        boolean again = store().create(key, second, Map.of("iggy-offsets", "1000-1500"));

        if (honoursConditionalWrites()) {
            assertThat(again).as("the key exists: the create is refused").isFalse();
            assertThat(store().get(key)).isEqualTo(first);
            assertThat(store().metadata(key)).contains(Map.of("iggy-offsets", "1000-1999"));
        } else {
            assertThat(again).as("a store that ignores If-None-Match overwrites and says it created").isTrue();
            assertThat(store().get(key)).isEqualTo(second);
        }
        assertThat(store().list(prefix)).extracting(StoredObject::key).containsExactly(key);
    }

    /**
     * A data file under the first-offset key layout is written with the condition on the PUT itself, or on the
     * completion of its multipart upload: a second file at the key is refused and leaves the first one whole.
     */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(longs = {100, THRESHOLD + 1})
    void a_file_created_at_a_taken_key_is_refused_and_leaves_the_first_file(long size) throws Exception {
        String key = prefix + "00001-00000000000000001000.jsonl";
        byte[] first = bytes((int) size, 41);
        Map<String, String> firstStamps = Map.of("iggy-offsets", "1000-1999");

        assertThat(store().create(key, chunked(first), "application/x-ndjson", firstStamps)).isTrue();
        boolean again = store().create(key, chunked(bytes((int) size, 42)), "application/x-ndjson",
                Map.of("iggy-offsets", "1000-1500"));

        assertThat(again).as("created again").isEqualTo(!honoursConditionalWrites());
        if (honoursConditionalWrites()) {
            assertThat(store().get(key)).isEqualTo(first);
            assertThat(store().metadata(key)).contains(firstStamps);
        }
        assertThat(store().list(prefix)).extracting(StoredObject::key).containsExactly(key);
    }

    @Test
    void a_create_over_an_object_put_earlier_is_refused() throws Exception {
        String key = prefix + "taken.jsonl";
        store().put(key, chunked(bytes(100, 35)), "application/x-ndjson", STAMPS);

        boolean created = store().create(key, bytes(5, 36), Map.of());

        assertThat(created).isEqualTo(!honoursConditionalWrites());
        if (honoursConditionalWrites()) {
            assertThat(store().get(key)).isEqualTo(bytes(100, 35));
            assertThat(store().metadata(key)).contains(STAMPS);
        }
    }

    /** Members racing for one claim: the store lets exactly one create it, and keeps that one's bytes and metadata. */
    @Test
    void of_creates_racing_for_one_key_exactly_one_wins() throws Exception {
        int racers = 8;
        String key = prefix + "raced.claim";
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            CountDownLatch ready = new CountDownLatch(racers);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Boolean>> creates = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                int n = i;
                creates.add(pool.submit(() -> {
                    ready.countDown();
                    go.await(30, TimeUnit.SECONDS);
                    return store().create(key, bytes(100 + n, 40 + n), Map.of("iggy-offsets", n + "-" + n));
                }));
            }
            ready.await(30, TimeUnit.SECONDS);
            go.countDown();
            List<Integer> winners = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                if (creates.get(i).get(60, TimeUnit.SECONDS)) winners.add(i);
            }

            if (!honoursConditionalWrites()) {
                assertThat(winners).as("a store that ignores the condition lets every create write").hasSize(racers);
                return;
            }
            assertThat(winners).hasSize(1);
            int winner = winners.get(0);
            assertThat(store().get(key)).isEqualTo(bytes(100 + winner, 40 + winner));
            assertThat(store().metadata(key)).contains(Map.of("iggy-offsets", winner + "-" + winner));
            assertThat(store().list(prefix)).containsExactly(new StoredObject(key, 100 + winner));
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A completeness marker written again: a replace naming the version read (its ETag) replaces it; one naming a
     * version that is no longer there is refused and writes nothing (If-Match honoured), and so is one of a key
     * that is gone. An empty body too (the AWS adapter sends it through the SDK, any other through its own PUT).
     */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1000})
    void a_replace_of_the_version_read_replaces_it_and_one_of_another_version_is_refused(int size) throws Exception {
        String key = prefix + "_COMPLETE";
        byte[] first = bytes(300, 70);
        byte[] second = bytes(size, 71);
        store().put(key, chunked(first), "application/json");
        ObjectStore.Versioned read = store().getVersioned(key);
        assertThat(read.content()).isEqualTo(first);
        assertThat(read.etag()).isNotBlank();

        assertThat(store().replace(key, second, "application/json", read.etag())).as("the version read").isTrue();
        assertThat(store().get(key)).isEqualTo(second);
        ObjectStore.Versioned now = store().getVersioned(key);
        assertThat(now.etag()).as("another version, another ETag").isNotEqualTo(read.etag());

        boolean stale = store().replace(key, bytes(200, 72), "application/json", read.etag());
        boolean gone = store().replace(prefix + "absent", bytes(200, 73), "application/json", read.etag());

        if (honoursConditionalWrites()) {
            assertThat(stale).as("replacing a version no longer there").isFalse();
            assertThat(store().get(key)).isEqualTo(second);
            assertThat(gone).as("replacing a key that is gone").isFalse();
            assertThat(store().list(prefix)).extracting(StoredObject::key).containsExactly(key);
            assertThat(store().replace(key, bytes(200, 74), "application/json", now.etag())).isTrue();
            assertThat(store().get(key)).isEqualTo(bytes(200, 74));
        } else {
            assertThat(stale).as("a store that ignores If-Match overwrites and says it replaced").isTrue();
            assertThat(store().get(key)).isEqualTo(bytes(200, 72));
        }
    }

    /** Members rewriting one marker from the same version: exactly one replace wins, and its bytes stay. */
    @Test
    void of_replaces_racing_from_one_version_exactly_one_wins() throws Exception {
        int racers = 6;
        String key = prefix + "raced/_COMPLETE";
        store().put(key, chunked(bytes(100, 80)), "application/json");
        String etag = store().getVersioned(key).etag();
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            CountDownLatch ready = new CountDownLatch(racers);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Boolean>> replaces = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                int n = i;
                replaces.add(pool.submit(() -> {
                    ready.countDown();
                    go.await(30, TimeUnit.SECONDS);
                    return store().replace(key, bytes(200 + n, 81 + n), "application/json", etag);
                }));
            }
            ready.await(30, TimeUnit.SECONDS);
            go.countDown();
            List<Integer> winners = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                if (replaces.get(i).get(60, TimeUnit.SECONDS)) winners.add(i);
            }

            if (!honoursConditionalWrites()) {
                assertThat(winners).as("a store that ignores the condition lets every replace write").hasSize(racers);
                return;
            }
            if (replacesAtomically()) assertThat(winners).hasSize(1);
            else assertThat(winners).isNotEmpty();
            assertThat(winners.stream().map(w -> bytes(200 + w, 81 + w)).toList())
                    .as("the object is one winner's").contains(store().get(key));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void delete_removes_the_object_and_its_metadata_and_frees_the_key() throws Exception {
        String put = prefix + "put.jsonl";
        String created = prefix + "created.claim";
        String kept = prefix + "kept.jsonl";
        store().put(put, chunked(bytes(1000, 50)), "application/x-ndjson", STAMPS);
        store().put(kept, chunked(bytes(10, 51)), "application/x-ndjson", Map.of("iggy-records", "1"));
        assertThat(store().create(created, bytes(10, 52), Map.of("iggy-offsets", "1-2"))).isTrue();

        store().delete(put);
        store().delete(created);

        assertThat(store().metadata(put)).isEmpty();
        assertThat(store().metadata(created)).isEmpty();
        assertThat(store().list(prefix)).containsExactly(new StoredObject(kept, 10));
        assertThat(store().metadata(kept)).contains(Map.of("iggy-records", "1"));
        assertThat(catchThrowableOfType(StoreException.class, () -> store().get(put)).httpStatus()).isEqualTo(404);

        assertThat(store().create(created, bytes(7, 53), Map.of("iggy-offsets", "3-4")))
                .as("a deleted key can be created again").isTrue();
        assertThat(store().metadata(created)).contains(Map.of("iggy-offsets", "3-4"));
        store().put(put, chunked(bytes(5, 54)), "text/plain");
        assertThat(store().metadata(put)).as("no metadata of the deleted object comes back").contains(Map.of());
    }

    @Test
    void a_batch_delete_removes_every_key_named_missing_ones_included_and_nothing_else() throws Exception {
        List<String> claims = new java.util.ArrayList<>();
        for (int i = 0; i < 25; i++) {
            String key = prefix + "claims/" + String.format("00000-%020d.claim", i * 10);
            assertThat(store().create(key, bytes(10, 60 + i), Map.of("iggy-offsets", i * 10 + "-" + (i * 10 + 9))))
                    .isTrue();
            claims.add(key);
        }
        String kept = prefix + "claims/00000-99999999999999999999.claim";
        store().put(kept, chunked(bytes(10, 90)), "application/octet-stream", Map.of("iggy-offsets", "1-2"));
        List<String> named = new java.util.ArrayList<>(claims);
        named.add(prefix + "claims/never-written.claim");

        store().delete(named);

        assertThat(store().list(prefix)).containsExactly(new StoredObject(kept, 10));
        assertThat(store().metadata(claims.get(7))).isEmpty();
        assertThat(store().create(claims.get(7), bytes(7, 91), Map.of("iggy-offsets", "70-70")))
                .as("a key deleted in a batch can be created again").isTrue();
        store().delete(List.of());
        assertThat(store().list(prefix)).hasSize(2);
    }

    @Test
    void a_batch_delete_takes_at_most_a_thousand_keys() {
        List<String> keys = new java.util.ArrayList<>();
        for (int i = 0; i <= ObjectStore.MAX_DELETE_BATCH; i++) keys.add(prefix + "k" + i);
        assertThatThrownBy(() -> store().delete(keys)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1001 keys");
    }

    @Test
    void deleting_a_missing_key_is_no_error() throws Exception {
        store().delete(prefix + "never-written");
        store().delete(prefix + "never/written/either");
        store().put(prefix + "once", chunked(bytes(10, 55)), "text/plain");
        store().delete(prefix + "once");
        store().delete(prefix + "once");

        assertThat(store().list(prefix)).isEmpty();
    }

    @Test
    void a_create_with_a_wrong_secret_is_a_final_403_and_on_a_missing_bucket_a_final_404() {
        StoreException denied = catchThrowableOfType(StoreException.class,
                () -> storeWithWrongSecret().create(prefix + "c", bytes(10, 56), STAMPS));
        assertThat(denied).isNotNull();
        assertThat(denied.retryable()).isFalse();
        assertThat(denied.httpStatus()).isEqualTo(403);
        assertThat(denied.getMessage()).contains(prefix + "c");
        assertThat(everythingPrinted(denied)).doesNotContain(wrongSecret());

        StoreException missing = catchThrowableOfType(StoreException.class,
                () -> storeOnMissingBucket().create(prefix + "c", bytes(10, 56), STAMPS));
        assertThat(missing).isNotNull();
        assertThat(missing.retryable()).isFalse();
        assertThat(missing.httpStatus()).isEqualTo(404);
        assertThat(missing.getMessage()).contains(doesNotCreateTheBucket());
    }

    /** Messages, causes, suppressed failures and stack traces: everything a log line could show. */
    protected static String everythingPrinted(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        StringBuilder all = new StringBuilder(out.toString());
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append('\n').append(c);
        }
        return all.toString();
    }

    @FunctionalInterface
    protected interface ThrowingCall {
        void run() throws Exception;
    }
}
