package dev.iggysink.adapters.filesystem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;

/** What only a directory store has to get right: paths, temp files, atomic replace and real file-system failures. */
class DirectoryObjectStoreTest {
    @TempDir
    Path tmp;

    private Path root() throws Exception {
        return Files.createDirectories(tmp.resolve("lake"));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void a_key_is_a_relative_path_and_its_directories_are_created() throws Exception {
        Path root = root();
        DirectoryObjectStore store = new DirectoryObjectStore(root);

        store.put("a/b/c.jsonl", FileBytes.of(utf8("{}\n")), "application/x-ndjson");

        assertThat(root.resolve("a").resolve("b").resolve("c.jsonl")).hasContent("{}");
        assertThat(store.list("")).containsExactly(new StoredObject("a/b/c.jsonl", 3));
    }

    @Test
    void an_object_gets_the_permissions_of_any_new_file_not_owner_only() throws Exception {
        Path root = root();
        new DirectoryObjectStore(root).put("k", FileBytes.of(utf8("x")), "text/plain");
        Path plain = Files.createFile(root.resolve("plain"));

        assertThat(Files.getPosixFilePermissions(root.resolve("k")))
                .isEqualTo(Files.getPosixFilePermissions(plain));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"..", "../outside", "a/../../outside", "a/../b", "/etc/outside", "a\0b", "", "a//b",
            "a/", "./a", "a/.iggy-sink-tmp-0"})
    void a_key_that_escapes_or_is_malformed_is_refused_for_good(String key) throws Exception {
        DirectoryObjectStore store = new DirectoryObjectStore(root());

        StoreException put = catchThrowableOfType(StoreException.class, () -> store.put(key, FileBytes.of(utf8("x")), "text/plain"));
        StoreException get = catchThrowableOfType(StoreException.class, () -> store.get(key));

        for (StoreException e : List.of(put, get)) {
            assertThat(e).isNotNull();
            assertThat(e.retryable()).isFalse();
            assertThat(e.httpStatus()).isEqualTo(400);
            assertThat(e.getMessage()).contains("'" + FileFailures.printable(key) + "'").doesNotContain("\0");
        }
        assertThat(put.getMessage()).startsWith("PUT");
        try (Stream<Path> everything = Files.walk(tmp)) {
            assertThat(everything.filter(Files::isRegularFile)).isEmpty();
        }
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"../", "/etc", "a/../../", "\0"})
    void a_prefix_that_escapes_is_refused_for_good(String prefix) throws Exception {
        StoreException e = catchThrowableOfType(StoreException.class,
                () -> new DirectoryObjectStore(root()).list(prefix));

        assertThat(e).isNotNull();
        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).startsWith("LIST");
    }

    @Test
    void list_skips_temp_files_and_separates_with_slashes_in_byte_order() throws Exception {
        Path root = root();
        DirectoryObjectStore store = new DirectoryObjectStore(root);
        store.put("p/b", FileBytes.of(utf8("1")), "text/plain");
        store.put("p/a/z", FileBytes.of(utf8("22")), "text/plain");
        store.put("p/a-", FileBytes.of(utf8("333")), "text/plain");
        store.put("p/\u00e9", FileBytes.of(utf8("4")), "text/plain");
        Files.write(root.resolve("p").resolve(".iggy-sink-tmp-abc"), utf8("half a file"));

        // '-' (0x2d) sorts before '/' (0x2f): the order is of the keys, not of a directory walk
        assertThat(store.list("p/")).extracting(StoredObject::key)
                .containsExactly("p/a-", "p/a/z", "p/b", "p/\u00e9");
        assertThat(store.list("p/a")).extracting(StoredObject::key).containsExactly("p/a-", "p/a/z");
    }

    @Test
    void puts_leave_no_temp_file_behind() throws Exception {
        Path root = root();
        DirectoryObjectStore store = new DirectoryObjectStore(root);
        for (int i = 0; i < 5; i++) {
            store.put("d/k", FileBytes.of(utf8("v" + i)), "text/plain");
        }
        store.probe();

        try (Stream<Path> files = Files.walk(root)) {
            assertThat(files.filter(Files::isRegularFile).map(root::relativize).map(Path::toString))
                    .containsExactly("d" + root.getFileSystem().getSeparator() + "k");
        }
    }

    /** A reader racing replacing writers sees one whole version or the other, never a mix or a short file. */
    @Test
    void a_replace_is_atomic_for_a_concurrent_reader() throws Exception {
        DirectoryObjectStore store = new DirectoryObjectStore(root());
        byte[] ones = new byte[256 * 1024];
        byte[] twos = new byte[128 * 1024];
        Arrays.fill(ones, (byte) 1);
        Arrays.fill(twos, (byte) 2);
        store.put("k", FileBytes.of(ones), "application/octet-stream");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> writer = pool.submit(() -> {
                for (int i = 0; i < 100; i++) {
                    store.put("k", FileBytes.of(i % 2 == 0 ? twos : ones), "application/octet-stream");
                }
                return null;
            });
            while (!writer.isDone()) {
                assertThat(store.get("k")).satisfiesAnyOf(b -> assertThat(b).isEqualTo(ones),
                        b -> assertThat(b).isEqualTo(twos));
            }
            writer.get();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void permission_denied_is_final_403_and_says_so() throws Exception {
        Path root = root();
        DirectoryObjectStore store = new DirectoryObjectStore(root);
        Provoke.Undo undo = Provoke.denyWrites(root);
        try (undo) {
            for (Provoke.ThrowingCall call : List.<Provoke.ThrowingCall>of(
                    () -> store.put("new.jsonl", FileBytes.of(utf8("x")), "text/plain"),
                    () -> store.put("new-dir/f.jsonl", FileBytes.of(utf8("x")), "text/plain"),
                    store::probe)) {
                StoreException e = catchThrowableOfType(StoreException.class, call::run);
                assertThat(e).isNotNull();
                assertThat(e.retryable()).as(e.getMessage()).isFalse();
                assertThat(e.httpStatus()).as(e.getMessage()).isEqualTo(403);
                assertThat(e.getMessage()).startsWith("PUT").contains("permission denied");
            }
        }
    }

    @Test
    void a_root_that_is_missing_or_a_file_is_final_and_never_created() throws Exception {
        Path missing = tmp.resolve("not-mounted");
        Path file = Files.write(tmp.resolve("a-file"), utf8("not a directory"));

        for (Path root : List.of(missing, file)) {
            DirectoryObjectStore store = new DirectoryObjectStore(root);
            for (Provoke.ThrowingCall call : List.<Provoke.ThrowingCall>of(
                    () -> store.put("a/b.jsonl", FileBytes.of(utf8("x")), "text/plain"), store::probe,
                    () -> store.list(""), () -> store.get("a/b.jsonl"))) {
                StoreException e = catchThrowableOfType(StoreException.class, call::run);
                assertThat(e).isNotNull();
                assertThat(e.retryable()).as(e.getMessage()).isFalse();
                assertThat(e.httpStatus()).as(e.getMessage()).isEqualTo(404);
                assertThat(e.getMessage()).contains("'" + root + "'").contains("does not create its root directory");
            }
        }
        assertThat(missing).doesNotExist();
        assertThat(file).hasContent("not a directory");
    }

    @Test
    void a_key_under_a_file_or_over_a_directory_is_a_final_conflict() throws Exception {
        DirectoryObjectStore store = new DirectoryObjectStore(root());
        store.put("file", FileBytes.of(utf8("x")), "text/plain");
        store.put("dir/inner", FileBytes.of(utf8("y")), "text/plain");

        for (Provoke.ThrowingCall call : List.<Provoke.ThrowingCall>of(
                () -> store.put("file/below", FileBytes.of(utf8("z")), "text/plain"),
                () -> store.put("dir", FileBytes.of(utf8("z")), "text/plain"))) {
            StoreException e = catchThrowableOfType(StoreException.class, call::run);
            assertThat(e).isNotNull();
            assertThat(e.retryable()).as(e.getMessage()).isFalse();
            assertThat(e.httpStatus()).as(e.getMessage()).isEqualTo(409);
        }
        assertThat(catchThrowableOfType(StoreException.class, () -> store.get("file/below")).httpStatus())
                .isEqualTo(404);
        assertThat(store.list("")).extracting(StoredObject::key).containsExactly("dir/inner", "file");
    }

    /**
     * A real full disk: a 64 KiB tmpfs mounted on the root. Mounting needs CAP_SYS_ADMIN (root in CI); where it is
     * not allowed, {@link FileFailuresTest} still checks the classification on the exception the JDK throws.
     */
    @Test
    void a_full_disk_is_a_retryable_507_that_says_disk_full_and_keeps_the_old_object() throws Exception {
        Path root = root();
        Provoke.Undo undo = Provoke.tinyDisk(root, "64k");
        assumeTrue(undo != null, "mounting a tmpfs is not allowed here");
        try (undo) {
            DirectoryObjectStore store = new DirectoryObjectStore(root);
            store.put("logs/k.jsonl", FileBytes.of(utf8("old")), "text/plain");

            StoreException e = catchThrowableOfType(StoreException.class,
                    () -> store.put("logs/k.jsonl", FileBytes.of(new byte[256 * 1024]), "text/plain"));

            assertThat(e).isNotNull();
            assertThat(e.retryable()).isTrue();
            assertThat(e.httpStatus()).isEqualTo(507);
            assertThat(e.getMessage()).startsWith("PUT 'logs/k.jsonl'").contains("disk full");
            assertThat(store.get("logs/k.jsonl")).isEqualTo(utf8("old"));
            try (Stream<Path> files = Files.walk(root)) {
                assertThat(files.map(p -> p.getFileName().toString()))
                        .noneMatch(n -> n.startsWith(DirectoryObjectStore.TEMP_PREFIX));
            }
            store.put("logs/k.jsonl", FileBytes.of(new byte[16 * 1024]), "text/plain");
            assertThat(store.list("logs/")).containsExactly(new StoredObject("logs/k.jsonl", 16 * 1024));
        }
    }

    // ---- user metadata and create ----

    private static final Map<String, String> META = Map.of("iggy-offsets", "0-9", "iggy-records", "10");

    private static List<String> filesUnder(Path dir) throws Exception {
        if (!Files.exists(dir)) return List.of();
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString().replace('\\', '/'))
                    .sorted().toList();
        }
    }

    @Test
    void metadata_lives_in_a_hidden_tree_mirroring_the_keys_that_list_never_shows() throws Exception {
        Path root = root();
        DirectoryObjectStore store = new DirectoryObjectStore(root);
        store.put("a/b.jsonl", FileBytes.of(utf8("{}\n")), "application/x-ndjson", META);
        assertThat(store.create("c.claim", utf8("c"), Map.of("iggy-offsets", "1-2"))).isTrue();

        assertThat(root.resolve(".iggy-meta/a/b.jsonl")).hasContent("iggy-offsets=0-9\niggy-records=10");
        assertThat(root.resolve(".iggy-meta/c.claim")).hasContent("iggy-offsets=1-2");
        assertThat(filesUnder(root.resolve(".iggy-meta"))).as("nothing pending once written")
                .containsExactly("a/b.jsonl", "c.claim");
        assertThat(filesUnder(root)).as("no temp file, and the created file has one name")
                .containsExactly(".iggy-meta/a/b.jsonl", ".iggy-meta/c.claim", "a/b.jsonl", "c.claim");
        assertThat(store.list("")).extracting(StoredObject::key).containsExactly("a/b.jsonl", "c.claim");
        assertThat(store.list(".iggy-meta/")).isEmpty();
        assertThat(store.list(".iggy")).isEmpty();
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {".iggy-meta", ".iggy-meta/a/b.jsonl"})
    void a_key_in_the_metadata_tree_is_refused_for_good(String key) throws Exception {
        DirectoryObjectStore store = new DirectoryObjectStore(root());

        for (Provoke.ThrowingCall call : List.<Provoke.ThrowingCall>of(
                () -> store.put(key, FileBytes.of(utf8("x")), "text/plain"), () -> store.get(key),
                () -> store.create(key, utf8("x"), Map.of()), () -> store.metadata(key), () -> store.delete(key))) {
            StoreException e = catchThrowableOfType(StoreException.class, call::run);
            assertThat(e).isNotNull();
            assertThat(e.retryable()).isFalse();
            assertThat(e.httpStatus()).isEqualTo(400);
        }
    }

    @Test
    void metadata_s3_would_refuse_is_refused_here_too_and_nothing_is_written() throws Exception {
        Path root = root();
        DirectoryObjectStore store = new DirectoryObjectStore(root);
        for (Map<String, String> bad : List.of(Map.of("Upper", "v"), Map.of("k", "two\nlines"),
                Map.of("k=v", "x"), Map.of("k", "v".repeat(2048)))) {
            for (Provoke.ThrowingCall call : List.<Provoke.ThrowingCall>of(
                    () -> store.put("k", FileBytes.of(utf8("x")), "text/plain", bad),
                    () -> store.create("k", utf8("x"), bad))) {
                StoreException e = catchThrowableOfType(StoreException.class, call::run);
                assertThat(e).as("%s", bad).isNotNull();
                assertThat(e.retryable()).isFalse();
                assertThat(e.httpStatus()).isEqualTo(400);
                assertThat(e.getMessage()).contains("'k'").contains("user metadata");
            }
        }
        assertThat(filesUnder(root)).isEmpty();
    }

    /**
     * A crash after the object became visible and before its metadata was moved to the key's file leaves the
     * metadata pending, under the name of the object's version: it is the object's metadata, not the key's older.
     */
    @Test
    void metadata_left_pending_by_a_crash_is_the_objects() throws Exception {
        Path root = root();
        DirectoryObjectStore store = new DirectoryObjectStore(root);
        store.put("k.jsonl", FileBytes.of(utf8("old")), "text/plain", Map.of("iggy-offsets", "0-0"));
        Path object = Files.write(root.resolve("k.jsonl"), utf8("new object"));
        String version = DirectoryObjectStore.version(Files.readAttributes(object, BasicFileAttributes.class));
        assumeTrue(version != null, "this file system has no file keys");
        Files.writeString(DirectoryObjectStore.pending(root.resolve(".iggy-meta/k.jsonl"), version),
                "iggy-offsets=1-9\n");

        assertThat(store.metadata("k.jsonl")).contains(Map.of("iggy-offsets", "1-9"));
        assertThat(store.list("")).extracting(StoredObject::key).containsExactly("k.jsonl");

        store.delete("k.jsonl");
        assertThat(filesUnder(root)).as("the object, its metadata and the pending file are gone").isEmpty();
    }

    @Test
    void metadata_an_earlier_object_of_the_key_left_behind_never_passes_for_a_new_ones() throws Exception {
        Path root = root();
        DirectoryObjectStore store = new DirectoryObjectStore(root);
        Files.createDirectories(root.resolve(".iggy-meta"));
        Files.writeString(root.resolve(".iggy-meta/put.jsonl"), "iggy-offsets=5-6\n");
        Files.writeString(root.resolve(".iggy-meta/c.claim"), "iggy-offsets=5-6\n");

        store.put("put.jsonl", FileBytes.of(utf8("x")), "text/plain");
        assertThat(store.create("c.claim", utf8("c"), Map.of())).isTrue();

        assertThat(store.metadata("put.jsonl")).contains(Map.of());
        assertThat(store.metadata("c.claim")).contains(Map.of());
    }

    @Test
    void a_metadata_file_where_a_directory_is_now_needed_is_replaced() throws Exception {
        Path root = root();
        DirectoryObjectStore store = new DirectoryObjectStore(root);
        store.put("a", FileBytes.of(utf8("x")), "text/plain", META);
        Files.delete(root.resolve("a")); // removed without the store, by a retention script

        store.put("a/b", FileBytes.of(utf8("y")), "text/plain", META);

        assertThat(store.metadata("a/b")).contains(META);
        assertThat(store.metadata("a")).isEmpty();
    }

    @Test
    void create_over_a_directory_is_a_final_conflict_not_a_taken_key() throws Exception {
        DirectoryObjectStore store = new DirectoryObjectStore(root());
        store.put("dir/inner", FileBytes.of(utf8("y")), "text/plain");

        StoreException e = catchThrowableOfType(StoreException.class, () -> store.create("dir", utf8("z"), Map.of()));

        assertThat(e).isNotNull();
        assertThat(e.retryable()).isFalse();
        assertThat(e.httpStatus()).isEqualTo(409);
        assertThat(store.metadata("dir")).isEmpty();
        assertThat(store.list("")).extracting(StoredObject::key).containsExactly("dir/inner");
    }

    @Test
    void delete_leaves_no_metadata_behind_and_never_removes_a_directory() throws Exception {
        Path root = root();
        DirectoryObjectStore store = new DirectoryObjectStore(root);
        store.put("d/put", FileBytes.of(utf8("x")), "text/plain", META);
        assertThat(store.create("d/claim", utf8("c"), META)).isTrue();
        store.put("e/inner", FileBytes.of(utf8("y")), "text/plain", META);

        store.delete("d/put");
        store.delete("d/claim");
        store.delete("e");

        assertThat(filesUnder(root)).containsExactly(".iggy-meta/e/inner", "e/inner");
        assertThat(store.metadata("e/inner")).contains(META);
    }

    @Test
    void metadata_delete_and_create_on_a_missing_root_are_final_404s() throws Exception {
        DirectoryObjectStore store = new DirectoryObjectStore(tmp.resolve("not-mounted"));
        for (Provoke.ThrowingCall call : List.<Provoke.ThrowingCall>of(() -> store.metadata("k"),
                () -> store.delete("k"), () -> store.create("k", utf8("x"), META))) {
            StoreException e = catchThrowableOfType(StoreException.class, call::run);
            assertThat(e).isNotNull();
            assertThat(e.retryable()).isFalse();
            assertThat(e.httpStatus()).isEqualTo(404);
            assertThat(e.getMessage()).contains("does not create its root directory");
        }
        assertThat(tmp.resolve("not-mounted")).doesNotExist();
    }
}
