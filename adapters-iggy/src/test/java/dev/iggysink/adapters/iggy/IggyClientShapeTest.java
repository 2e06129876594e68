package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.iggy.client.async.tcp.AsyncTcpConnection;
import org.apache.iggy.client.async.tcp.AsyncTcpConnection.IggyResponseHandler;
import org.apache.iggy.client.async.tcp.IggyFrameDecoder;
import org.junit.jupiter.api.Test;

import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.pool.ChannelPool;

/**
 * The parts of the pinned Iggy client ({@code org.apache.iggy:iggy}, the pom's {@code iggy.version}) that the sink's
 * Netty handlers reach past its API: they are there, and when they are not the sink says so at once.
 */
class IggyClientShapeTest {

    /** A connection class as another client version might shape it: its pool under another name. */
    @SuppressWarnings("unused")
    private static final class Reshaped {
        private final ChannelPool pool = null;
    }

    /** A field of the right name holding something else. */
    @SuppressWarnings("unused")
    private static final class Retyped {
        private final String channelPool = "";
    }

    @Test
    void the_pinned_client_keeps_its_channel_pool_in_the_field_the_sink_reads() {
        Field field = IggyClientShape.channelPoolField(AsyncTcpConnection.class);

        assertThat(field.getName()).isEqualTo("channelPool");
        assertThat(ChannelPool.class).isAssignableFrom(field.getType());
    }

    @Test
    void a_connection_class_without_the_field_fails_naming_the_field_and_the_client_version() {
        assertThatThrownBy(() -> IggyClientShape.channelPoolField(Reshaped.class))
                .isInstanceOf(IggyClientShapeException.class)
                .hasMessageContaining("org.apache.iggy:iggy 0.8.0")
                .hasMessageContaining(Reshaped.class.getName() + " has no field 'channelPool'");
    }

    @Test
    void a_field_of_another_type_fails_too() {
        assertThatThrownBy(() -> IggyClientShape.channelPoolField(Retyped.class))
                .isInstanceOf(IggyClientShapeException.class)
                .hasMessageContaining("org.apache.iggy:iggy 0.8.0")
                .hasMessageContaining("'channelPool' of " + Retyped.class.getName() + " is a java.lang.String");
    }

    @Test
    void a_pipeline_without_the_clients_handlers_under_their_names_fails_naming_the_handler() {
        EmbeddedChannel bare = new EmbeddedChannel();
        assertThatThrownBy(() -> IggyClientShape.checkPipeline(bare.pipeline()))
                .isInstanceOf(IggyClientShapeException.class)
                .hasMessageContaining("no handler under 'frameDecoder'")
                .hasMessageContaining("IggyFrameDecoder (org.apache.iggy:iggy 0.8.0)");

        EmbeddedChannel noResponses = new EmbeddedChannel();
        noResponses.pipeline().addLast("frameDecoder", new IggyFrameDecoder());
        assertThatThrownBy(() -> IggyClientShape.checkPipeline(noResponses.pipeline()))
                .isInstanceOf(IggyClientShapeException.class)
                .hasMessageContaining("no handler under 'responseHandler'");

        noResponses.pipeline().addLast("responseHandler", new IggyResponseHandler());
        IggyClientShape.checkPipeline(noResponses.pipeline());
        bare.finishAndReleaseAll();
        noResponses.finishAndReleaseAll();
    }

    @Test
    void the_version_named_in_the_messages_is_the_pinned_one() throws IOException {
        String pom = Files.readString(Path.of("..", "pom.xml"));
        Matcher pinned = Pattern.compile("<iggy\\.version>([^<]+)</iggy\\.version>").matcher(pom);

        assertThat(pinned.find()).as("iggy.version in the parent pom").isTrue();
        assertThat(IggyClientShape.CLIENT_VERSION).isEqualTo(pinned.group(1));
    }

    // ---- on the pinned client's own channel (a listening socket stands in for the server: nothing is sent) ----

    @Test
    void on_the_pinned_clients_channel_the_decoder_is_swapped_and_the_request_handler_added() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            AsyncTcpConnection connection = connectTo(server);
            try {
                DirectRequestHandler installed = AnswerFrameDecoder.install(connection).get(10, TimeUnit.SECONDS);

                assertThat(installed).isNotNull();
                Channel channel = channelOf(connection);
                try {
                    assertThat(channel.pipeline().get("frameDecoder")).isInstanceOf(AnswerFrameDecoder.class);
                    assertThat(channel.pipeline().get(DirectRequestHandler.NAME)).isSameAs(installed);
                    assertThat(channel.pipeline().get("responseHandler")).isInstanceOf(IggyResponseHandler.class);
                } finally {
                    IggyClientShape.channelPool(connection).release(channel).get(10, TimeUnit.SECONDS);
                }
            } finally {
                connection.close().get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void a_client_channel_without_the_clients_decoder_fails_the_install_instead_of_falling_back() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            AsyncTcpConnection connection = connectTo(server);
            try {
                Channel channel = channelOf(connection);
                channel.pipeline().remove("frameDecoder"); // as a client that names or builds its decoder otherwise
                IggyClientShape.channelPool(connection).release(channel).get(10, TimeUnit.SECONDS);

                CompletableFuture<DirectRequestHandler> installed = AnswerFrameDecoder.install(connection);

                assertThatThrownBy(() -> installed.get(10, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause()
                        .isInstanceOf(IggyClientShapeException.class)
                        .hasMessageContaining("no handler under 'frameDecoder'")
                        .hasMessageContaining("org.apache.iggy:iggy 0.8.0");
            } finally {
                connection.close().get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static AsyncTcpConnection connectTo(ServerSocket server) throws Exception {
        AsyncTcpConnection.TCPConnectionPoolConfig pool = new AsyncTcpConnection.TCPConnectionPoolConfig.Builder()
                .setMaxConnections(1).setAcquireTimeoutMillis(10_000).build();
        AsyncTcpConnection connection = new AsyncTcpConnection(server.getInetAddress().getHostAddress(),
                server.getLocalPort(), false, Optional.empty(), pool, Optional.empty());
        connection.connect().get(10, TimeUnit.SECONDS);
        return connection;
    }

    private static Channel channelOf(AsyncTcpConnection connection) throws Exception {
        return IggyClientShape.channelPool(connection).acquire().get(10, TimeUnit.SECONDS);
    }
}
