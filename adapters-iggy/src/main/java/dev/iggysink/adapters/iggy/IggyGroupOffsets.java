package dev.iggysink.adapters.iggy;

import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.IggySettings;
import dev.iggysink.domain.message.PartitionRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads a consumer group's stored offsets without joining the group (GET_CONSUMER_OFFSET needs no membership), so
 * the audit can run beside a live sink without triggering a rebalance. One connection; every call bounded.
 */
public final class IggyGroupOffsets implements AutoCloseable {
    private final String stream;
    private final String topic;
    private final String group;
    private final Duration timeout;
    private final IggyConnection connection;

    public IggyGroupOffsets(IggySettings settings, String stream, String topic, String group, Duration timeout)
            throws SourceException {
        this.stream = stream;
        this.topic = topic;
        this.group = group;
        this.timeout = timeout;
        this.connection = new AsyncIggyConnection(settings, timeout);
        await(connection.connect(), "connect to " + settings.host() + ":" + settings.port());
        if (settings.token().isPresent()) {
            await(connection.loginWithToken(settings.token().get().reveal()), "log in with the access token");
        } else {
            await(connection.login(settings.username(), settings.password().reveal()),
                    "log in as " + settings.username());
        }
    }

    public List<PartitionRef> partitions() throws SourceException {
        List<Integer> ids = await(connection.topicPartitions(stream, topic), "read topic " + stream + "/" + topic)
                .orElseThrow(() -> new SourceException("topic " + topic + " of stream " + stream + " not found",
                        false));
        List<PartitionRef> out = new ArrayList<>();
        for (int id : ids) out.add(new PartitionRef(stream, topic, id));
        return out;
    }

    public OptionalLong committedOffset(PartitionRef partition) throws SourceException {
        return await(connection.storedOffset(stream, topic, group, partition.partitionId()),
                "read the offset of " + partition);
    }

    private <T> T await(CompletableFuture<T> future, String what) throws SourceException {
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new SourceException("no answer from Iggy within " + timeout.toMillis() + " ms to " + what, true, e);
        } catch (ExecutionException e) {
            throw new SourceException("could not " + what + ": " + e.getCause(), false, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SourceException("interrupted while trying to " + what, true, e);
        }
    }

    @Override
    public void close() {
        try {
            connection.close().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException ignored) {
            // Closing is best effort: the connection is dropped either way.
        }
    }
}
