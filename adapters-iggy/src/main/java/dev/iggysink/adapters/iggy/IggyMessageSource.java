package dev.iggysink.adapters.iggy;

import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.PartitionRevokedException;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.TopicMissingException;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.retry.Backoff;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.iggy.exception.IggyTlsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MessageSource} over Iggy 0.8 TCP: one connection (pool size 1) is one member of the consumer group.
 *
 * <p>Every client call is bounded by {@code callTimeout}. A call that times out, loses its connection or finds the
 * membership gone (5006) closes the client without waiting for it, builds a new one, logs in, re-joins and increases
 * {@link #sessionEpoch()}; that call still fails with a retryable {@link SourceException} and the next one runs on
 * the new session. When the rebuild itself fails, later calls retry it no sooner than a capped exponential backoff.
 *
 * <p>{@link #startPoll} sends a poll and returns; its answer is read when awaited, so the consumer encodes meanwhile
 * without a thread of its own for the poll (docs/adr/0012-polls-ahead-sent-by-the-consumer.md). Still one request at
 * a time on the connection: any other call first waits for that answer (without taking it), as the sink has never
 * relied on the server answering pipelined requests. An answer awaited after the session was rebuilt belongs to the
 * old one: the poll is sent again on the new one, and its batch carries the new epoch.
 *
 * <p>Thread-safety: public methods are synchronized so {@link #close()} from a shutdown thread is safe; one loop is
 * expected to drive the rest.
 */
public final class IggyMessageSource implements MessageSource {
    private static final Logger LOG = LoggerFactory.getLogger(IggyMessageSource.class);
    static final Duration FIRST_REBUILD_DELAY = Duration.ofMillis(100);
    static final Duration MAX_REBUILD_DELAY = Duration.ofSeconds(5);
    /* No jitter: one sink has one session per topic to rebuild, so there is no herd of retries to spread. */
    private static final Backoff REBUILD_BACKOFF = new Backoff(FIRST_REBUILD_DELAY, MAX_REBUILD_DELAY, 0);
    /* The 0.8 Java client writes a name's length as String.length() in one byte and reads it back as a signed byte,
       so only names up to 127 bytes survive the round trip. */
    private static final int MAX_NAME_BYTES = 127;

    private final IggySettings settings;
    private final String stream;
    private final String topic;
    private final String group;
    private final Duration callTimeout;
    private final IggyConnection.Factory factory;
    private final LongSupplier nanoTime;
    private final Map<Integer, Long> lastStored = new HashMap<>();

    private IggyConnection session;
    /** The answer of the poll last started by {@link #startPoll} while it may still be out, and its connection. */
    private CompletableFuture<?> outstanding;
    private IggyConnection outstandingOn;
    private boolean everEstablished;
    private boolean closed;
    private volatile long epoch;
    private int failedAttempts;
    private long nextAttemptNanos;

    public IggyMessageSource(IggySettings settings, String stream, String topic, String consumerGroup,
                             Duration callTimeout) {
        this(settings, stream, topic, consumerGroup, callTimeout,
                () -> new AsyncIggyConnection(settings, callTimeout), System::nanoTime);
    }

    IggyMessageSource(IggySettings settings, String stream, String topic, String consumerGroup, Duration callTimeout,
                      IggyConnection.Factory factory, LongSupplier nanoTime) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.stream = checkName("stream", stream);
        this.topic = checkName("topic", topic);
        this.group = checkName("consumer group", consumerGroup);
        this.callTimeout = Objects.requireNonNull(callTimeout, "callTimeout");
        if (callTimeout.isZero() || callTimeout.isNegative()) {
            throw new IllegalArgumentException("callTimeout must be > 0, was " + callTimeout);
        }
        this.factory = Objects.requireNonNull(factory, "factory");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    @Override
    public synchronized void connect() throws SourceException {
        ensureOpen();
        if (session == null) {
            establish();
        }
    }

    @Override
    public synchronized List<PartitionRef> partitions() throws SourceException {
        return withSession(c -> {
            List<Integer> ids = await(() -> c.topicPartitions(stream, topic), "read topic " + stream + "/" + topic)
                    .orElseThrow(() -> topicMissing(null));
            List<PartitionRef> refs = new ArrayList<>(ids.size());
            for (int id : ids) {
                refs.add(new PartitionRef(stream, topic, id));
            }
            return List.copyOf(refs);
        });
    }

    @Override
    public synchronized OptionalLong committedOffset(PartitionRef partition) throws SourceException {
        requireOurs(partition);
        return withSession(c -> await(() -> c.storedOffset(stream, topic, group, partition.partitionId()),
                "read the committed offset of " + partition));
    }

    @Override
    public synchronized Map<PartitionRef, Long> endOffsets() throws SourceException {
        return withSession(c -> {
            Map<Integer, Long> ends = await(() -> c.partitionEnds(stream, topic),
                    "read the partitions of topic " + stream + "/" + topic).orElseThrow(() -> topicMissing(null));
            Map<PartitionRef, Long> out = new java.util.LinkedHashMap<>();
            ends.forEach((id, end) -> out.put(new PartitionRef(stream, topic, id), end));
            return java.util.Collections.unmodifiableMap(out);
        });
    }

    @Override
    public synchronized Batch poll(PartitionRef partition, long fromOffset, int maxRecords) throws SourceException {
        checkPoll(partition, fromOffset, maxRecords);
        return withSession(c -> pollOn(c, partition, fromOffset, maxRecords));
    }

    @Override
    public synchronized PendingPoll startPoll(PartitionRef partition, long fromOffset, int maxRecords)
            throws SourceException {
        checkPoll(partition, fromOffset, maxRecords);
        return withSession(c -> {
            long epochNow = epoch;
            String what = "poll " + partition + " from offset " + fromOffset;
            CompletableFuture<PolledRecords> answer;
            try {
                answer = c.poll(partition, group, fromOffset, maxRecords);
            } catch (RuntimeException e) {
                throw translate(e, what);
            }
            outstanding = answer;
            outstandingOn = c;
            return () -> finishPoll(c, epochNow, partition, fromOffset, maxRecords, answer, what);
        });
    }

    private void checkPoll(PartitionRef partition, long fromOffset, int maxRecords) {
        requireOurs(partition);
        if (fromOffset < 0) throw new IllegalArgumentException("fromOffset must be >= 0, was " + fromOffset);
        if (maxRecords <= 0) throw new IllegalArgumentException("maxRecords must be > 0, was " + maxRecords);
    }

    private synchronized Batch finishPoll(IggyConnection c, long epochNow, PartitionRef partition, long fromOffset,
                                          int maxRecords, CompletableFuture<PolledRecords> answer, String what)
            throws SourceException {
        if (outstanding == answer) outstanding = null;
        if (c != session || epochNow != epoch) {
            // The session was rebuilt meanwhile: that answer belongs to the old one. Ask the new one.
            answer.cancel(false);
            return poll(partition, fromOffset, maxRecords);
        }
        try {
            return answered(c, epochNow, partition, fromOffset, awaitAnswer(answer, what));
        } catch (SessionLostException e) {
            throw onSessionLost(c, e);
        }
    }

    /**
     * Waits for the answer of a poll started and not yet awaited, without taking it: one request at a time on the
     * connection, as without {@link #startPoll}. Its failure, if any, is its awaiter's.
     */
    private void readOutstanding(IggyConnection c) {
        CompletableFuture<?> f = outstanding;
        if (f == null) return;
        outstanding = null; // the poll's awaiter holds its own reference
        if (outstandingOn != c || f.isDone()) return;
        try {
            f.get(callTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | CancellationException e) {
            // reported to whoever awaits the poll
        }
    }

    @Override
    public synchronized void commit(PartitionRef partition, long offset) throws SourceException {
        requireOurs(partition);
        if (offset < 0) throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        int id = partition.partitionId();
        Long last = lastStored.get(id);
        if (last != null && offset <= last) {
            // The server has no monotonic check: storing a smaller offset would move the group backwards.
            LOG.debug("Not storing offset {} for {}: {} is already stored", offset, partition, last);
            return;
        }
        withSession(c -> {
            try {
                await(() -> c.storeOffset(stream, topic, group, id, offset),
                        "store offset " + offset + " for " + partition);
            } catch (SessionLostException e) {
                throw e;
            } catch (SourceException e) {
                int code = IggyFailures.errorCode(e.getCause());
                if (code == IggyFailures.NOT_RESOLVED_CONSUMER) {
                    throw new PartitionRevokedException(partition, e.getCause());
                }
                if (code == IggyFailures.INVALID_OFFSET) {
                    throw new SourceException("Iggy refused offset " + offset + " for " + partition
                            + ": it is past the partition's last offset, or the partition is empty (error 4100)",
                            false, e.getCause());
                }
                throw e;
            }
            lastStored.put(id, offset);
            return null;
        });
    }

    @Override
    public long sessionEpoch() {
        return epoch;
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        IggyConnection c = session;
        session = null;
        if (c == null) return;
        readOutstanding(c);
        try {
            await(() -> c.leaveGroup(stream, topic, group), "leave consumer group '" + group + "'");
            LOG.info("Left consumer group '{}' on {}/{}", group, stream, topic);
        } catch (SourceException | RuntimeException e) {
            // Best effort: the server also drops the membership when the connection closes.
            LOG.warn("Could not leave consumer group '{}' on {}/{}: {}", group, stream, topic, e.getMessage());
        }
        closeQuietly(c);
    }

    @Override
    public String toString() {
        return "IggyMessageSource[" + endpoint() + " " + stream + "/" + topic + " group=" + group + " epoch=" + epoch
                + "]";
    }

    // ---- polling ------------------------------------------------------------------------------------------------

    private Batch pollOn(IggyConnection c, PartitionRef p, long from, int max) throws SourceException {
        long epochNow = epoch;
        PolledRecords r = await(() -> c.poll(p, group, from, max), "poll " + p + " from offset " + from);
        return answered(c, epochNow, p, from, r);
    }

    private Batch answered(IggyConnection c, long epochNow, PartitionRef p, long from, PolledRecords r)
            throws SourceException {
        int id = p.partitionId();
        List<SinkRecord> polled = r.records();
        long reportedId = r.partitionId();
        long current = r.currentOffset();
        if (reportedId != id) {
            // Only the "no partition resolved" answer carries another id (always 0); it never holds messages.
            if (!polled.isEmpty()) {
                throw new SessionLostException("Iggy answered a poll of " + p + " with messages of partition "
                        + reportedId, null);
            }
            return new Batch(p, false, epochNow, -1, List.of());
        }
        if (!polled.isEmpty()) {
            List<SinkRecord> records = atOrAfter(polled, from);
            long last = records.isEmpty() ? -1 : records.get(records.size() - 1).offset();
            return new Batch(p, true, epochNow, Math.max(current, last), records);
        }
        if (current > 0) {
            return new Batch(p, true, epochNow, current, List.of());
        }
        // current_offset 0 and nothing returned: the partition holds 0 or 1 message, and for partition 0 this is
        // also exactly what a member that does not own it is told. Asking for offset 0 settles both when that
        // message exists: only an owner is given it.
        if (from > 0 && holdsOffsetZero(c, p)) {
            return new Batch(p, true, epochNow, 0, List.of());
        }
        if (id != 0) {
            return new Batch(p, true, epochNow, -1, List.of());
        }
        // Partition 0 shows no message to us: owned-but-empty and not-owned look the same on the wire. The group
        // listing settles it when we are its only member; otherwise "not owned" is the safe answer, as there is
        // nothing in it to read or commit and the first poll after a message arrives answers definitively.
        return new Batch(p, ownsEmptyPartitionZero(c), epochNow, -1, List.of());
    }

    private boolean holdsOffsetZero(IggyConnection c, PartitionRef p) throws SourceException {
        PolledRecords probe = await(() -> c.poll(p, group, 0, 1), "poll " + p + " from offset 0");
        return probe.partitionId() == p.partitionId() && !probe.records().isEmpty();
    }

    private boolean ownsEmptyPartitionZero(IggyConnection c) throws SourceException {
        Optional<List<List<Integer>>> members = await(() -> c.groupMembers(stream, topic, group),
                "read consumer group '" + group + "'");
        return members.isPresent() && members.get().size() == 1 && members.get().get(0).contains(0);
    }

    /**
     * The records at or after {@code from}: the list itself when all are, as they nearly always are. A poll's records
     * come in offset order, so the first one tells: a look at each record of a megabyte's poll took 30 of 1,890
     * samples in a JFR of two 1 KiB runs (and a partition's writer skips any offset it has read already).
     */
    static List<SinkRecord> atOrAfter(List<SinkRecord> polled, long from) {
        if (polled.get(0).offset() >= from) return polled;
        List<SinkRecord> records = new ArrayList<>(polled.size());
        for (SinkRecord r : polled) {
            if (r.offset() >= from) {
                records.add(r);
            }
        }
        return records;
    }

    // ---- session ------------------------------------------------------------------------------------------------

    @FunctionalInterface
    private interface SessionCall<T> {
        T run(IggyConnection connection) throws SourceException;
    }

    private <T> T withSession(SessionCall<T> call) throws SourceException {
        ensureOpen();
        IggyConnection c = session != null ? session : establish();
        readOutstanding(c);
        try {
            return call.run(c);
        } catch (SessionLostException e) {
            throw onSessionLost(c, e);
        }
    }

    private SourceException onSessionLost(IggyConnection lost, SessionLostException e) {
        if (session != lost) {
            return new SourceException(e.getMessage(), true, e.getCause());
        }
        session = null;
        LOG.warn("Iggy session lost ({}); closing the connection and building a new one", e.getMessage());
        // The old client may be wedged for good (a FIN during a call): never reuse it, never wait on it.
        closeQuietly(lost);
        if (!Thread.currentThread().isInterrupted()) {
            try {
                establish();
                return new SourceException(e.getMessage() + "; reconnected in session epoch " + epoch, true,
                        e.getCause());
            } catch (SourceException rebuild) {
                if (!rebuild.retryable()) return rebuild;
                LOG.debug("Rebuilding the Iggy session failed: {}", rebuild.getMessage());
            }
        }
        return new SourceException(e.getMessage() + "; reconnecting", true, e.getCause());
    }

    private IggyConnection establish() throws SourceException {
        long now = nanoTime.getAsLong();
        if (failedAttempts > 0 && now - nextAttemptNanos < 0) {
            throw new SourceException("not connected to Iggy at " + endpoint() + "; next attempt in "
                    + TimeUnit.NANOSECONDS.toMillis(nextAttemptNanos - now) + " ms", true);
        }
        IggyConnection c;
        try {
            c = factory.create();
        } catch (RuntimeException e) {
            throw new SourceException("cannot build an Iggy client for " + endpoint() + ": " + e.getMessage(),
                    false, e);
        }
        int partitionCount;
        try {
            await(c::connect, "connect to " + endpoint());
            login(c);
            if (!everEstablished) {
                LOG.info("Connected to Iggy at {} as {}", endpoint(), principal());
            }
            if (!await(() -> c.streamExists(stream), "read stream " + stream)) {
                throw streamMissing(null);
            }
            partitionCount = await(() -> c.topicPartitions(stream, topic), "read topic " + stream + "/" + topic)
                    .orElseThrow(() -> topicMissing(null)).size();
            ensureGroup(c);
            await(() -> c.joinGroup(stream, topic, group), "join consumer group '" + group + "'");
        } catch (SourceException e) {
            closeQuietly(c);
            failedAttempts++;
            nextAttemptNanos = nanoTime.getAsLong() + backoffNanos(failedAttempts);
            throw e;
        }
        failedAttempts = 0;
        session = c;
        if (everEstablished) {
            epoch++;
            LOG.info("Reconnected to Iggy at {} and re-joined consumer group '{}' on {}/{} (session epoch {})",
                    endpoint(), group, stream, topic, epoch);
        } else {
            everEstablished = true;
            LOG.info("Joined consumer group '{}' on {}/{} ({} partitions)", group, stream, topic, partitionCount);
        }
        return c;
    }

    private void login(IggyConnection c) throws SourceException {
        try {
            if (settings.token().isPresent()) {
                String token = settings.token().get().reveal();
                await(() -> c.loginWithToken(token), "log in with a personal access token");
            } else {
                String password = settings.password().reveal();
                await(() -> c.login(settings.username(), password), "log in as user '" + settings.username() + "'");
            }
        } catch (SessionLostException e) {
            throw e;
        } catch (SourceException e) {
            int code = IggyFailures.errorCode(e.getCause());
            // 40-54 on a login are all answers about who we are (45-54 carry misleading Java names), and so is 20
            // on a login with a token (no such token): retrying the same credentials cannot help.
            if ((code >= IggyFailures.UNAUTHENTICATED && code <= 54 && code != IggyFailures.UNAUTHORIZED)
                    || (settings.token().isPresent() && IggyFailures.rejectsToken(code))) {
                throw credentialsRejected(code, e.getCause());
            }
            throw e;
        }
    }

    private void ensureGroup(IggyConnection c) throws SourceException {
        boolean exists = await(() -> c.groupMembers(stream, topic, group), "read consumer group '" + group + "'")
                .isPresent();
        if (exists) return;
        try {
            await(() -> c.createGroup(stream, topic, group), "create consumer group '" + group + "'");
            LOG.info("Created consumer group '{}' on {}/{}", group, stream, topic);
        } catch (SessionLostException e) {
            throw e;
        } catch (SourceException e) {
            // Another member created it between our look and our create: that is the outcome we wanted.
            if (IggyFailures.errorCode(e.getCause()) != IggyFailures.GROUP_NAME_EXISTS) throw e;
        }
    }

    /** Waits for one client call within {@code callTimeout}; every failure comes out classified. */
    private <T> T await(Supplier<CompletableFuture<T>> call, String what) throws SourceException {
        CompletableFuture<T> future;
        try {
            future = call.get();
        } catch (RuntimeException e) {
            throw translate(e, what);
        }
        return awaitAnswer(future, what);
    }

    private <T> T awaitAnswer(CompletableFuture<T> future, String what) throws SourceException {
        try {
            return future.get(callTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new SessionLostException("no answer from Iggy within " + callTimeout.toMillis() + " ms to " + what,
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SessionLostException("interrupted while waiting for Iggy to " + what, e);
        } catch (ExecutionException e) {
            throw translate(e.getCause(), what);
        }
    }

    private SourceException translate(Throwable failure, String what) {
        Throwable cause = IggyFailures.unwrap(failure);
        int code = IggyFailures.errorCode(cause);
        if (cause instanceof PollResponseException bad) {
            // Bytes off the layout: the stream they came over cannot be trusted. A value a record cannot carry:
            // the same message comes back on every retry, so the partition stops rather than skip it.
            return bad.malformed()
                    ? new SessionLostException("Iggy sent a malformed answer to " + what + ": " + bad.getMessage(),
                    bad)
                    : new SourceException(bad.getMessage(), false, bad);
        }
        if (cause instanceof IggyClientShapeException) {
            // Another client version on the class path: no reconnect fixes it.
            return new SourceException(cause.getMessage(), false, cause);
        }
        if (cause instanceof IggyTlsException) {
            // A bad CA file or TLS setup does not fix itself by reconnecting.
            return new SourceException("TLS setup for Iggy at " + endpoint() + " failed: " + describe(cause), false,
                    cause);
        }
        if (code < 0) {
            return new SessionLostException("connection to Iggy at " + endpoint() + " failed while trying to " + what
                    + ": " + describe(cause), cause);
        }
        if (IggyFailures.losesSession(code)) {
            return new SessionLostException("Iggy answered error " + code + " to " + what, cause);
        }
        if (IggyFailures.rejectsCredentials(code) || code == IggyFailures.USER_INACTIVE) {
            return credentialsRejected(code, cause);
        }
        return switch (code) {
            case IggyFailures.UNAUTHORIZED -> new SourceException(principal() + " is not allowed to " + what
                    + " (Iggy error 41: missing permission)", false, cause);
            case IggyFailures.STREAM_NOT_FOUND -> streamMissing(cause);
            case IggyFailures.TOPIC_NOT_FOUND -> topicMissing(cause);
            default -> new SourceException("Iggy answered error " + code + " to " + what, true, cause);
        };
    }

    private SourceException credentialsRejected(int code, Throwable cause) {
        String why = settings.token().isPresent() && IggyFailures.rejectsToken(code)
                ? IggyFailures.whyTokenRejected(code) : IggyFailures.whyRejected(code);
        return new SourceException("Iggy at " + endpoint() + " rejected the credentials of " + principal() + " ("
                + why + ", error " + code + ")", false, cause);
    }

    private SourceException streamMissing(Throwable cause) {
        return new TopicMissingException("stream '" + stream + "' does not exist on Iggy at " + endpoint()
                + " (the sink does not create streams)", cause);
    }

    private SourceException topicMissing(Throwable cause) {
        return new TopicMissingException("topic '" + topic + "' does not exist in stream '" + stream + "' on Iggy at "
                + endpoint() + " (the sink does not create topics)", cause);
    }

    private void closeQuietly(IggyConnection c) {
        try {
            c.close().whenComplete((ok, e) -> {
                if (e != null) LOG.debug("Closing an Iggy client failed: {}", e.toString());
            });
        } catch (RuntimeException e) {
            LOG.debug("Closing an Iggy client failed: {}", e.toString());
        }
    }

    private void ensureOpen() throws SourceException {
        if (closed) throw new SourceException("the Iggy source for " + stream + "/" + topic + " is closed", false);
    }

    private void requireOurs(PartitionRef partition) {
        Objects.requireNonNull(partition, "partition");
        if (!partition.stream().equals(stream) || !partition.topic().equals(topic)) {
            throw new IllegalArgumentException(partition + " is not a partition of " + stream + "/" + topic);
        }
    }

    static long backoffNanos(int failedAttempts) {
        return REBUILD_BACKOFF.delay(failedAttempts, Optional.empty(), 0).toNanos();
    }

    private String endpoint() {
        return settings.host() + ":" + settings.port();
    }

    private String principal() {
        return settings.token().isPresent() ? "the personal access token" : "user '" + settings.username() + "'";
    }

    private static String describe(Throwable t) {
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": "
                + t.getMessage();
    }

    private static String checkName(String what, String name) {
        Objects.requireNonNull(name, what);
        if (name.isBlank()) throw new IllegalArgumentException(what + " name must not be blank");
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length != name.length() || bytes.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException(what + " name '" + name + "' must be ASCII and at most "
                    + MAX_NAME_BYTES + " bytes: the Iggy 0.8 Java client corrupts longer or non-ASCII names");
        }
        return name;
    }
}
