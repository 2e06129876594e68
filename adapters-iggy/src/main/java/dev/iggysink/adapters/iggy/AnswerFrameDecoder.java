package dev.iggysink.adapters.iggy;

import java.util.concurrent.CompletableFuture;

import org.apache.iggy.client.async.tcp.AsyncTcpConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.pool.ChannelPool;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.util.concurrent.Future;

/**
 * Cuts the server's answers ({@code [status u32 LE][length u32 LE][length bytes]}) out of the TCP stream and passes
 * each on as one buffer holding exactly that frame, as the client's own frame decoder does, but with one copy: the
 * frame's buffer is allocated at the size its header announces, and the bytes go into it as they arrive.
 *
 * <p>Why: the client's decoder gathers a frame in a buffer that grows by doubling (a poll answer of 1 MiB arrives in
 * 64 KiB reads: five reallocations, each zeroed and copied) and then copies the whole frame into a new buffer
 * (figures: docs/adr/0008-netty-buffers-without-zero-fill.md).
 *
 * <p>In Netty's terms a frame decoder (the role of {@code ByteToMessageDecoder} subclasses such as the client's own
 * {@code IggyFrameDecoder}, which it replaces under the same name), written as a plain inbound handler so that it
 * owns the frame's buffer.
 *
 * <p>The client (0.8.0) builds its channel pipeline itself and offers no way in, so {@link #install} takes the
 * connection's channel from its pool (a private field, read by reflection: {@link IggyClientShape}) and swaps the
 * decoder, before any request is sent. A client shaped otherwise (another version) fails the install with an
 * {@link IggyClientShapeException}, and so the sink's start; a channel that cannot be had (closed) leaves the
 * client's decoder in place, which frames the same bytes the same way, only with more copying; so does a channel
 * the pool opens later.
 *
 * <p>Once a frame's header is known, the channel's reads go straight into the rest of the frame
 * ({@link FrameRecvByteBufAllocator}, set on a plain NIO channel whose first handler this is): the socket's bytes land
 * where they belong, and only what a read brought along with a header (at most one read's worth per frame) is copied.
 * A poll answer of 1 MiB was otherwise copied once more in full
 * (figures: docs/adr/0008-netty-buffers-without-zero-fill.md).
 */
final class AnswerFrameDecoder extends ChannelInboundHandlerAdapter {
    private static final int HEADER = 8;
    private static final Logger LOG = LoggerFactory.getLogger(AnswerFrameDecoder.class);
    private static final String DECODER = IggyClientShape.DECODER;

    /** Below this many bytes left in a frame, a read of the channel's own size is as good. */
    static final int MIN_IN_PLACE = 4096;

    private final ByteBuf header = Unpooled.buffer(HEADER, HEADER);
    /** The frame being filled, or null between frames. */
    private ByteBuf frame;
    private int missing;
    /** The unfilled rest of {@link #frame} last handed to a read ({@link #readTarget}), or null. */
    private ByteBuf readTarget;
    private long bytesInPlace;

    /**
     * Where the channel's next read should put its bytes: a view of the unfilled rest of the frame being filled,
     * when enough of it is left; null to let the channel allocate as usual. Called by the channel's read loop on
     * the event loop, before a read; the view comes back through {@link #channelRead} (or the loop releases it when
     * the read brings nothing).
     */
    ByteBuf readTarget() {
        if (frame == null || missing < MIN_IN_PLACE) return null;
        ByteBuf target = frame.retainedSlice(frame.writerIndex(), missing);
        target.clear();
        readTarget = target;
        return target;
    }

    /** Bytes that went from the socket straight into their frame (for tests). */
    long bytesInPlace() {
        return bytesInPlace;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (in == readTarget) {
            readTarget = null;
            int n = in.readableBytes();
            in.release();
            frame.writerIndex(frame.writerIndex() + n);
            missing -= n;
            bytesInPlace += n;
            if (missing == 0) {
                ByteBuf done = frame;
                frame = null;
                ctx.fireChannelRead(done);
            }
            return;
        }
        try {
            while (in.isReadable()) {
                if (frame == null) {
                    header.writeBytes(in, Math.min(header.writableBytes(), in.readableBytes()));
                    if (header.isWritable()) return;
                    int length = header.getIntLE(4);
                    if (length < 0) {
                        header.clear();
                        in.skipBytes(in.readableBytes());
                        ctx.fireExceptionCaught(new CorruptedFrameException(
                                "Iggy answer announces " + Integer.toUnsignedString(length) + " bytes"));
                        return;
                    }
                    frame = ctx.alloc().buffer(HEADER + length, HEADER + length);
                    frame.writeBytes(header);
                    header.clear();
                    missing = length;
                }
                int n = Math.min(missing, in.readableBytes());
                frame.writeBytes(in, n);
                missing -= n;
                if (missing == 0) {
                    ByteBuf done = frame;
                    frame = null;
                    ctx.fireChannelRead(done);
                }
            }
        } finally {
            in.release();
        }
    }

    /**
     * Puts a decoder in place of the client's on the connection's channel, and {@link DirectRequestHandler} right
     * after it; completes with the latter once done, or with null when the channel cannot be had. Completes
     * exceptionally with {@link IggyClientShapeException} when the client is not shaped as the one the handlers are
     * written for. Call it after the connection's {@code connect()} and before any request.
     */
    static CompletableFuture<DirectRequestHandler> install(AsyncTcpConnection connection) {
        ChannelPool pool;
        try {
            pool = IggyClientShape.channelPool(connection);
        } catch (IggyClientShapeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<DirectRequestHandler> installed = new CompletableFuture<>();
        pool.acquire().addListener((Future<Channel> acquired) -> {
            if (!acquired.isSuccess()) {
                // The connection's own calls report what is wrong with it.
                installed.complete(null);
                return;
            }
            Channel channel = acquired.getNow();
            DirectRequestHandler direct = null;
            IggyClientShapeException reshaped = null;
            try {
                IggyClientShape.checkPipeline(channel.pipeline());
                AnswerFrameDecoder decoder = new AnswerFrameDecoder();
                channel.pipeline().replace(DECODER, DECODER, decoder);
                boolean inPlace = FrameRecvByteBufAllocator.install(channel, decoder);
                DirectRequestHandler requests = new DirectRequestHandler(channel);
                channel.pipeline().addAfter(DECODER, DirectRequestHandler.NAME, requests);
                direct = requests;
                LOG.debug("Iggy answers framed by the sink{}", inPlace ? ", read into their frames" : "");
            } catch (IggyClientShapeException e) {
                reshaped = e;
            } catch (RuntimeException e) {
                // A channel closed meanwhile: the client's next channel keeps the client's handlers.
                LOG.debug("keeping the Iggy client's frame decoder: {}", e.toString());
            } finally {
                pool.release(channel);
                if (reshaped != null) {
                    installed.completeExceptionally(reshaped);
                } else {
                    installed.complete(direct);
                }
            }
        });
        return installed;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        readTarget = null; // a view of the frame: released by whoever holds it
        if (frame != null) {
            frame.release();
            frame = null;
        }
    }
}
