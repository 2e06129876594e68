package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.iggy.client.async.tcp.IggyFrameDecoder;
import org.junit.jupiter.api.Test;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.CorruptedFrameException;

class AnswerFrameDecoderTest {
    @Test
    void cuts_the_same_frames_as_the_clients_decoder_however_the_stream_is_split() {
        Random random = new Random(14);
        for (int round = 0; round < 200; round++) {
            byte[] stream = frames(random, 1 + random.nextInt(6));
            List<byte[]> ours = feed(new EmbeddedChannel(new AnswerFrameDecoder()), stream, random.nextLong());
            List<byte[]> clients = feed(new EmbeddedChannel(new IggyFrameDecoder()), stream, random.nextLong());

            assertThat(ours).as("round %d", round).hasSameSizeAs(clients);
            for (int i = 0; i < ours.size(); i++) {
                assertThat(ours.get(i)).as("round %d frame %d", round, i).isEqualTo(clients.get(i));
            }
        }
    }

    @Test
    void a_frame_split_in_its_header_waits_for_the_rest() {
        EmbeddedChannel channel = new EmbeddedChannel(new AnswerFrameDecoder());
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
        EmbeddedChannel bad = new EmbeddedChannel(new AnswerFrameDecoder());
        ByteBuf in = Unpooled.buffer().writeIntLE(0).writeIntLE(-1).writeByte(7);
        try {
            bad.writeInbound(in);
            bad.checkException();
            throw new AssertionError("no exception");
        } catch (CorruptedFrameException e) {
            assertThat(e.getMessage()).contains("4294967295");
        }
        assertThat(in.refCnt()).as("the read buffer is released").isZero();

        EmbeddedChannel half = new EmbeddedChannel(new AnswerFrameDecoder());
        half.writeInbound(Unpooled.buffer().writeIntLE(0).writeIntLE(1000).writeBytes(new byte[10]));
        assertThat(half.finishAndReleaseAll()).isFalse();
    }

    /**
     * Over a real socket, reads go straight into the frame being filled: the frames are the bytes sent, and all but
     * what arrived with a header (a read's worth per frame at most) went in without a copy.
     */
    @Test
    void over_a_socket_reads_fill_the_frame_in_place_and_the_frames_are_the_bytes_sent() throws Exception {
        Random random = new Random(9);
        List<byte[]> sent = new ArrayList<>();
        ByteBuf all = Unpooled.buffer();
        for (int i = 0; i < 24; i++) {
            int length = i % 6 == 0 ? random.nextInt(100) : 200_000 + random.nextInt(1_500_000);
            byte[] payload = new byte[length];
            random.nextBytes(payload);
            ByteBuf one = Unpooled.buffer().writeIntLE(0).writeIntLE(length).writeBytes(payload);
            sent.add(ByteBufUtil.getBytes(one));
            all.writeBytes(one);
            one.release();
        }
        byte[] stream = ByteBufUtil.getBytes(all);
        all.release();

        List<byte[]> received = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(sent.size());
        AnswerFrameDecoder decoder = new AnswerFrameDecoder();
        AtomicBoolean installed = new AtomicBoolean();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread writer = new Thread(() -> {
                try (Socket s = server.accept(); OutputStream out = s.getOutputStream()) {
                    // As Iggy: nothing is sent before the client asks.
                    if (s.getInputStream().read() < 0) return;
                    Random pieces = new Random(3);
                    for (int at = 0; at < stream.length; ) {
                        int n = Math.min(stream.length - at, 1 + pieces.nextInt(pieces.nextBoolean() ? 64 : 300_000));
                        out.write(stream, at, n);
                        out.flush();
                        at += n;
                    }
                    done.await(30, TimeUnit.SECONDS);
                } catch (IOException | InterruptedException e) {
                    // the test fails on the frames it misses
                }
            });
            writer.start();
            Channel channel = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(decoder, new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ByteBuf frame = (ByteBuf) msg;
                                    received.add(ByteBufUtil.getBytes(frame));
                                    frame.release();
                                    done.countDown();
                                }
                            });
                        }
                    })
                    .connect(server.getLocalSocketAddress()).sync().channel();
            // As the connection does it: once connected, before the first request.
            channel.eventLoop().submit(() -> installed.set(FrameRecvByteBufAllocator.install(channel, decoder))).sync();
            channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1})).sync();
            assertThat(done.await(60, TimeUnit.SECONDS)).as("every frame arrived").isTrue();
            channel.close().sync();
            writer.join(10_000);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }

        assertThat(installed).isTrue();
        assertThat(received).hasSameSizeAs(sent);
        for (int i = 0; i < sent.size(); i++) {
            assertThat(received.get(i)).as("frame %d", i).isEqualTo(sent.get(i));
        }
        assertThat(decoder.bytesInPlace()).as("of %d bytes", stream.length).isGreaterThan(stream.length * 8L / 10);
    }

    @Test
    void reads_stay_the_channels_own_behind_another_first_handler_or_on_another_transport() {
        AnswerFrameDecoder behind = new AnswerFrameDecoder();
        NioSocketChannel tls = new NioSocketChannel();
        tls.pipeline().addLast(new ChannelInboundHandlerAdapter(), behind);
        AnswerFrameDecoder first = new AnswerFrameDecoder();
        NioSocketChannel plain = new NioSocketChannel();
        plain.pipeline().addLast(first);
        EmbeddedChannel embedded = new EmbeddedChannel(new AnswerFrameDecoder());
        try {
            assertThat(FrameRecvByteBufAllocator.install(tls, behind)).as("behind another handler (TLS)").isFalse();
            assertThat((Object) tls.config().getRecvByteBufAllocator())
                    .isNotInstanceOf(FrameRecvByteBufAllocator.class);
            assertThat(FrameRecvByteBufAllocator.install(embedded, (AnswerFrameDecoder) embedded.pipeline().first()))
                    .as("not a NIO socket").isFalse();
            assertThat(FrameRecvByteBufAllocator.install(plain, first)).isTrue();
            assertThat((Object) plain.config().getRecvByteBufAllocator()).isInstanceOf(FrameRecvByteBufAllocator.class);
            assertThat(FrameRecvByteBufAllocator.install(plain, first)).as("once").isFalse();
        } finally {
            tls.unsafe().closeForcibly();
            plain.unsafe().closeForcibly();
            embedded.finishAndReleaseAll();
        }
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
