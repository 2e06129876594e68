package dev.iggysink.application.service;

import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.domain.message.PartitionRef;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Lets the consumer loop and its prefetch thread share one {@link MessageSource} (which is not thread-safe): one
 * call at a time, in the order they arrive. A commit issued while a prefetch poll runs simply waits for it. A poll
 * started without waiting ({@link #startPoll}) holds the lock only while it is sent and while it is awaited.
 */
final class SerializedSource implements MessageSource {
    private final MessageSource source;

    SerializedSource(MessageSource source) {
        this.source = source;
    }

    @Override
    public synchronized void connect() throws SourceException {
        source.connect();
    }

    @Override
    public synchronized List<PartitionRef> partitions() throws SourceException {
        return source.partitions();
    }

    @Override
    public synchronized OptionalLong committedOffset(PartitionRef partition) throws SourceException {
        return source.committedOffset(partition);
    }

    @Override
    public synchronized Map<PartitionRef, Long> endOffsets() throws SourceException {
        return source.endOffsets();
    }

    @Override
    public synchronized Batch poll(PartitionRef partition, long fromOffset, int maxRecords) throws SourceException {
        return source.poll(partition, fromOffset, maxRecords);
    }

    @Override
    public synchronized PendingPoll startPoll(PartitionRef partition, long fromOffset, int maxRecords)
            throws SourceException {
        PendingPoll pending = source.startPoll(partition, fromOffset, maxRecords);
        if (pending == null) return null;
        return () -> {
            synchronized (this) {
                return pending.await();
            }
        };
    }

    @Override
    public synchronized void commit(PartitionRef partition, long offset) throws SourceException {
        source.commit(partition, offset);
    }

    @Override
    public synchronized long sessionEpoch() {
        return source.sessionEpoch();
    }

    @Override
    public synchronized void close() {
        source.close();
    }
}
