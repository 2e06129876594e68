package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.settings.Compression;
import org.junit.jupiter.api.Test;

class ByteBufTest {
    @Test
    void taking_the_bytes_hands_over_a_full_array_and_copies_a_partial_one_then_lets_go() {
        ByteBuf full = new ByteBuf(16);
        byte[] backing = full.reserve(16);
        full.setLength(16);
        assertThat(full.takeBytes()).isSameAs(backing);
        assertThat(full.length()).isZero();
        assertThat(full.array()).isEmpty();

        ByteBuf partial = new ByteBuf(16);
        partial.writeAscii("abc");
        byte[] taken = partial.takeBytes();
        assertThat(taken).containsExactly('a', 'b', 'c');
        assertThat(partial.array()).isEmpty();
    }

    @Test
    void a_finished_file_keeps_no_buffer_behind_whatever_its_compression() {
        for (Compression c : Compression.values()) {
            JsonWrapperEncoder file = new JsonWrapperEncoder(false, false, false, c);
            file.buf.writeAscii("{\"payload\":1}\n");
            assertThat(file.finish()).as("%s", c).isNotEmpty();
            assertThat(file.buf.array()).as("%s", c).isEmpty();
        }
    }
}
