package dev.iggysink.application.port.out;

import dev.iggysink.domain.message.PartitionRef;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Reads one topic of one stream as a member of a consumer group. One instance per (stream, topic); not thread-safe:
 * one consumer loop drives it. Every call is bounded in time by the implementation (it never hangs); a call that
 * failed with a retryable {@link SourceException} may be repeated after a backoff.
 *
 * <p>Offsets: the source never moves the group's stored offset except through {@link #commit}. Positions are the
 * caller's: it polls from the offset it wants.
 */
public interface MessageSource extends AutoCloseable {

    /** Connects, logs in, creates the consumer group when it is missing, joins it. Idempotent. */
    void connect() throws SourceException;

    /** The partitions of the topic (ids 0..n-1), whether owned or not. */
    List<PartitionRef> partitions() throws SourceException;

    /** The group's stored offset for the partition; empty when nothing was ever stored. Needs no ownership. */
    OptionalLong committedOffset(PartitionRef partition) throws SourceException;

    /**
     * The highest offset stored in each partition of the topic, -1 for a partition that holds no message. Read from
     * the topic's metadata: needs no ownership, moves nothing, and is cheap enough to ask every few seconds, so the
     * backlog can be measured while polling is paused or backing off.
     */
    Map<PartitionRef, Long> endOffsets() throws SourceException;

    /**
     * Polls up to {@code maxRecords} records of {@code partition} starting at {@code fromOffset}, never committing.
     * A partition this member does not own answers {@code owned = false}.
     */
    Batch poll(PartitionRef partition, long fromOffset, int maxRecords) throws SourceException;

    /**
     * Sends the request of {@link #poll} and returns at once; {@link PendingPoll#await} gives what {@code poll} would
     * have. One poll pending at a time: other calls may come before it is awaited (the source keeps its answer for
     * {@code await}), and one never awaited is simply dropped. Null when the source cannot poll without waiting: then
     * the caller polls on a thread of its own.
     */
    default PendingPoll startPoll(PartitionRef partition, long fromOffset, int maxRecords) throws SourceException {
        return null;
    }

    /** A poll under way (see {@link #startPoll}). */
    interface PendingPoll {
        Batch await() throws SourceException;
    }

    /**
     * Stores {@code offset} (the last offset made durable) as the group's offset for the partition. Callers never
     * pass a smaller offset than before; implementations ignore one that is not larger than what they stored.
     *
     * @throws PartitionRevokedException the partition moved to another member; do not retry
     */
    void commit(PartitionRef partition, long offset) throws SourceException;

    /**
     * Increases each time the source had to rebuild its session (new connection, login, re-join). Positions and
     * ownership learned in an older epoch are void: the caller restarts every partition from its committed offset.
     */
    long sessionEpoch();

    /** Leaves the group and closes the connection. Never throws. */
    @Override
    void close();
}
