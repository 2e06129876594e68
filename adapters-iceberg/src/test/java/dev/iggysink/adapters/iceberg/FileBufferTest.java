package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.Random;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.Test;

/** A data file's buffer keeps every byte written, in order, and holds little more than the file. */
class FileBufferTest {
    @Test
    void every_byte_written_comes_back_in_order() throws Exception {
        Random random = new Random(49);
        for (int size : new int[] {0, 1, 8 * 1024, 8 * 1024 + 1, 200_000, 3_500_000}) {
            FileBuffer buffer = new FileBuffer("memory:f");
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            PositionOutputStream out = buffer.create();
            while (expected.size() < size) {
                if (random.nextInt(10) == 0) {
                    int b = random.nextInt(256);
                    out.write(b);
                    expected.write(b);
                } else {
                    byte[] chunk = new byte[Math.min(size - expected.size(), random.nextInt(300_000))];
                    random.nextBytes(chunk);
                    int off = chunk.length == 0 ? 0 : random.nextInt(chunk.length);
                    out.write(chunk, off, chunk.length - off);
                    expected.write(chunk, off, chunk.length - off);
                }
                assertThat(out.getPos()).isEqualTo(expected.size());
            }
            out.close();
            assertThat(buffer.length()).isEqualTo(expected.size());
            ByteArrayOutputStream written = new ByteArrayOutputStream();
            buffer.writeTo(written);
            assertThat(written.toByteArray()).as("%d bytes", size).isEqualTo(expected.toByteArray());
            try (InputStream in = buffer.toInputFile().newStream()) {
                assertThat(in.readAllBytes()).isEqualTo(expected.toByteArray());
            }
            // at most twice a small file, and a file plus one chunk of 1 MiB
            assertThat(buffer.capacity()).as("%d bytes", size)
                    .isLessThanOrEqualTo(Math.max(8 * 1024, Math.min(2L * size, size + 1024 * 1024)));
            assertThatThrownBy(() -> out.write(1)).hasMessageContaining("memory:f is closed");
        }
    }

    @Test
    void a_new_stream_starts_an_empty_file() throws Exception {
        FileBuffer buffer = new FileBuffer("memory:g");
        PositionOutputStream first = buffer.create();
        first.write(new byte[20_000], 0, 20_000);
        first.close();
        PositionOutputStream second = buffer.createOrOverwrite();
        second.write(7);
        second.close();
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        buffer.writeTo(written);
        assertThat(written.toByteArray()).containsExactly(7);
        assertThat(buffer.capacity()).isEqualTo(8 * 1024);
    }
}
