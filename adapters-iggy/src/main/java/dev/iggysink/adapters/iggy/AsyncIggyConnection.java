package dev.iggysink.adapters.iggy;

import dev.iggysink.domain.message.PartitionRef;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.File;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.apache.iggy.client.async.tcp.AsyncTcpConnection;
import org.apache.iggy.client.async.tcp.AsyncTcpConnection.TCPConnectionPoolConfig;
import org.apache.iggy.client.async.tcp.ConsumerGroupsTcpClient;
import org.apache.iggy.client.async.tcp.ConsumerOffsetsTcpClient;
import org.apache.iggy.client.async.tcp.PersonalAccessTokensTcpClient;
import org.apache.iggy.client.async.tcp.StreamsTcpClient;
import org.apache.iggy.client.async.tcp.TopicsTcpClient;
import org.apache.iggy.client.async.tcp.UsersTcpClient;
import org.apache.iggy.consumergroup.Consumer;
import org.apache.iggy.consumergroup.ConsumerGroupMember;
import org.apache.iggy.exception.IggyNotConnectedException;
import org.apache.iggy.exception.IggyTlsException;
import org.apache.iggy.identifier.ConsumerId;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.message.PollingKind;
import org.apache.iggy.partition.Partition;
import org.apache.iggy.serde.CommandCode;

/**
 * {@link IggyConnection} over the TCP connection of {@code org.apache.iggy:iggy} 0.8.0. It builds the connection and
 * the sub-clients itself, as {@code AsyncIggyTcpClient.connect()} does, so that a poll can be sent on the connection
 * directly and its answer decoded by {@link PollResponseDecoder} rather than by the client's message objects. Every
 * other call goes through the client's sub-clients, which share the connection and so its login (the connection
 * keeps the login frame it sent and replays it on a new channel).
 */
final class AsyncIggyConnection implements IggyConnection {
    private final IggySettings settings;
    private final Duration callTimeout;
    private volatile Clients clients;
    /** The sink's own way to send polls on the connection's channel, or null where it could not be put in place. */
    private volatile DirectRequestHandler direct;

    private record Clients(AsyncTcpConnection connection, UsersTcpClient users,
                           PersonalAccessTokensTcpClient tokens, StreamsTcpClient streams, TopicsTcpClient topics,
                           ConsumerGroupsTcpClient groups, ConsumerOffsetsTcpClient offsets) {
        Clients(AsyncTcpConnection c) {
            this(c, new UsersTcpClient(c), new PersonalAccessTokensTcpClient(c), new StreamsTcpClient(c),
                    new TopicsTcpClient(c), new ConsumerGroupsTcpClient(c), new ConsumerOffsetsTcpClient(c));
        }
    }

