package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.adapters.format.json.JsonOut;
import dev.iggysink.application.settings.Compression;
import org.junit.jupiter.api.Test;

class ByteBufTest {
    @Test
    void taking_the_bytes_hands_over_a_full_array_and_copies_a_partial_one_then_lets_go() {
        ByteBuf full = new ByteBuf(16);
        byte[] backing = full.reserve(16);
        full.setPosition(16);
        assertThat(full.takeBytes()).isSameAs(backing);
        assertThat(full.length()).isZero();
        assertThat(full.capacity()).isZero();

        ByteBuf partial = new ByteBuf(16);
        partial.writeAscii("abc");
        byte[] taken = partial.takeBytes();
        assertThat(taken).containsExactly('a', 'b', 'c');
        assertThat(partial.capacity()).isZero();
    }

    @Test
    void a_finished_file_keeps_no_buffer_behind_whatever_its_compression() {
        for (Compression c : Compression.values()) {
            JsonWrapperEncoder file = new JsonWrapperEncoder(false, false, false, c);
            file.buf.writeAscii("{\"payload\":1}\n");
            assertThat(file.finish().toByteArray()).as("%s", c).isNotEmpty();
            assertThat(file.buf.capacity()).as("%s", c).isZero();
        }
    }

    @Test
    void chunked_writes_read_back_in_order_and_truncate_across_chunks() throws java.io.IOException {
        java.util.Random r = new java.util.Random(42);
        for (int round = 0; round < 200; round++) {
            ByteBuf buf = new ByteBuf(16);
            java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
            for (int op = 0; op < 60; op++) {
                switch (r.nextInt(5)) {
                    case 0 -> {
                        byte[] b = new byte[r.nextInt(100)];
                        r.nextBytes(b);
                        buf.write(b);
                        expected.write(b, 0, b.length);
                    }
                    case 1 -> {
                        long v = r.nextLong() >> r.nextInt(64);
                        buf.writeLong(v);
                        expected.writeBytes(Long.toString(v).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    }
                    case 2 -> {
                        int b = r.nextInt(256);
                        buf.write(b);
                        expected.write(b);
                    }
                    case 3 -> {
                        String s = "x".repeat(r.nextInt(50)) + "\u00e9\n";
                        JsonOut.string(buf, s);
                        ByteBuf one = new ByteBuf(1 << 12);
                        JsonOut.string(one, s);
                        expected.writeBytes(one.toByteArray());
                    }
                    default -> {
                        int to = r.nextInt(buf.length() + 1);
                        buf.truncate(to);
                        byte[] kept = java.util.Arrays.copyOf(expected.toByteArray(), to);
                        expected.reset();
                        expected.writeBytes(kept);
                    }
                }
                assertThat(buf.length()).isEqualTo(expected.size());
            }
            assertThat(buf.toByteArray()).isEqualTo(expected.toByteArray());
            assertThat(buf.capacity()).isLessThanOrEqualTo(2L * expected.size() + 4096);
            if (round % 2 == 0) {
                assertThat(buf.takeBytes()).isEqualTo(expected.toByteArray());
            } else {
                dev.iggysink.application.file.FileBytes taken = buf.takeFileBytes();
                assertThat(taken.toByteArray()).isEqualTo(expected.toByteArray());
                assertThat(taken.openStream().readAllBytes()).isEqualTo(expected.toByteArray());
                assertThat(buf.capacity()).isZero();
            }
        }
    }

    @Test
    void a_sealed_plain_file_is_the_encoders_own_chunks_not_a_copy() {
        JsonWrapperEncoder file = new JsonWrapperEncoder(false, false, false, Compression.NONE);
        byte[] record = new byte[1000];
        java.util.Arrays.fill(record, (byte) 'a');
        while (file.buf.length() < 300_000) file.buf.write(record); // several chunks
        byte[] first = file.buf.reserve(1);
        int at = file.buf.position();
        first[at] = 'z';
        file.buf.setPosition(at + 1);
        int written = file.buf.length();

        dev.iggysink.application.file.FileBytes sealed = file.finish();
        assertThat(sealed.length()).isEqualTo(written);
        first[at] = 'y'; // only to see which array the sealed file reads

        assertThat(sealed.toByteArray()[(int) sealed.length() - 1]).isEqualTo((byte) 'y');
        assertThat(file.buf.capacity()).isZero();
    }

    @Test
    void an_8_MiB_file_takes_at_most_12_MiB_in_chunks_that_fit_whole_regions() {
        ByteBuf buf = new ByteBuf(64 * 1024 - ByteBuf.HEADER_SLACK);
        byte[] record = new byte[1000];
        while (buf.length() < (8 << 20) + 8000) buf.write(record);
        assertThat(buf.capacity()).isLessThanOrEqualTo(12L << 20);
        assertThat((buf.capacity() + 8 * ByteBuf.HEADER_SLACK) % (64 * 1024)).isZero();
    }
}
