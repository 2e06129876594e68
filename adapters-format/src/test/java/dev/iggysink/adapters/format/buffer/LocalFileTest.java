package dev.iggysink.adapters.format.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.file.FileBytes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A sealed file's bytes in a local file read as chunks on the heap do, and its file goes with its release. */
class LocalFileTest {
    /** Reuses nothing: a released file is deleted (reuse is BufferDirectoryReuseTest's). */
    private final BufferDirectory buffers = noReuse();

    private static BufferDirectory noReuse() {
        try {
            return BufferDirectory.open(java.nio.file.Files.createTempDirectory("buffers"), java.time.Duration.ZERO,
                    System::nanoTime);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @org.junit.jupiter.api.AfterEach
    void closeBuffers() {
        buffers.close();
    }
    @Test
    void a_local_file_reads_as_the_chunks_do_every_way_and_in_every_slice() throws IOException {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("filebytes");
        java.nio.file.Path path = dir.resolve("1.buf");
        byte[] big = new byte[200_000]; // several read blocks
        new Random(3).nextBytes(big);
        java.nio.file.Files.write(path, big);
        FileBytes file = LocalFile.bytes(buffers, path, big.length - 7); // a file may be longer than its bytes
        byte[] expected = Arrays.copyOf(big, big.length - 7);
        assertThat(file.offHeap()).isTrue();
        assertThat(file.toByteArray()).isEqualTo(expected);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        file.writeTo(out);
        assertThat(out.toByteArray()).isEqualTo(expected);
        try (InputStream in = file.openStream()) {
            assertThat(in.readAllBytes()).isEqualTo(expected);
        }
        Random random = new Random(5);
        for (int i = 0; i < 50; i++) {
            int offset = random.nextInt(expected.length);
            int length = random.nextInt(expected.length - offset + 1);
            FileBytes slice = file.slice(offset, length);
            byte[] part = Arrays.copyOfRange(expected, offset, offset + length);
            assertThat(slice.toByteArray()).isEqualTo(part);
            ByteArrayOutputStream sent = new ByteArrayOutputStream();
            slice.transferTo(Channels.newChannel(sent));
            assertThat(sent.toByteArray()).isEqualTo(part);
            try (InputStream in = slice.openStream()) {
                assertThat(in.skip(3)).isEqualTo(Math.min(3, length));
                assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(part, Math.min(3, length), length));
            }
        }
        assertThat(readByteByByte(file.slice(100, 300).openStream()))
                .isEqualTo(Arrays.copyOfRange(expected, 100, 400));

        file.slice(0, 10).release();
        assertThat(path).doesNotExist();
        assertThat(file.released()).isTrue();
        assertThatThrownBy(file::openStream).isInstanceOf(IllegalStateException.class);
        java.nio.file.Files.delete(dir);
    }

    @Test
    void a_local_file_shorter_than_its_length_is_an_error_naming_it_not_short_bytes() throws IOException {
        java.nio.file.Path path = java.nio.file.Files.createTempFile("filebytes", ".buf");
        java.nio.file.Files.write(path, new byte[10]);
        FileBytes file = LocalFile.bytes(buffers, path, 20);
        assertThatThrownBy(() -> file.writeTo(new ByteArrayOutputStream())).isInstanceOf(IOException.class)
                .hasMessageContaining(path.toString());
        assertThatThrownBy(() -> file.openStream().readAllBytes()).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> file.transferTo(Channels.newChannel(new ByteArrayOutputStream())))
                .isInstanceOf(IOException.class).hasMessageContaining(path.toString());
        file.release();
        assertThat(path).doesNotExist();
    }

    @Test
    void reads_of_any_size_and_skips_in_between_give_the_files_bytes() throws IOException {
        java.nio.file.Path path = java.nio.file.Files.createTempFile("localfile", ".buf");
        byte[] big = new byte[300_000];
        new Random(11).nextBytes(big);
        java.nio.file.Files.write(path, big);
        FileBytes file = LocalFile.bytes(buffers, path, big.length);
        Random random = new Random(13);
        for (int round = 0; round < 20; round++) {
            int offset = random.nextInt(1000);
            FileBytes view = file.slice(offset, big.length - offset - random.nextInt(1000));
            byte[] expected = view.toByteArray();
            assertThat(expected).isEqualTo(Arrays.copyOfRange(big, offset, offset + expected.length));
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            ByteArrayOutputStream want = new ByteArrayOutputStream();
            int pos = 0;
            try (InputStream in = view.openStream()) {
                while (true) {
                    if (random.nextInt(8) == 0) {
                        long skipped = in.skip(random.nextInt(70_000));
                        pos += (int) skipped;
                        continue;
                    }
                    // HTTP clients read 4 KiB at a time; some readers ask for more than a block
                    int size = random.nextBoolean() ? 4096 : 1 + random.nextInt(100_000);
                    byte[] buf = new byte[size];
                    int n = in.read(buf, 0, size);
                    if (n < 0) break;
                    assertThat(n).isPositive();
                    got.write(buf, 0, n);
                    want.write(expected, pos, n);
                    pos += n;
                }
                assertThat(in.available()).isZero();
            }
            assertThat(pos).isEqualTo(expected.length);
            assertThat(got.toByteArray()).isEqualTo(want.toByteArray());
        }
        file.release();
        assertThat(path).doesNotExist();
    }

    private static byte[] readByteByByte(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int b = in.read(); b >= 0; b = in.read()) out.write(b);
        return out.toByteArray();
    }
}