    AsyncIggyConnection(IggySettings settings, Duration callTimeout) {
        this.settings = settings;
        this.callTimeout = callTimeout;
        if (callTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the Iggy call timeout must be at most " + Integer.MAX_VALUE
                    + " ms, was " + callTimeout.toMillis());
        }
    }

    @Override
    public CompletableFuture<Void> connect() {
        if (clients != null) {
            return CompletableFuture.failedFuture(new IllegalStateException("already connected"));
        }
        AsyncTcpConnection connection;
        try {
            // One channel = one server-side client = one group member. A second pooled channel would be an
            // auto-logged-in stranger to the group (5006) or see another member's assignment.
            TCPConnectionPoolConfig pool = new TCPConnectionPoolConfig.Builder()
                    .setMaxConnections(1)
                    .setAcquireTimeoutMillis(Math.max(1, callTimeout.toMillis()))
                    .build();
            Optional<File> caFile = settings.tlsCaFile().filter(f -> !f.isBlank()).map(File::new);
            connection = new AsyncTcpConnection(settings.host(), settings.port(), settings.tlsEnabled(), caFile, pool,
                    Optional.of(callTimeout));
        } catch (IggyTlsException e) {
            return CompletableFuture.failedFuture(e);
        } catch (RuntimeException e) {
            // Netty refuses a CA file that holds no certificate with an IllegalArgumentException: with TLS on, a
            // failure here is the TLS setup, which no retry fixes. As a failed future it takes the callers' one
            // error path.
            return CompletableFuture.failedFuture(settings.tlsEnabled()
                    ? new IggyTlsException("cannot set up TLS: " + e.getMessage(), e) : e);
        }
        clients = new Clients(connection);
        return connection.connect().thenCompose(connected -> AnswerFrameDecoder.install(connection))
                .thenAccept(installed -> direct = installed);
    }

    @Override
    public CompletableFuture<Void> login(String username, String password) {
        // The password goes into the login frame only (which the connection keeps to log in again on a new
        // channel), never into a builder or a field of ours.
        return clients().users().login(username, password).thenApply(identity -> null);
    }

    @Override
    public CompletableFuture<Void> loginWithToken(String token) {
        return clients().tokens().loginWithPersonalAccessToken(token).thenApply(identity -> null);
    }

    @Override
    public CompletableFuture<Boolean> streamExists(String stream) {
        return clients().streams().getStream(StreamId.of(stream)).thenApply(Optional::isPresent);
    }

    @Override
    public CompletableFuture<Optional<List<Integer>>> topicPartitions(String stream, String topic) {
        return clients().topics().getTopic(StreamId.of(stream), TopicId.of(topic)).thenApply(found -> found.map(t -> {
            List<Integer> ids = new ArrayList<>();
            for (Partition p : t.partitions()) {
                ids.add(Math.toIntExact(p.id()));
            }
            if (ids.isEmpty()) {
                for (int i = 0; i < t.partitionsCount(); i++) {
                    ids.add(i);
                }
            }
            ids.sort(null);
            return ids;
        }));
    }

    @Override
    public CompletableFuture<Optional<java.util.Map<Integer, Long>>> partitionEnds(String stream, String topic) {
        return clients().topics().getTopic(StreamId.of(stream), TopicId.of(topic)).thenApply(found -> found.map(t -> {
            java.util.Map<Integer, Long> ends = new java.util.TreeMap<>();
            for (Partition p : t.partitions()) {
                // current_offset is 0 for an empty partition as for one holding one message: the count tells.
                boolean empty = p.messagesCount() == null || p.messagesCount().signum() == 0;
                ends.put(Math.toIntExact(p.id()), empty ? -1L : p.currentOffset().longValueExact());
            }
            return ends;
        }));
    }

    @Override
    public CompletableFuture<Optional<List<List<Integer>>>> groupMembers(String stream, String topic, String group) {
        return clients().groups()
                .getConsumerGroup(StreamId.of(stream), TopicId.of(topic), ConsumerId.of(group))
                .thenApply(found -> found.map(g -> {
                    List<List<Integer>> members = new ArrayList<>();
                    for (ConsumerGroupMember m : g.members()) {
                        members.add(m.partitions().stream().map(Math::toIntExact).toList());
                    }
                    return members;
                }));
    }

    @Override
    public CompletableFuture<Void> createGroup(String stream, String topic, String group) {
        return clients().groups().createConsumerGroup(StreamId.of(stream), TopicId.of(topic), group)
                .thenApply(details -> null);
    }

    @Override
    public CompletableFuture<Void> joinGroup(String stream, String topic, String group) {
        return clients().groups().joinConsumerGroup(StreamId.of(stream), TopicId.of(topic), ConsumerId.of(group));
    }

    @Override
    public CompletableFuture<Void> leaveGroup(String stream, String topic, String group) {
        return clients().groups()
                .leaveConsumerGroup(StreamId.of(stream), TopicId.of(topic), ConsumerId.of(group));
    }

    /** Whether a poll sent now would go past the client's channel pool (for tests). */
    boolean pollsGoDirect() {
        DirectRequestHandler d = direct;
        return d != null && d.usable();
    }

    @Override
    public CompletableFuture<PolledRecords> poll(PartitionRef partition, String group, long offset, int count) {
        AsyncTcpConnection connection = clients().connection();
        ByteBuf request = pollRequest(group, partition, offset, count);
        // Past the client's channel pool when the channel is the one set up for it (see DirectRequestHandler).
        DirectRequestHandler d = direct;
        CompletableFuture<ByteBuf> answer = d != null && d.usable()
                ? d.send(CommandCode.Messages.POLL.getValue(), request)
                : connection.send(CommandCode.Messages.POLL.getValue(), request);
        return answer.thenApply(response -> {
            try {
                return PollResponseDecoder.decode(response, partition);
            } finally {
                response.release();
            }
        });
    }

    @Override
    public CompletableFuture<OptionalLong> storedOffset(String stream, String topic, String group, int partition) {
        // Past the client's channel pool as polls go (a claimed file reads it once, and the pool's hand-offs cost
        // more than the request); through the client when the channel is not the one set up for it.
        DirectRequestHandler d = direct;
        if (d == null || !d.usable()) {
            return clients().offsets()
                    .getConsumerOffset(StreamId.of(stream), TopicId.of(topic), Optional.of((long) partition),
                            groupConsumer(group))
                    .thenApply(info -> info.map(i -> OptionalLong.of(i.storedOffset().longValueExact()))
                            .orElse(OptionalLong.empty()));
        }
        return d.send(CommandCode.ConsumerOffset.GET.getValue(), offsetRequest(group, stream, topic, partition))
                .thenApply(AsyncIggyConnection::storedOffset);
    }

    @Override
    public CompletableFuture<Void> storeOffset(String stream, String topic, String group, int partition,
                                               long offset) {
        // Always the explicit partition: without it the server stores on the partition its round-robin would poll
        // next, which is not the one we mean when the member owns several.
        DirectRequestHandler d = direct;
        if (d == null || !d.usable()) {
            return clients().offsets().storeConsumerOffset(StreamId.of(stream), TopicId.of(topic),
                    Optional.of((long) partition), groupConsumer(group), BigInteger.valueOf(offset));
        }
        if (offset < 0) throw new IllegalArgumentException("a stored offset must be >= 0, was " + offset);
        ByteBuf request = offsetRequest(group, stream, topic, partition);
        request.writeLongLE(offset);
        return d.send(CommandCode.ConsumerOffset.STORE.getValue(), request).thenAccept(ByteBuf::release);
    }

    /**
     * The stored offset in a GET_CONSUMER_OFFSET answer (partition u32, current offset u64, stored offset u64), as the
     * client's {@code BytesDeserializer.readConsumerOffsetInfo} reads it; an empty answer: none stored.
     */
    static OptionalLong storedOffset(ByteBuf answer) {
        try {
            if (!answer.isReadable()) return OptionalLong.empty();
            long stored = answer.getLongLE(answer.readerIndex() + 4 + 8);
            if (stored < 0) throw new IllegalStateException("Iggy answered a stored offset past 2^63: " + stored);
            return OptionalLong.of(stored);
        } finally {
            answer.release();
        }
    }

    /**
     * The head of GET_CONSUMER_OFFSET and STORE_CONSUMER_OFFSET as the client's {@code ConsumerOffsetsTcpClient}
     * writes it for a group: consumer kind 2 and the group's name, stream and topic by name, the explicit partition
     * (STORE adds the offset, u64).
     */
    static ByteBuf offsetRequest(String group, String stream, String topic, int partition) {
        byte[] groupName = name(group, "consumer group");
        byte[] streamName = name(stream, "stream");
        byte[] topicName = name(topic, "topic");
        ByteBuf request = Unpooled.buffer(1 + 3 * 2 + groupName.length + streamName.length + topicName.length + 5 + 8);
        request.writeByte(Consumer.Kind.ConsumerGroup.asCode());
        writeName(request, groupName);
        writeName(request, streamName);
        writeName(request, topicName);
        request.writeByte(1).writeIntLE(partition);
        return request;
    }

    @Override
    public CompletableFuture<Void> close() {
        Clients c = clients;
        return c == null ? CompletableFuture.completedFuture(null) : c.connection().close();
    }

    private Clients clients() {
        Clients c = clients;
        if (c == null) {
            throw new IggyNotConnectedException();
        }
        return c;
    }

    /**
     * The POLL request as the client's {@code MessagesTcpClient.pollMessages} writes it for the Consumer (group
     * member) form: consumer kind 2 and the group's name, stream and topic by name, the explicit partition, the
     * offset strategy (kind 1, u64), the count, no auto-commit. Written here in one buffer: the client builds each
     * part in a buffer of its own, numbers through {@code BigInteger}, which ran interpreted for most of the
     * thousand polls of a million records. Names are UTF-8 with their length in bytes (the client writes the length
     * in chars, the same for the ASCII names it can send).
     */
    static ByteBuf pollRequest(String group, PartitionRef partition, long offset, int count) {
        byte[] groupName = name(group, "consumer group");
        byte[] stream = name(partition.stream(), "stream");
        byte[] topic = name(partition.topic(), "topic");
        if (offset < 0) throw new IllegalArgumentException("a poll offset must be >= 0, was " + offset);
        ByteBuf request = Unpooled.buffer(1 + 3 * 2 + groupName.length + stream.length + topic.length + 5 + 9 + 5);
        request.writeByte(Consumer.Kind.ConsumerGroup.asCode());
        writeName(request, groupName);
        writeName(request, stream);
        writeName(request, topic);
        request.writeByte(1).writeIntLE(partition.partitionId());
        request.writeByte(PollingKind.Offset.asCode()).writeLongLE(offset);
        request.writeIntLE(count);
        request.writeByte(0);
        return request;
    }

    private static byte[] name(String name, String what) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length > 255) {
            throw new IllegalArgumentException("the " + what + " name must be 1 to 255 bytes, was " + bytes.length);
        }
        return bytes;
    }

    private static void writeName(ByteBuf out, byte[] name) {
        out.writeByte(2).writeByte(name.length).writeBytes(name);
    }

    private static Consumer groupConsumer(String group) {
        return Consumer.group(ConsumerId.of(group));
    }
}
