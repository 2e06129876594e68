package dev.iggysink.adapters.iggy;

import dev.iggysink.domain.message.PartitionRef;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The few Iggy calls the source makes, each as a future the caller bounds with its own timeout (the 0.8 client has
 * none). One instance is one TCP connection, and so one group member: group membership lives on the server's
 * per-connection client. Names are passed as given; consumer-group calls always use the group kind of consumer.
 */
interface IggyConnection {

    CompletableFuture<Void> connect();

    CompletableFuture<Void> login(String username, String password);

    CompletableFuture<Void> loginWithToken(String token);

    CompletableFuture<Boolean> streamExists(String stream);

    /** The topic's partition ids in ascending order; empty when the stream or the topic is missing. */
    CompletableFuture<Optional<List<Integer>>> topicPartitions(String stream, String topic);

    /**
     * Each partition's highest stored offset by id, -1 for a partition holding no message, from the same topic
     * metadata; empty when the stream or the topic is missing.
     */
    CompletableFuture<Optional<java.util.Map<Integer, Long>>> partitionEnds(String stream, String topic);

    /** The partitions of each member of the group; empty when the group is missing. */
    CompletableFuture<Optional<List<List<Integer>>>> groupMembers(String stream, String topic, String group);

    CompletableFuture<Void> createGroup(String stream, String topic, String group);

    CompletableFuture<Void> joinGroup(String stream, String topic, String group);

    CompletableFuture<Void> leaveGroup(String stream, String topic, String group);

    /**
     * An explicit-partition poll from {@code offset}, never auto-committing, its answer decoded into records of
     * {@code partition}. An answer that cannot be decoded fails the future with a {@link PollResponseException}.
     */
    CompletableFuture<PolledRecords> poll(PartitionRef partition, String group, long offset, int count);

    CompletableFuture<OptionalLong> storedOffset(String stream, String topic, String group, int partition);

    CompletableFuture<Void> storeOffset(String stream, String topic, String group, int partition, long offset);

    /** Releases the connection; callers do not wait on it (a wedged client may take its time). */
    CompletableFuture<Void> close();

    /** Opens a connection object; nothing goes over the network before {@link #connect()}. */
    @FunctionalInterface
    interface Factory {
        IggyConnection create();
    }
}
