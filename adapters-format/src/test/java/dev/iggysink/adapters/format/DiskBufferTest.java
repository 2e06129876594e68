package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.ZstdInputStream;
import dev.iggysink.adapters.format.buffer.BufferDirectory;
import dev.iggysink.adapters.format.buffer.SpillFile;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.domain.message.SinkRecord;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Open files written to a buffer directory as they grow: same files, far less heap, nothing left on disk. */
class DiskBufferTest {
    @TempDir
    Path base;
    BufferDirectory dir;

    @BeforeEach
    void open() throws IOException {
        // Released files are deleted here: what these tests check is that none is left; reuse has its own test.
        dir = BufferDirectory.open(base, java.time.Duration.ZERO, System::nanoTime);
    }

    @AfterEach
    void close() {
        dir.close();
    }

    static Stream<Arguments> formats() {
        return Stream.of(OutputFormat.JSON_LINES, OutputFormat.JSON_ARRAY, OutputFormat.RAW)
                .flatMap(f -> Stream.of(Compression.values()).map(c -> Arguments.of(f, c)));
    }

    private static SinkRecord record(int i) {
        String payload = "{\"n\":" + i + ",\"text\":\"" + "x".repeat(200 + i % 97) + "\"}";
        return Fixtures.record(i, payload.getBytes(StandardCharsets.UTF_8), List.of());
    }

    private static RecordCodec codec(OutputFormat format, Compression compression, BufferDirectory buffers) {
        return RecordCodecs.forStream(Fixtures.stream(PayloadSchema.JSON),
                Fixtures.output(format, compression, true, false), List.of(), buffers);
    }

    private static byte[] plain(Compression compression, byte[] file) throws IOException {
        if (compression == Compression.NONE) return file;
        try (InputStream in = compression == Compression.GZIP
                ? new GZIPInputStream(new ByteArrayInputStream(file))
                : new ZstdInputStream(new ByteArrayInputStream(file))) {
            return in.readAllBytes();
        }
    }

    private List<Path> filesOnDisk() throws IOException {
        try (Stream<Path> files = Files.list(dir.path())) {
            return files.filter(p -> p.toString().endsWith(".buf")).toList();
        }
    }

