package dev.iggysink.adapters.format.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.file.FileBytes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Released buffer files are written over while young, and deleted once old, idle too long or too many. */
class BufferDirectoryReuseTest {
    private static final Duration REUSE = Duration.ofSeconds(15);

    @TempDir
    Path base;
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private static byte[] bytes(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static FileBytes written(BufferDirectory dir, byte[] content) throws IOException {
        SpillFile file = SpillFile.create(dir);
        file.append(content, 0, content.length);
        return file.seal();
    }

    private static List<Path> files(BufferDirectory dir) throws IOException {
        try (Stream<Path> all = Files.list(dir.path())) {
            return all.filter(p -> p.toString().endsWith(".buf")).toList();
        }
    }

    @Test
    void a_released_young_file_is_written_over_and_then_holds_exactly_the_new_bytes() throws Exception {
        try (BufferDirectory dir = BufferDirectory.open(base, REUSE, now::get)) {
            byte[] first = bytes(900_000, 1);
            FileBytes a = written(dir, first);
            Path path = files(dir).get(0);
            assertThat(a.toByteArray()).isEqualTo(first);
            a.release();
            assertThat(files(dir)).as("kept for the next file").containsExactly(path);
            assertThat(dir.idleFiles()).isOne();

            now.addAndGet(Duration.ofSeconds(5).toNanos());
            byte[] second = bytes(300_000, 2);
            FileBytes b = written(dir, second);
            assertThat(files(dir)).as("the same file, written over").containsExactly(path);
            assertThat(dir.idleFiles()).isZero();
            assertThat(b.toByteArray()).isEqualTo(second);
            assertThat(Files.size(path)).as("what the first file held beyond is cut off").isEqualTo(second.length);

            byte[] third = bytes(1_200_000, 3);
            b.release();
            FileBytes c = written(dir, third);
            assertThat(files(dir)).containsExactly(path);
            assertThat(c.toByteArray()).isEqualTo(third);
            c.release();
        }
    }

    @Test
    void a_directory_opened_as_the_sink_opens_it_writes_files_over() throws Exception {
        try (BufferDirectory dir = BufferDirectory.open(base)) {
            written(dir, bytes(300_000, 1)).release();
            Path first = files(dir).get(0);
            FileBytes again = written(dir, bytes(200_000, 2));
            assertThat(files(dir)).containsExactly(first);
            again.release();
        }
    }

    @Test
    void a_file_made_longer_ago_than_the_limit_is_deleted_not_reused() throws Exception {
        try (BufferDirectory dir = BufferDirectory.open(base, REUSE, now::get)) {
            FileBytes a = written(dir, bytes(10_000, 1));
            Path first = files(dir).get(0);
            now.addAndGet(REUSE.toNanos());
            a.release();
            assertThat(files(dir)).as("released too old").isEmpty();

            FileBytes b = written(dir, bytes(10_000, 2));
            Path second = files(dir).get(0);
            assertThat(second).isNotEqualTo(first);
            b.release();
            assertThat(files(dir)).containsExactly(second);
            now.addAndGet(REUSE.toNanos());
            FileBytes c = written(dir, bytes(10_000, 3));
            assertThat(files(dir)).as("the idle one was too old to be written over").hasSize(1)
                    .doesNotContain(second);
            c.release();
        }
    }

    @Test
    void no_more_than_the_cap_wait_and_an_unsealed_file_dropped_is_released_too() throws Exception {
        try (BufferDirectory dir = BufferDirectory.open(base, REUSE, now::get)) {
            List<FileBytes> sealed = new ArrayList<>();
            for (int i = 0; i < BufferDirectory.MAX_IDLE + 5; i++) sealed.add(written(dir, bytes(1000, i)));
            SpillFile unsealed = SpillFile.create(dir);
            unsealed.append(new byte[100], 0, 100);
            for (FileBytes f : sealed) f.release();
            assertThat(dir.idleFiles()).isEqualTo(BufferDirectory.MAX_IDLE);
            assertThat(files(dir)).hasSize(BufferDirectory.MAX_IDLE + 1);
            unsealed.discard();
            assertThat(files(dir)).hasSize(BufferDirectory.MAX_IDLE);
        }
        assertThat(base).isEmptyDirectory();
    }

    @Test
    void idle_files_are_deleted_by_the_sweep_once_too_old_to_be_written_over() throws Exception {
        try (BufferDirectory dir = BufferDirectory.open(base, Duration.ofMillis(300), System::nanoTime)) {
            written(dir, bytes(50_000, 1)).release();
            written(dir, bytes(50_000, 2)).release();
            assertThat(files(dir)).hasSize(1);
            for (int i = 0; i < 100 && !files(dir).isEmpty(); i++) Thread.sleep(50);
            assertThat(files(dir)).as("nothing writes over them any more").isEmpty();
            assertThat(dir.idleFiles()).isZero();
        }
    }

    @Test
    void the_limit_is_half_the_kernels_dirty_expiry_at_most_15_seconds() throws Exception {
        Path setting = base.resolve("dirty_expire_centisecs");
        Files.writeString(setting, "3000\n");
        assertThat(BufferDirectory.reuseLimit(setting)).isEqualTo(Duration.ofSeconds(15));
        Files.writeString(setting, "1000\n");
        assertThat(BufferDirectory.reuseLimit(setting)).isEqualTo(Duration.ofSeconds(5));
        Files.writeString(setting, "100000\n");
        assertThat(BufferDirectory.reuseLimit(setting)).isEqualTo(Duration.ofSeconds(15));
        Files.writeString(setting, "0\n");
        assertThat(BufferDirectory.reuseLimit(setting)).as("written out at once: no reuse").isZero();
        Files.writeString(setting, "soon\n");
        assertThat(BufferDirectory.reuseLimit(setting)).isEqualTo(Duration.ofSeconds(10));
        assertThat(BufferDirectory.reuseLimit(base.resolve("absent"))).isEqualTo(Duration.ofSeconds(10));
    }

    /** procfs gives nothing to a read past the start: the value must come from one read (it once came as "3"). */
    @Test
    void the_kernels_own_setting_is_read_whole() throws Exception {
        Path setting = Path.of("/proc/sys/vm/dirty_expire_centisecs");
        long centis = Long.parseLong(Files.readAllLines(setting).get(0).trim());
        assertThat(BufferDirectory.reuseLimit(setting))
                .isEqualTo(Duration.ofMillis(Math.min(15_000, centis * 10 / 2)));
    }
}
