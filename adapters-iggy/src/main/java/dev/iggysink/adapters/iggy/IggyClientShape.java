package dev.iggysink.adapters.iggy;

import java.lang.reflect.Field;

import org.apache.iggy.client.async.tcp.AsyncTcpConnection;
import org.apache.iggy.client.async.tcp.IggyFrameDecoder;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.pool.ChannelPool;

/**
 * What the sink's Netty handlers ({@link AnswerFrameDecoder}, {@link DirectRequestHandler},
 * {@link FrameRecvByteBufAllocator}) take from the inside of the Iggy client: the connection's channel pool, a
 * private field read by reflection, and the names of the client's handlers in the channel's pipeline.
 *
 * <p>The client offers no way into its pipeline, so these are the client's implementation, not its API, and another
 * client version may differ. When it does, the sink stops at its first connection with an
 * {@link IggyClientShapeException} naming what is missing, rather than carry on some other way: a quiet fallback
 * would hide that the sink runs untested code paths. {@code IggyClientShapeTest} checks each of these against the
 * pinned client.
 */
final class IggyClientShape {
    /** The client version the handlers are written and tested for (the pom's {@code iggy.version}). */
    static final String CLIENT_VERSION = "0.8.0";
    /** The private field of {@link AsyncTcpConnection} that holds its channel pool. */
    static final String CHANNEL_POOL_FIELD = "channelPool";
    /** The names under which the client adds its frame decoder and its response handler. */
    static final String DECODER = "frameDecoder";
    static final String RESPONSE_HANDLER = "responseHandler";

    private IggyClientShape() {
    }

    /** The connection's channel pool. */
    static ChannelPool channelPool(AsyncTcpConnection connection) {
        Field field = channelPoolField(AsyncTcpConnection.class);
        try {
            return (ChannelPool) field.get(connection);
        } catch (IllegalAccessException e) {
            throw changed("cannot read " + describe(AsyncTcpConnection.class) + ": " + e.getMessage(), e);
        }
    }

    /** The field of {@code owner} named {@link #CHANNEL_POOL_FIELD}, made accessible; fails if it is not a pool. */
    static Field channelPoolField(Class<?> owner) {
        Field field;
        try {
            field = owner.getDeclaredField(CHANNEL_POOL_FIELD);
        } catch (NoSuchFieldException e) {
            throw changed(owner.getName() + " has no field '" + CHANNEL_POOL_FIELD + "'", e);
        }
        if (!ChannelPool.class.isAssignableFrom(field.getType())) {
            throw changed(describe(owner) + " is a " + field.getType().getName() + ", not a "
                    + ChannelPool.class.getName(), null);
        }
        try {
            field.setAccessible(true);
        } catch (RuntimeException e) {
            // InaccessibleObjectException: the client became a named module that does not open the package.
            throw changed("cannot open " + describe(owner) + ": " + e.getMessage(), e);
        }
        return field;
    }

    /** Fails unless the pipeline holds the client's decoder and response handler under the names the sink uses. */
    static void checkPipeline(ChannelPipeline pipeline) {
        expect(pipeline, DECODER, IggyFrameDecoder.class);
        expect(pipeline, RESPONSE_HANDLER, AsyncTcpConnection.IggyResponseHandler.class);
    }

    private static void expect(ChannelPipeline pipeline, String name, Class<?> type) {
        ChannelHandler handler = pipeline.get(name);
        if (!type.isInstance(handler)) {
            throw new IggyClientShapeException("the Iggy client's channel pipeline has "
                    + (handler == null ? "no handler" : "a " + handler.getClass().getName()) + " under '" + name
                    + "' where the sink expects the client's " + type.getSimpleName() + " (org.apache.iggy:iggy "
                    + CLIENT_VERSION + "); the sink's Netty handlers are written for that client version");
        }
    }

    private static String describe(Class<?> owner) {
        return "the field '" + CHANNEL_POOL_FIELD + "' of " + owner.getName();
    }

    private static IggyClientShapeException changed(String what, Throwable cause) {
        return new IggyClientShapeException("the Iggy client is not shaped as org.apache.iggy:iggy " + CLIENT_VERSION
                + ", which the sink's Netty handlers are written for: " + what, cause);
    }
}
