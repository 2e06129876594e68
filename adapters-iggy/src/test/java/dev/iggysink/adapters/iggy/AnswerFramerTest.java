package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.iggy.client.async.tcp.IggyFrameDecoder;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;

class AnswerFramerTest {
    @Test
    void cuts_the_same_frames_as_the_clients_decoder_however_the_stream_is_split() {
        Random random = new Random(14);
        for (int round = 0; round < 200; round++) {
            byte[] stream = frames(random, 1 + random.nextInt(6));
            List<byte[]> ours = feed(new EmbeddedChannel(new AnswerFramer()), stream, random.nextLong());
            List<byte[]> clients = feed(new EmbeddedChannel(new IggyFrameDecoder()), stream, random.nextLong());

            assertThat(ours).as("round %d", round).hasSameSizeAs(clients);
            for (int i = 0; i < ours.size(); i++) {
                assertThat(ours.get(i)).as("round %d frame %d", round, i).isEqualTo(clients.get(i));
            }
        }
    }

    @Test
    void a_frame_split_in_its_header_waits_for_the_rest() {
        EmbeddedChannel channel = new EmbeddedChannel(new AnswerFramer());
        ByteBuf frame = Unpooled.buffer().writeIntLE(0).writeIntLE(3).writeBytes(new byte[] {1, 2, 3});

        channel.writeInbound(frame.readRetainedSlice(5));
        ByteBuf none = channel.readInbound();
        assertThat(none).isNull();
        channel.writeInbound(frame.readRetainedSlice(6));
        ByteBuf out = channel.readInbound();

        assertThat(ByteBufUtil.getBytes(out)).containsExactly(0, 0, 0, 0, 3, 0, 0, 0, 1, 2, 3);
        assertThat(out.capacity()).as("allocated at the announced size").isEqualTo(11);
        out.release();
        frame.release();
    }

    @Test
    void a_negative_length_is_a_corrupt_frame_and_a_half_frame_is_freed_with_the_channel() {
        EmbeddedChannel bad = new EmbeddedChannel(new AnswerFramer());
        ByteBuf in = Unpooled.buffer().writeIntLE(0).writeIntLE(-1).writeByte(7);
        try {
            bad.writeInbound(in);
            bad.checkException();
            throw new AssertionError("no exception");
        } catch (CorruptedFrameException e) {
            assertThat(e.getMessage()).contains("4294967295");
        }
        assertThat(in.refCnt()).as("the read buffer is released").isZero();

        EmbeddedChannel half = new EmbeddedChannel(new AnswerFramer());
        half.writeInbound(Unpooled.buffer().writeIntLE(0).writeIntLE(1000).writeBytes(new byte[10]));
        assertThat(half.finishAndReleaseAll()).isFalse();
    }

    /** {@code count} frames of random status and length (0 to 200 KiB), back to back. */
    private static byte[] frames(Random random, int count) {
        ByteBuf all = Unpooled.buffer();
        for (int i = 0; i < count; i++) {
            int length = random.nextInt(4) == 0 ? 0 : random.nextInt(200 * 1024);
            byte[] payload = new byte[length];
            random.nextBytes(payload);
            all.writeIntLE(random.nextInt(3) == 0 ? 1011 : 0).writeIntLE(length).writeBytes(payload);
        }
        byte[] bytes = ByteBufUtil.getBytes(all);
        all.release();
        return bytes;
    }

    /** Writes {@code stream} in random pieces (1 byte to 64 KiB) and returns the frames that came out. */
    private static List<byte[]> feed(EmbeddedChannel channel, byte[] stream, long seed) {
        Random random = new Random(seed);
        List<byte[]> out = new ArrayList<>();
        int at = 0;
        while (at < stream.length) {
            int n = Math.min(stream.length - at, 1 + random.nextInt(random.nextBoolean() ? 16 : 64 * 1024));
            channel.writeInbound(Unpooled.copiedBuffer(stream, at, n));
            at += n;
            for (ByteBuf frame; (frame = channel.readInbound()) != null; ) {
                out.add(ByteBufUtil.getBytes(frame));
                frame.release();
            }
        }
        channel.finishAndReleaseAll();
        return out;
    }
}