    @ParameterizedTest
    @MethodSource("formats")
    void a_file_written_to_disk_as_it_grows_has_the_bytes_of_one_kept_on_the_heap(OutputFormat format,
            Compression compression) throws Exception {
        RecordCodec onHeap = codec(format, compression, null);
        RecordCodec onDisk = codec(format, compression, dir);
        FileEncoder memory = onHeap.newFile();
        FileEncoder disk = onDisk.newFile();
        long maxHeap = 0;
        for (int i = 0; i < 8_000; i++) { // about 2.3 MB: nine writes to disk
            memory.append(onHeap.decode(record(i)));
            disk.append(onDisk.decode(record(i)));
            maxHeap = Math.max(maxHeap, disk.heapBytes());
        }
        assertThat(memory.heapBytes()).isGreaterThan(2_000_000);
        // 64 + 128 + 256 KiB chunks at most, whatever the file's size
        assertThat(maxHeap).isLessThanOrEqualTo(448 * 1024);

        FileBytes expected = memory.finish();
        FileBytes actual = disk.finish();
        assertThat(actual.offHeap()).isTrue();
        assertThat(plain(compression, actual.toByteArray())).isEqualTo(plain(compression, expected.toByteArray()));
        if (compression != Compression.ZSTD) {
            // gzip's output does not depend on how its input is cut; zstd's streaming frame differs from the
            // one-shot frame of a file kept on the heap (both decode to the same bytes, checked above)
            assertThat(actual.toByteArray()).isEqualTo(expected.toByteArray());
        }
        assertThat(filesOnDisk()).hasSize(1);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(actual.toByteArray());
        assertThat(actual.crc32c()).as("computed as the file was written").hasValue(crc.getValue());

        actual.release();
        assertThat(filesOnDisk()).isEmpty();
        assertThatThrownBy(actual::toByteArray).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void open_files_on_disk_keep_their_descriptor_between_writes_up_to_a_bound() throws Exception {
        RecordCodec codec = codec(OutputFormat.JSON_LINES, Compression.NONE, dir);
        List<FileEncoder> open = new java.util.ArrayList<>();
        for (int f = 0; f < BufferDirectory.MAX_HELD_OPEN + 10; f++) {
            FileEncoder file = codec.newFile();
            for (int i = 0; i < 1_000; i++) file.append(codec.decode(record(i)));
            open.add(file);
        }
        assertThat(filesOnDisk()).hasSize(BufferDirectory.MAX_HELD_OPEN + 10);
        // Beyond the bound a file is opened for each write and closed again.
        assertThat(descriptorsInto(dir.path())).isEqualTo(BufferDirectory.MAX_HELD_OPEN);
        assertThat(dir.heldOpen()).isEqualTo(BufferDirectory.MAX_HELD_OPEN);
        for (FileEncoder file : open) file.finish().release();
        assertThat(descriptorsInto(dir.path())).isZero();
        assertThat(dir.heldOpen()).isZero();
        assertThat(filesOnDisk()).isEmpty();
    }

    @Test
    void an_open_file_dropped_unsealed_gives_its_descriptor_back_once_collected() throws Exception {
        appendAndDrop(dir);
        assertThat(dir.heldOpen()).isOne();
        assertThat(descriptorsInto(dir.path())).isOne();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (dir.heldOpen() > 0 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(dir.heldOpen()).isZero();
        assertThat(descriptorsInto(dir.path())).isZero();
    }

    private static void appendAndDrop(BufferDirectory dir) throws IOException {
        SpillFile.create(dir).append(new byte[10], 0, 10);
    }

    /** Open file descriptors of this process on buffer files under {@code path} (Linux's /proc); not the lock. */
    private static long descriptorsInto(Path path) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    return target.startsWith(path) && target.toString().endsWith(".buf");
                } catch (IOException | UnsupportedOperationException e) {
                    return false; // closed meanwhile
                }
            }).count();
        }
    }

    @Test
    void a_small_file_stays_on_the_heap_and_never_touches_the_disk() throws Exception {
        RecordCodec codec = codec(OutputFormat.JSON_LINES, Compression.NONE, dir);
        FileEncoder file = codec.newFile();
        for (int i = 0; i < 100; i++) file.append(codec.decode(record(i)));
        FileBytes bytes = file.finish();
        assertThat(bytes.offHeap()).isFalse();
        assertThat(filesOnDisk()).isEmpty();
    }

    @Test
    void when_the_disk_cannot_be_written_the_bytes_stay_on_the_heap_and_the_file_is_whole() throws Exception {
        RecordCodec onHeap = codec(OutputFormat.JSON_LINES, Compression.NONE, null);
        RecordCodec onDisk = codec(OutputFormat.JSON_LINES, Compression.NONE, dir);
        FileEncoder memory = onHeap.newFile();
        FileEncoder disk = onDisk.newFile();
        // The process's directory is gone: no file can be made there.
        Files.delete(dir.path().resolve(".lock"));
        Files.delete(dir.path());
        for (int i = 0; i < 3_000; i++) {
            memory.append(onHeap.decode(record(i)));
            disk.append(onDisk.decode(record(i)));
        }
        assertThat(disk.heapBytes()).isGreaterThan(448 * 1024);
        // It comes back: the next write moves everything held so far to disk.
        Files.createDirectory(dir.path());
        for (int i = 3_000; i < 3_001; i++) {
            memory.append(onHeap.decode(record(i)));
            disk.append(onDisk.decode(record(i)));
        }
        assertThat(disk.heapBytes()).isLessThanOrEqualTo(64 * 1024);
        FileBytes actual = disk.finish();
        assertThat(actual.offHeap()).isTrue();
        assertThat(actual.toByteArray()).isEqualTo(memory.finish().toByteArray());
        actual.release();
    }

    @Test
    void an_open_file_that_is_dropped_unsealed_is_deleted_once_it_is_garbage() throws Exception {
        RecordCodec codec = codec(OutputFormat.JSON_LINES, Compression.NONE, dir);
        appendAndDrop(codec);
        assertThat(filesOnDisk()).hasSize(1);
        awaitDeletedOnceGarbage();
    }

    @Test
    void a_sealed_file_nobody_releases_is_deleted_once_no_view_of_it_is_left() throws Exception {
        RecordCodec codec = codec(OutputFormat.JSON_LINES, Compression.NONE, dir);
        long length = sealAndDrop(codec);
        assertThat(length).isGreaterThan(BufferedFileEncoder.SPILL_AT);
        assertThat(filesOnDisk()).hasSize(1);
        awaitDeletedOnceGarbage();
    }

    /** Collects until the Cleaner has deleted every buffer file (10 s at most). */
    private void awaitDeletedOnceGarbage() throws Exception {
        for (int i = 0; i < 200 && !filesOnDisk().isEmpty(); i++) {
            System.gc();
            Thread.sleep(50);
        }
        assertThat(filesOnDisk()).isEmpty();
    }

    private static void appendAndDrop(RecordCodec codec) throws Exception {
        FileEncoder file = codec.newFile();
        for (int i = 0; i < 2_000; i++) file.append(codec.decode(record(i)));
    }

    private static long sealAndDrop(RecordCodec codec) throws Exception {
        FileEncoder file = codec.newFile();
        for (int i = 0; i < 2_000; i++) file.append(codec.decode(record(i)));
        FileBytes bytes = file.finish();
        FileBytes part = bytes.slice(10, 100);
        assertThat(part.toByteArray()).isEqualTo(java.util.Arrays.copyOfRange(bytes.toByteArray(), 10, 110));
        return bytes.length();
    }

    @Test
    void a_directory_left_by_an_ended_process_is_deleted_and_one_still_in_use_is_kept() throws Exception {
        Path dead = base.resolve(BufferDirectory.PREFIX + "999999-0");
        Files.createDirectory(dead);
        // Its process wrote its pid into the lock file and ended (a kill -9 a moment ago: the file is new).
        Files.writeString(dead.resolve(".lock"), "999999\n");
        Files.write(dead.resolve("1.buf"), new byte[100]);
        Path old = base.resolve(BufferDirectory.PREFIX + "999997-0");
        Files.createDirectory(old);
        Files.createFile(old.resolve(".lock"));
        Files.setLastModifiedTime(old.resolve(".lock"),
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        // Made a moment ago, empty and not locked yet: a process between creating its lock file and locking it.
        Path starting = base.resolve(BufferDirectory.PREFIX + "999998-0");
        Files.createDirectory(starting);
        Files.createFile(starting.resolve(".lock"));

        try (BufferDirectory second = BufferDirectory.open(base)) {
            assertThat(second.staleRemoved()).isEqualTo(2);
            assertThat(dead).doesNotExist();
            assertThat(old).as("an empty lock file nobody locked for a minute").doesNotExist();
            assertThat(starting).isDirectory();
            // this process's first directory is still locked by it, so the second leaves it alone
            assertThat(dir.path()).isDirectory();
            assertThat(second.path()).isNotEqualTo(dir.path()).isDirectory();
        }
        assertThat(dir.path()).isDirectory();
        try (Stream<Path> left = Files.list(base)) {
            assertThat(left).containsExactlyInAnyOrder(dir.path(), starting);
        }
    }

    @Test
    void a_directory_that_cannot_be_made_is_named_in_the_error() throws Exception {
        Path file = base.resolve("not-a-directory");
        Files.writeString(file, "x");
        assertThatThrownBy(() -> BufferDirectory.open(file.resolve("sub")))
                .isInstanceOf(IOException.class).hasMessageContaining("buffer_directory")
                .hasMessageContaining("not-a-directory");
    }
}
