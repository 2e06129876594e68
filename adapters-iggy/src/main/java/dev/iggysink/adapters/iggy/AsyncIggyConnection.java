package dev.iggysink.adapters.iggy;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.apache.iggy.client.async.tcp.AsyncIggyTcpClient;
import org.apache.iggy.client.async.tcp.AsyncIggyTcpClientBuilder;
import org.apache.iggy.consumergroup.Consumer;
import org.apache.iggy.consumergroup.ConsumerGroupMember;
import org.apache.iggy.identifier.ConsumerId;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.message.PolledMessages;
import org.apache.iggy.message.PollingStrategy;
import org.apache.iggy.partition.Partition;

/** {@link IggyConnection} over the async TCP client of {@code org.apache.iggy:iggy} 0.8.0. */
final class AsyncIggyConnection implements IggyConnection {
    private final AsyncIggyTcpClient client;

    AsyncIggyConnection(IggySettings settings, Duration callTimeout) {
        AsyncIggyTcpClientBuilder builder = AsyncIggyTcpClient.builder()
                .host(settings.host())
                .port(settings.port())
                // One channel = one server-side client = one group member. A second pooled channel would be an
                // auto-logged-in stranger to the group (5006) or see another member's assignment.
                .connectionPoolSize(1)
                .connectionTimeout(callTimeout)
                .acquireTimeout(callTimeout)
                .tls(settings.tlsEnabled());
        settings.tlsCaFile().ifPresent(builder::tlsCertificate);
        this.client = builder.build();
    }

    @Override
    public CompletableFuture<Void> connect() {
        return client.connect();
    }

    @Override
    public CompletableFuture<Void> login(String username, String password) {
        // users().login, not client.login(): the latter needs the credentials in the builder, and we keep the
        // password out of long-lived objects.
        return client.users().login(username, password).thenApply(identity -> null);
    }

    @Override
    public CompletableFuture<Void> loginWithToken(String token) {
        return client.personalAccessTokens().loginWithPersonalAccessToken(token).thenApply(identity -> null);
    }

    @Override
    public CompletableFuture<Boolean> streamExists(String stream) {
        return client.streams().getStream(StreamId.of(stream)).thenApply(Optional::isPresent);
    }

    @Override
    public CompletableFuture<Optional<List<Integer>>> topicPartitions(String stream, String topic) {
        return client.topics().getTopic(StreamId.of(stream), TopicId.of(topic)).thenApply(found -> found.map(t -> {
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
    public CompletableFuture<Optional<List<List<Integer>>>> groupMembers(String stream, String topic, String group) {
        return client.consumerGroups()
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
        return client.consumerGroups().createConsumerGroup(StreamId.of(stream), TopicId.of(topic), group)
                .thenApply(details -> null);
    }

    @Override
    public CompletableFuture<Void> joinGroup(String stream, String topic, String group) {
        return client.consumerGroups().joinConsumerGroup(StreamId.of(stream), TopicId.of(topic), ConsumerId.of(group));
    }

    @Override
    public CompletableFuture<Void> leaveGroup(String stream, String topic, String group) {
        return client.consumerGroups()
                .leaveConsumerGroup(StreamId.of(stream), TopicId.of(topic), ConsumerId.of(group));
    }

    @Override
    public CompletableFuture<PolledMessages> poll(String stream, String topic, String group, int partition,
                                                  long offset, int count) {
        // The Consumer overload: the Long-id overloads always build a single consumer, never a group member.
        return client.messages().pollMessages(StreamId.of(stream), TopicId.of(topic), Optional.of((long) partition),
                groupConsumer(group), PollingStrategy.offset(BigInteger.valueOf(offset)), (long) count, false);
    }

    @Override
    public CompletableFuture<OptionalLong> storedOffset(String stream, String topic, String group, int partition) {
        return client.consumerOffsets()
                .getConsumerOffset(StreamId.of(stream), TopicId.of(topic), Optional.of((long) partition),
                        groupConsumer(group))
                .thenApply(info -> info.map(i -> OptionalLong.of(i.storedOffset().longValueExact()))
                        .orElse(OptionalLong.empty()));
    }

    @Override
    public CompletableFuture<Void> storeOffset(String stream, String topic, String group, int partition,
                                               long offset) {
        // Always the explicit partition: without it the server stores on the partition its round-robin would poll
        // next, which is not the one we mean when the member owns several.
        return client.consumerOffsets().storeConsumerOffset(StreamId.of(stream), TopicId.of(topic),
                Optional.of((long) partition), groupConsumer(group), BigInteger.valueOf(offset));
    }

    @Override
    public CompletableFuture<Void> close() {
        return client.close();
    }

    private static Consumer groupConsumer(String group) {
        return Consumer.group(ConsumerId.of(group));
    }
}
