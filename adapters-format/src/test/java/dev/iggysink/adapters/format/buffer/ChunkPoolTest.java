package dev.iggysink.adapters.format.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.file.FileBytes;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChunkPoolTest {
    private static final int K64 = (64 << 10) - ByteBuf.HEADER_SLACK;
    private static final int M4 = (4 << 20) - ByteBuf.HEADER_SLACK;

    @Test
    void a_chunk_given_back_is_taken_again_for_its_size_only() {
        ChunkPool pool = new ChunkPool(16 << 20);
        byte[] chunk = pool.take(K64);
        pool.give(chunk);
        assertThat(pool.idleBytes()).isEqualTo(K64);

        assertThat(pool.take(2 * K64 + ByteBuf.HEADER_SLACK)).isNotSameAs(chunk).hasSize(128 * 1024 - 64);
        assertThat(pool.take(K64)).isSameAs(chunk);
        assertThat(pool.idleBytes()).isZero();
        assertThat(pool.take(K64)).isNotSameAs(chunk);
    }

    @Test
    void only_the_buffer_sizes_from_64_kib_to_4_mib_are_kept() {
        ChunkPool pool = new ChunkPool(64 << 20);
        pool.give(new byte[1000]);
        pool.give(new byte[64 << 10]); // a power of two without the slack is not a buffer chunk
        pool.give(new byte[(32 << 10) - ByteBuf.HEADER_SLACK]);
        pool.give(new byte[(8 << 20) - ByteBuf.HEADER_SLACK]);
        assertThat(pool.idleBytes()).isZero();

        pool.give(new byte[M4]);
        assertThat(pool.idleBytes()).isEqualTo(M4);
    }

    @Test
    void no_more_than_the_cap_is_kept_idle() {
        ChunkPool pool = new ChunkPool(3L * K64);
        for (int i = 0; i < 5; i++) pool.give(new byte[K64]);
        assertThat(pool.idleBytes()).isEqualTo(3L * K64);
        pool.give(new byte[M4]);
        assertThat(pool.idleBytes()).isEqualTo(3L * K64);
    }

    @Test
    void a_released_file_lends_its_chunks_to_the_next_one_and_can_no_longer_be_read() throws Exception {
        ChunkPool pool = new ChunkPool(64 << 20);
        ByteBuf first = new ByteBuf(K64, pool);
        byte[] data = new byte[3 << 20];
        new Random(7).nextBytes(data);
        for (int at = 0; at < data.length; at += 1024) first.write(data, at, 1024); // record by record
        FileBytes sealed = first.takeFileBytes();
        assertThat(sealed.toByteArray()).isEqualTo(data);
        assertThat(pool.idleBytes()).as("not before the release").isZero();

        sealed.release();
        long idle = pool.idleBytes();
        assertThat(idle).isGreaterThanOrEqualTo(data.length);
        assertThatThrownBy(sealed::toByteArray).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after release");
        assertThatThrownBy(sealed::openStream).isInstanceOf(IllegalStateException.class);
        sealed.release(); // a second release gives nothing back twice
        assertThat(pool.idleBytes()).isEqualTo(idle);

        // The next file is built in the same arrays, and reads back its own bytes, not the old ones.
        ByteBuf second = new ByteBuf(K64, pool);
        byte[] other = new byte[data.length];
        new Random(8).nextBytes(other);
        for (int at = 0; at < other.length; at += 1024) second.write(other, at, 1024);
        assertThat(pool.idleBytes()).isLessThan(idle);
        assertThat(second.takeFileBytes().toByteArray()).isEqualTo(other);
    }

    @Test
    void chunks_cut_off_or_dropped_unread_go_back_but_a_handed_over_array_does_not() {
        ChunkPool pool = new ChunkPool(64 << 20);
        ByteBuf buf = new ByteBuf(K64, pool);
        buf.write(new byte[K64 + 10], 0, K64 + 10); // a second chunk of 128 KiB
        buf.truncate(5);
        assertThat(pool.idleBytes()).isEqualTo(2L * (64 << 10) - ByteBuf.HEADER_SLACK);
        buf.release();
        assertThat(pool.idleBytes()).isEqualTo(2L * (64 << 10) - ByteBuf.HEADER_SLACK + K64);

        ChunkPool empty = new ChunkPool(64 << 20);
        ByteBuf full = new ByteBuf(K64, empty);
        full.write(new byte[K64], 0, K64);
        byte[] taken = full.takeBytes(); // exactly full: the chunk itself leaves
        assertThat(taken).hasSize(K64);
        assertThat(empty.idleBytes()).isZero();
    }
}
