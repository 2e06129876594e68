package dev.iggysink.application.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FileBytesTest {
    /** 0..99 spread over chunks of uneven use, an empty one among them, with spare room at each end. */
    private static final byte[] ALL = new byte[100];
    private static final FileBytes CHUNKED;

    static {
        for (int i = 0; i < ALL.length; i++) ALL[i] = (byte) i;
        byte[][] chunks = {new byte[10], new byte[40], new byte[5], new byte[64]};
        int[] used = {7, 40, 0, 53};
        int at = 0;
        for (int c = 0; c < chunks.length; c++) {
            System.arraycopy(ALL, at, chunks[c], 0, used[c]);
            Arrays.fill(chunks[c], used[c], chunks[c].length, (byte) -1); // spare room must never be read
            at += used[c];
        }
        CHUNKED = FileBytes.ofChunks(chunks, used);
    }

    @Test
    void the_chunks_read_as_one_file_every_way() throws IOException {
        assertThat(CHUNKED.length()).isEqualTo(100);
        assertThat(CHUNKED.toByteArray()).isEqualTo(ALL);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CHUNKED.writeTo(out);
        assertThat(out.toByteArray()).isEqualTo(ALL);
        try (InputStream in = CHUNKED.openStream()) {
            assertThat(in.readAllBytes()).isEqualTo(ALL);
        }
    }

    @Test
    void every_slice_reads_its_bytes_and_is_read_again_from_its_start() throws IOException {
        Random random = new Random(7);
        for (int offset = 0; offset <= 100; offset++) {
            for (int length = 0; offset + length <= 100; length += 1 + random.nextInt(9)) {
                FileBytes slice = CHUNKED.slice(offset, length);
                byte[] expected = Arrays.copyOfRange(ALL, offset, offset + length);
                assertThat(slice.length()).isEqualTo(length);
                assertThat(slice.toByteArray()).isEqualTo(expected);
                assertThat(readByteByByte(slice.openStream())).isEqualTo(expected);
                assertThat(slice.openStream().readAllBytes()).as("a second stream").isEqualTo(expected);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                slice.openStream().transferTo(out);
                assertThat(out.toByteArray()).isEqualTo(expected);
                ByteArrayOutputStream channel = new ByteArrayOutputStream();
                slice.transferTo(java.nio.channels.Channels.newChannel(channel));
                assertThat(channel.toByteArray()).as("to a channel").isEqualTo(expected);
            }
        }
        assertThat(CHUNKED.slice(10, 50).slice(5, 20).toByteArray()).isEqualTo(Arrays.copyOfRange(ALL, 15, 35));
    }

    @Test
    void a_stream_skips_and_reads_in_pieces_across_chunks() throws IOException {
        InputStream in = CHUNKED.openStream();
        assertThat(in.skip(5)).isEqualTo(5);
        byte[] some = new byte[6];
        assertThat(in.read(some, 0, 6)).isEqualTo(2); // the rest of the first chunk
        assertThat(in.read(some, 2, 4)).isEqualTo(4);
        assertThat(some).containsExactly(5, 6, 7, 8, 9, 10);
        assertThat(in.skip(1000)).isEqualTo(89);
        assertThat(in.read()).isEqualTo(-1);
        assertThat(in.read(some, 0, 1)).isEqualTo(-1);
    }

    @Test
    void an_array_is_wrapped_not_copied_and_bad_ranges_are_refused() {
        byte[] bytes = {1, 2, 3, 4};
        FileBytes prefix = FileBytes.of(bytes, 3);
        bytes[0] = 9; // only to show no copy was taken; real callers never write after handing over
        assertThat(prefix.toByteArray()).containsExactly(9, 2, 3);
        assertThat(FileBytes.EMPTY.length()).isZero();
        assertThat(FileBytes.EMPTY.toByteArray()).isEmpty();
        assertThatThrownBy(() -> CHUNKED.slice(90, 11)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> CHUNKED.slice(-1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> FileBytes.of(bytes, 5)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> FileBytes.ofChunks(new byte[][] {new byte[2]}, new int[] {3}))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    private static byte[] readByteByByte(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int b = in.read(); b >= 0; b = in.read()) out.write(b);
        return out.toByteArray();
    }

    @Test
    void release_runs_its_action_once_for_the_file_and_all_its_slices_and_reads_then_fail() {
        int[] runs = {0};
        FileBytes file = FileBytes.ofChunks(new byte[][] {{1, 2, 3}, {4, 5}}, new int[] {3, 2}, () -> runs[0]++);
        FileBytes part = file.slice(1, 3);
        assertThat(part.toByteArray()).containsExactly(2, 3, 4);

        part.release();
        file.release();
        assertThat(runs[0]).isEqualTo(1);
        assertThat(file.released()).isTrue();
        assertThatThrownBy(file::toByteArray).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(part::openStream).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> file.writeTo(new ByteArrayOutputStream())).isInstanceOf(IllegalStateException.class);
        assertThat(file.length()).isEqualTo(5);
    }

    @Test
    void bytes_without_a_release_action_stay_readable_so_the_shared_empty_file_survives_a_release() {
        FileBytes.EMPTY.release();
        assertThat(FileBytes.EMPTY.toByteArray()).isEmpty();
        FileBytes plain = FileBytes.of(new byte[] {9});
        plain.release();
        assertThat(plain.toByteArray()).containsExactly(9);
    }

    /** Bytes outside the heap, as an adapter keeps them: here an array, counting discards. */
    private static final class ArraySource implements FileBytes.Source {
        final java.util.concurrent.atomic.AtomicInteger discards;

        ArraySource(java.util.concurrent.atomic.AtomicInteger discards) {
            this.discards = discards;
        }

        @Override
        public void read(long offset, long length, FileBytes.ChunkVisitor visitor) throws IOException {
            visitor.accept(ALL, (int) offset, (int) length);
        }

        @Override
        public InputStream open(long offset, long length) {
            return new java.io.ByteArrayInputStream(ALL, (int) offset, (int) length);
        }

        @Override
        public void discard() {
            discards.incrementAndGet();
        }
    }

    @Test
    void bytes_off_the_heap_read_through_their_source_and_are_discarded_once_at_release() throws IOException {
        java.util.concurrent.atomic.AtomicInteger discards = new java.util.concurrent.atomic.AtomicInteger();
        FileBytes bytes = FileBytes.ofSource(new ArraySource(discards), 90);
        assertThat(bytes.offHeap()).isTrue();
        assertThat(CHUNKED.offHeap()).isFalse();
        assertThat(bytes.toByteArray()).isEqualTo(Arrays.copyOf(ALL, 90));
        assertThat(bytes.slice(10, 20).toByteArray()).isEqualTo(Arrays.copyOfRange(ALL, 10, 30));
        try (InputStream in = bytes.slice(5, 10).openStream()) {
            assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(ALL, 5, 15));
        }
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        bytes.slice(7, 30).transferTo(java.nio.channels.Channels.newChannel(sent));
        assertThat(sent.toByteArray()).as("by the source's default transfer").isEqualTo(Arrays.copyOfRange(ALL, 7, 37));
        assertThat(bytes.crc32c()).as("not given").isEmpty();
        FileBytes withCrc = FileBytes.ofSource(new ArraySource(discards), 90, 0xfedcba98L);
        assertThat(withCrc.crc32c()).hasValue(0xfedcba98L);
        assertThat(withCrc.slice(0, 90).crc32c()).as("the same bytes").hasValue(0xfedcba98L);
        assertThat(withCrc.slice(1, 89).crc32c()).as("a part has another").isEmpty();
        assertThat(withCrc.slice(0, 89).crc32c()).isEmpty();
        assertThat(CHUNKED.crc32c()).isEmpty();
        assertThatThrownBy(() -> FileBytes.ofSource(new ArraySource(discards), 90, 1L << 32))
                .isInstanceOf(IllegalArgumentException.class);
        InputStream open = bytes.openStream();
        bytes.slice(0, 1).release();
        bytes.release();
        assertThat(discards).hasValue(1);
        assertThatThrownBy(bytes::toByteArray).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> bytes.transferTo(java.nio.channels.Channels.newChannel(new ByteArrayOutputStream())))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(open::read).as("a stream opened before").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void bytes_off_the_heap_that_nobody_releases_are_discarded_once_no_view_is_left() throws InterruptedException {
        java.util.concurrent.atomic.AtomicInteger discards = new java.util.concurrent.atomic.AtomicInteger();
        FileBytes kept = FileBytes.ofSource(new ArraySource(discards), 10).slice(0, 5);
        FileBytes.ofSource(new ArraySource(discards), 10);
        for (int i = 0; i < 200 && discards.get() == 0; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(discards).as("the unreachable one").hasValue(1);
        assertThat(kept.toByteArray()).as("a slice keeps its file").hasSize(5);
    }
}
