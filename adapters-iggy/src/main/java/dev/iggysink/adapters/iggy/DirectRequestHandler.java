package dev.iggysink.adapters.iggy;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

import org.apache.iggy.exception.IggyConnectionClosedException;
import org.apache.iggy.exception.IggyServerException;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * A duplex handler on the connection's channel that writes the sink's own requests (its polls) directly, past the
 * client's channel pool, and takes their answers off the channel before the client's response handler sees them.
 *
 * <p>Why: the client sends every request through a {@code FixedChannelPool} of one channel: acquire, health check,
 * listener, write, answer, release and health check again, each step a task handed between the pool's event loop
 * and the channel's with a wake-up of the other thread. Per poll that cost more CPU than reading and framing its
 * megabyte of answer (docs/adr/0011-polls-past-the-client-channel-pool.md).
 *
 * <p>How an answer finds its request: the server answers a connection's requests one at a time, in the order they
 * arrive (its connection loop reads, handles and answers one request before it reads the next; the conformance suite's
 * {@code RawFrameConformanceIT} checks it, and runs against a real server with {@code IGGY_TCP_ADDRESS}). Every
 * message written on the channel is one request, the client's as well (its login replay included). This handler sits
 * between the decoder and the client's response handler and sees, on the event loop, every write in the order it goes
 * out: a request of the sink is noted with its future, any other write as the client's. Each answer goes to the oldest
 * note: the sink's future, or on to the client's handler, whose own queue then holds exactly the client's requests, in
 * order. Confined to the channel's event loop, so no lock.
 */
final class DirectRequestHandler extends ChannelDuplexHandler {
    /** The note for a request of the client's: its answer goes on down the pipeline. */
    private static final Object CLIENTS = new Object();
    static final String NAME = "sinkRequests";
    /** A request's header (length u32, code u32) and an answer's (status u32, length u32). */
    static final int HEADER = 8;

    private final Channel channel;
    /** Requests written and not yet answered, oldest first: a future of the sink's, or {@link #CLIENTS}. */
    private final ArrayDeque<Object> unanswered = new ArrayDeque<>();
    /** Set on the event loop when the handler is added; read by callers of {@link #usable} on other threads. */
    private volatile ChannelHandlerContext ctx;

    DirectRequestHandler(Channel channel) {
        this.channel = channel;
    }

    /** Whether a request sent now can reach the server on this channel. */
    boolean usable() {
        return ctx != null && channel.isActive();
    }

    /**
     * Sends {@code [u32 length][u32 code][payload]} and completes with the answer's body (the caller releases it),
     * or with the server's error as the client reports it ({@link IggyServerException}); with
     * {@link IggyConnectionClosedException} when the channel closes first. Takes over {@code payload}.
     */
    CompletableFuture<ByteBuf> send(int code, ByteBuf payload) {
        CompletableFuture<ByteBuf> answer = new CompletableFuture<>();
        ByteBuf frame;
        try {
            int length = payload.readableBytes();
            frame = channel.alloc().buffer(HEADER + length);
            frame.writeIntLE(4 + length).writeIntLE(code).writeBytes(payload);
        } finally {
            payload.release();
        }
        try {
            channel.eventLoop().execute(() -> write(frame, answer));
        } catch (RejectedExecutionException e) {
            frame.release();
            answer.completeExceptionally(new IggyConnectionClosedException("the Iggy connection is shut down"));
        }
        return answer;
    }

    private void write(ByteBuf frame, CompletableFuture<ByteBuf> answer) {
        if (ctx == null || !channel.isActive()) {
            frame.release();
            answer.completeExceptionally(new IggyConnectionClosedException());
            return;
        }
        unanswered.add(answer);
        ctx.writeAndFlush(frame).addListener(written -> {
            // A failed write closes the channel; channelInactive fails the future too, whichever comes first.
            if (!written.isSuccess()) answer.completeExceptionally(written.cause());
        });
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        unanswered.add(CLIENTS);
        ctx.write(msg, promise);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Object next = unanswered.poll();
        if (!(next instanceof CompletableFuture<?> f) || !(msg instanceof ByteBuf frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        @SuppressWarnings("unchecked")
        CompletableFuture<ByteBuf> answer = (CompletableFuture<ByteBuf>) f;
        try {
            int at = frame.readerIndex();
            int status = frame.getIntLE(at);
            int length = frame.readableBytes() - HEADER;
            if (status == 0) {
                ByteBuf body = frame.retainedSlice(at + HEADER, length);
                // A request given up on (timed out) still takes its answer off the channel.
                if (!answer.complete(body)) body.release();
            } else {
                byte[] error = new byte[length];
                frame.getBytes(at + HEADER, error);
                answer.completeExceptionally(IggyServerException.fromTcpResponse(status, error));
            }
        } finally {
            frame.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        failAll(new IggyConnectionClosedException());
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // The client's handler closes the channel; the sink's requests can no longer be answered in order.
        failAll(cause);
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        failAll(new IggyConnectionClosedException("the sink's request handler was removed"));
    }

    private void failAll(Throwable cause) {
        for (Object o; (o = unanswered.poll()) != null; ) {
            if (o instanceof CompletableFuture<?> f) f.completeExceptionally(cause);
        }
    }
}
