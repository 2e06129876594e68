package dev.iggysink.adapters.iggy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * The channel's {@link RecvByteBufAllocator} (what hands each socket read its buffer): the channel's own, except
 * that while an {@link AnswerFrameDecoder} is filling a frame a read goes into the rest of that frame
 * ({@link AnswerFrameDecoder#readTarget}). Everything else (how much to read, when to stop) is the channel's own
 * allocator's.
 *
 * <p>Only on a plain NIO channel whose first handler is the decoder: behind TLS the socket's bytes are not the
 * frame's. A channel reads through the handle it made at its first read, so this takes effect only when set before
 * it (the decoder is installed before any request); set later, it is never asked, and the decoder copies as before.
 */
// RecvByteBufAllocator.newHandle() is declared to return the deprecated Handle; the handle made here is an
// ExtendedHandle, as Netty's own are.
@SuppressWarnings("deprecation")
final class FrameRecvByteBufAllocator implements RecvByteBufAllocator {
    private final RecvByteBufAllocator channels;
    private final AnswerFrameDecoder decoder;

    private FrameRecvByteBufAllocator(RecvByteBufAllocator channels, AnswerFrameDecoder decoder) {
        this.channels = channels;
        this.decoder = decoder;
    }

    /** Sets the reads of {@code channel} to go into {@code decoder}'s frames, where that is safe; true if set. */
    static boolean install(Channel channel, AnswerFrameDecoder decoder) {
        if (!(channel instanceof NioSocketChannel) || channel.pipeline().first() != decoder) return false;
        ChannelConfig config = channel.config();
        RecvByteBufAllocator current = config.getRecvByteBufAllocator();
        if (current instanceof FrameRecvByteBufAllocator) return false;
        config.setRecvByteBufAllocator(new FrameRecvByteBufAllocator(current, decoder));
        return true;
    }

    @Override
    public Handle newHandle() {
        return new InPlace(channels.newHandle(), decoder);
    }

    private static final class InPlace implements RecvByteBufAllocator.ExtendedHandle {
        private final Handle handle;
        private final AnswerFrameDecoder decoder;

        InPlace(Handle handle, AnswerFrameDecoder decoder) {
            this.handle = handle;
            this.decoder = decoder;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            ByteBuf target = decoder.readTarget();
            return target != null ? target : handle.allocate(alloc);
        }

        @Override
        public int guess() {
            return handle.guess();
        }

        @Override
        public void reset(ChannelConfig config) {
            handle.reset(config);
        }

        @Override
        public void incMessagesRead(int numMessages) {
            handle.incMessagesRead(numMessages);
        }

        @Override
        public void lastBytesRead(int bytes) {
            handle.lastBytesRead(bytes);
        }

        @Override
        public int lastBytesRead() {
            return handle.lastBytesRead();
        }

        @Override
        public boolean continueReading() {
            return handle.continueReading();
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return handle instanceof ExtendedHandle extended ? extended.continueReading(maybeMoreDataSupplier)
                    : handle.continueReading();
        }

        @Override
        public int attemptedBytesRead() {
            return handle.attemptedBytesRead();
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            handle.attemptedBytesRead(bytes);
        }

        @Override
        public void readComplete() {
            handle.readComplete();
        }
    }
}
