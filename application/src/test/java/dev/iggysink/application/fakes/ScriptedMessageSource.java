package dev.iggysink.application.fakes;

import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.PartitionRevokedException;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.TopicMissingException;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A topic in memory behaving like one Iggy consumer-group member: partitions, records, the group's stored offsets,
 * which partitions this member owns, and scriptable failures. Thread-safe, so a test can append records and change
 * ownership while the consumer loop runs.
 *
 * <p>{@link #newMember()} opens another member of the same group on the same topic: records, stored offsets and
 * {@link #backwardStores()} are shared, everything else (ownership, scripted failures, the commit log, the session
 * epoch) is per member. As on Iggy 0.8, a joining member takes one partition from the member owning the most, but
 * a partition the group has polled moves only once its holder has committed what was polled (until then the holder
 * keeps polling and committing it); a closing member hands its partitions to the remaining ones.
 * {@code MessageSourceContract} keeps this fake honest against the real adapter and server.
 */
public final class ScriptedMessageSource implements MessageSource {
    private final String stream;
    private final String topic;
    private final Shared shared;
    private final List<List<SinkRecord>> partitions;
    private final Map<Integer, Long> stored;
    private final Set<Integer> owned = ConcurrentHashMap.newKeySet();
    /* What this member stored last per partition: like the adapter, it ignores a commit not larger than that. */
    private final Map<Integer, Long> lastCommitted = new ConcurrentHashMap<>();
    /* Partitions this member still owns but has to hand to another member (the value) once completable. */
    private final Map<Integer, ScriptedMessageSource> pendingMoves = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<SourceException> pollFailures = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<SourceException> commitFailures = new ConcurrentLinkedQueue<>();
    private final Map<Integer, SourceException> failingPartitions = new ConcurrentHashMap<>();
    private final Map<Integer, Runnable> beforeNextPoll = new ConcurrentHashMap<>();
    /** The thread of each poll that returned records, in order. */
    private final java.util.Queue<String> pollThreads = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final List<String> commitLog = new CopyOnWriteArrayList<>();
    private volatile SourceException commitsFailing;
    private volatile long epoch;
    private volatile boolean closed;
    private volatile SourceException connectFailure;
    private volatile boolean pollsWithoutWaiting;
    private final java.util.concurrent.atomic.AtomicLong polls = new java.util.concurrent.atomic.AtomicLong();

    /** The topic and its consumer group, shared by every member of the group. */
    private static final class Shared {
        final List<List<SinkRecord>> partitions = new CopyOnWriteArrayList<>();
        final Map<Integer, Long> stored = new ConcurrentHashMap<>();
        final List<String> backwardStores = new CopyOnWriteArrayList<>();
        /* The last offset the group's latest non-empty poll of each partition returned, as the server keeps it. */
        final Map<Integer, Long> lastPolled = new ConcurrentHashMap<>();
        final List<ScriptedMessageSource> members = new ArrayList<>(); // guarded by this
        volatile long timestampMicros = 1_773_669_751_000_000L; // 2026-03-16T14:02:31Z
        /* The topic was deleted: every call fails as on Iggy until it is created again. */
        volatile boolean deleted;
    }

    public ScriptedMessageSource(String stream, String topic, int partitionCount) {
        this(stream, topic, new Shared());
        for (int i = 0; i < partitionCount; i++) {
            partitions.add(new CopyOnWriteArrayList<>());
            owned.add(i);
        }
        shared.members.add(this);
    }

    private ScriptedMessageSource(String stream, String topic, Shared shared) {
        this.stream = stream;
        this.topic = topic;
        this.shared = shared;
        this.partitions = shared.partitions;
        this.stored = shared.stored;
    }

    /**
     * Another member joining the same group (a second instance, or this one restarted). Alone in the group it owns
     * every partition; otherwise it takes the highest partition of the member owning the most, when that member owns
     * more than one (Iggy 0.8 moves at most one partition per joining member). When the group has polled that
     * partition past its stored offset, the move waits until the holder commits what was polled.
     */
    public ScriptedMessageSource newMember() {
        ScriptedMessageSource member = new ScriptedMessageSource(stream, topic, shared);
        synchronized (shared) {
            List<ScriptedMessageSource> others = List.copyOf(shared.members);
            shared.members.add(member);
            if (others.isEmpty()) {
                for (int i = 0; i < partitions.size(); i++) member.owned.add(i);
                return member;
            }
            ScriptedMessageSource richest = others.get(0);
            for (ScriptedMessageSource m : others) {
                if (m.servable().size() > richest.servable().size()) richest = m;
            }
            List<Integer> servable = richest.servable();
            if (servable.size() > 1) {
                int moved = servable.stream().max(Integer::compare).orElseThrow();
                richest.pendingMoves.put(moved, member);
                richest.completeMoveIfCommitted(moved);
            }
        }
        return member;
    }

    public PartitionRef partition(int id) {
        return new PartitionRef(stream, topic, id);
    }

    /** Appends records with the given payloads; each gets the next offset and the current record time. */
    public void append(int partition, List<String> payloads) {
        List<SinkRecord> list = partitions.get(partition);
        synchronized (list) {
            for (String p : payloads) {
                list.add(new SinkRecord(partition(partition), list.size(), shared.timestampMicros, 0,
                        MessageId.ZERO, List.of(), p.getBytes(StandardCharsets.UTF_8)));
            }
        }
    }

    /** Appends records with the given payload bytes (copied); each gets the next offset and the current record time. */
    public void appendBytes(int partition, List<byte[]> payloads) {
        List<SinkRecord> list = partitions.get(partition);
        synchronized (list) {
            for (byte[] p : payloads) {
                list.add(new SinkRecord(partition(partition), list.size(), shared.timestampMicros, 0,
                        MessageId.ZERO, List.of(), p.clone()));
            }
        }
    }

    public void append(int partition, int count, java.util.function.IntFunction<String> payload) {
        List<String> payloads = new ArrayList<>();
        int base = partitions.get(partition).size();
        for (int i = 0; i < count; i++) payloads.add(payload.apply(base + i));
        append(partition, payloads);
    }

    public void recordTimeMicros(long micros) {
        shared.timestampMicros = micros;
    }

    public void own(int partition, boolean isOwned) {
        if (isOwned) owned.add(partition);
        else owned.remove(partition);
    }

    public void failPolls(SourceException e) {
        pollFailures.add(e);
    }

    public void failCommits(SourceException e) {
        commitFailures.add(e);
    }

    /** Every poll of {@code partition} fails with {@code e} until {@link #healPolls}. */
    public void failPollsOf(int partition, SourceException e) {
        failingPartitions.put(partition, e);
    }

    public void healPolls(int partition) {
        failingPartitions.remove(partition);
    }

    /** Every commit fails with {@code e} (null: commits work again). */
    public void failAllCommits(SourceException e) {
        commitsFailing = e;
    }

    /** Runs {@code action} once, just before the next poll of {@code partition} is answered. */
    /** The name of the thread that made each poll that returned records, oldest first. */
    public List<String> pollThreads() {
        return List.copyOf(pollThreads);
    }

    public void beforeNextPoll(int partition, Runnable action) {
        beforeNextPoll.put(partition, action);
    }

    /** A partition added to the topic while the sink runs, as Iggy's create-partitions does. */
    public synchronized int addPartition() {
        partitions.add(new CopyOnWriteArrayList<>());
        int id = partitions.size() - 1;
        owned.add(id);
        return id;
    }

    /**
     * Stores that moved a partition's offset below the value stored before (by another member, or by this one
     * before it committed the partition itself): the server accepts them, so the fake does too, and tests assert
     * this list stays empty. Shared by the members of the group.
     */
    public List<String> backwardStores() {
        return List.copyOf(shared.backwardStores);
    }

    /**
     * As an operator deleting the topic (and with it the group and its offsets): every call of every member fails
     * with {@link TopicMissingException} until {@link #createTopicAgain}.
     */
    public void deleteTopic() {
        shared.deleted = true;
    }

    /** The topic created again under its name: as many partitions as before, all empty, no stored offsets. */
    public void createTopicAgain() {
        synchronized (shared) {
            for (List<SinkRecord> p : partitions) p.clear();
            stored.clear();
            shared.lastPolled.clear();
            for (ScriptedMessageSource m : shared.members) {
                m.lastCommitted.clear();
                m.epoch++; // the group and its membership are new as well
            }
            shared.deleted = false;
        }
    }

    private void requireTopic() throws TopicMissingException {
        if (shared.deleted) {
            throw new TopicMissingException("topic '" + topic + "' does not exist in stream '" + stream + "'", null);
        }
    }

    public void failConnect(SourceException e) {
        connectFailure = e;
    }

    /** As if the connection was rebuilt: positions of the consumer are void from now on. */
    public void newSession() {
        epoch++;
    }

    public OptionalLong stored(int partition) {
        Long v = stored.get(partition);
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }

    /** Sets the group's stored offset, as another member (or an earlier run) would have. */
    public void store(int partition, long offset) {
        stored.put(partition, offset);
    }

    /**
     * Every commit this member was asked for and answered without an exception, in order ("partition:offset"),
     * including those it ignored for not being larger than its last: what the caller asked, not what was stored.
     */
    public List<String> commitLog() {
        return List.copyOf(commitLog);
    }

    public boolean closed() {
        return closed;
    }

    /** How many polls this member was asked for, answered or failed. */
    public long polls() {
        return polls.get();
    }

    @Override
    public void connect() throws SourceException {
        requireTopic();
        SourceException e = connectFailure;
        if (e != null) throw e;
    }

    @Override
    public synchronized List<PartitionRef> partitions() throws SourceException {
        requireTopic();
        List<PartitionRef> out = new ArrayList<>();
        for (int i = 0; i < partitions.size(); i++) out.add(partition(i));
        return out;
    }

    @Override
    public OptionalLong committedOffset(PartitionRef partition) throws SourceException {
        requireOurs(partition);
        requireTopic();
        return stored(partition.partitionId());
    }

    @Override
    public synchronized Map<PartitionRef, Long> endOffsets() throws SourceException {
        requireTopic();
        Map<PartitionRef, Long> out = new java.util.LinkedHashMap<>();
        for (int i = 0; i < partitions.size(); i++) out.put(partition(i), (long) partitions.get(i).size() - 1);
        return out;
    }

    /**
     * From now on {@link #startPoll} returns a poll to await later, as the Iggy adapter does (its thread is the one
     * that started it; it is answered when awaited); until then it returns null and the caller polls on a thread of
     * its own.
     */
    public ScriptedMessageSource pollWithoutWaiting() {
        pollsWithoutWaiting = true;
        return this;
    }

    @Override
    public PendingPoll startPoll(PartitionRef partition, long fromOffset, int maxRecords) {
        if (!pollsWithoutWaiting) return null;
        requireOurs(partition);
        String startedBy = Thread.currentThread().getName();
        return () -> poll(partition, fromOffset, maxRecords, startedBy);
    }

    @Override
    public Batch poll(PartitionRef partition, long fromOffset, int maxRecords) throws SourceException {
        return poll(partition, fromOffset, maxRecords, Thread.currentThread().getName());
    }

    private Batch poll(PartitionRef partition, long fromOffset, int maxRecords, String thread) throws SourceException {
        requireOurs(partition);
        if (fromOffset < 0) throw new IllegalArgumentException("fromOffset must be >= 0, was " + fromOffset);
        if (maxRecords <= 0) throw new IllegalArgumentException("maxRecords must be > 0, was " + maxRecords);
        polls.incrementAndGet();
        requireTopic();
        SourceException e = pollFailures.poll();
        if (e != null) throw e;
        int id = partition.partitionId();
        SourceException failing = failingPartitions.get(id);
        if (failing != null) throw failing;
        Runnable before = beforeNextPoll.remove(id);
        if (before != null) before.run();
        if (!owned.contains(id)) return new Batch(partition, false, epoch, -1, List.of());
        List<SinkRecord> list = partitions.get(id);
        List<SinkRecord> out = new ArrayList<>();
        synchronized (list) {
            for (long o = fromOffset; o < list.size() && out.size() < maxRecords; o++) out.add(list.get((int) o));
            if (!out.isEmpty()) {
                shared.lastPolled.put(id, out.get(out.size() - 1).offset());
                pollThreads.add(thread);
            }
            return new Batch(partition, true, epoch, list.size() - 1, out);
        }
    }

    @Override
    public void commit(PartitionRef partition, long offset) throws SourceException {
        requireOurs(partition);
        if (offset < 0) throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        int id = partition.partitionId();
        Long mine = lastCommitted.get(id);
        if (mine != null && offset <= mine) {
            // As the adapter: this member already stored as much, so nothing reaches the server (nor can fail).
            commitLog.add(id + ":" + offset);
            return;
        }
        requireTopic();
        SourceException e = commitFailures.poll();
        if (e != null) throw e;
        if (commitsFailing != null) throw commitsFailing;
        if (!owned.contains(id)) throw new PartitionRevokedException(partition, null);
        if (offset >= partitions.get(id).size()) throw new SourceException("4100 offset beyond end", false);
        // As the server: the stored offset is replaced, whatever it was.
        Long before = stored.put(id, offset);
        if (before != null && offset < before) shared.backwardStores.add(id + ": " + before + " -> " + offset);
        lastCommitted.put(id, offset);
        commitLog.add(id + ":" + offset);
        completeMoveIfCommitted(id);
    }

    @Override
    public long sessionEpoch() {
        return epoch;
    }

    /**
     * Leaves the group: the partitions go to the first remaining member. Alone in the group, the member keeps them
     * (and stays usable), so a test may start a sink again on the same instance.
     */
    @Override
    public void close() {
        synchronized (shared) {
            if (closed) return;
            closed = true;
            shared.members.remove(this);
            // As the server's full rebalance on leave: pending moves are dropped.
            pendingMoves.clear();
            for (ScriptedMessageSource m : shared.members) m.pendingMoves.values().remove(this);
            if (!shared.members.isEmpty()) {
                shared.members.get(0).owned.addAll(owned);
                owned.clear();
            }
        }
    }

    /** Owned partitions not already promised to another member. */
    private List<Integer> servable() {
        List<Integer> out = new ArrayList<>();
        for (int p : owned) {
            if (!pendingMoves.containsKey(p)) out.add(p);
        }
        return out;
    }

    /** Completes a pending move once the group never polled the partition or has committed what it polled. */
    private void completeMoveIfCommitted(int partition) {
        synchronized (shared) {
            ScriptedMessageSource target = pendingMoves.get(partition);
            if (target == null) return;
            Long polled = shared.lastPolled.get(partition);
            Long committed = stored.get(partition);
            if (polled != null && (committed == null || committed < polled)) return;
            pendingMoves.remove(partition);
            owned.remove(partition);
            (shared.members.contains(target) ? target : this).owned.add(partition);
        }
    }

    private void requireOurs(PartitionRef partition) {
        if (!partition.stream().equals(stream) || !partition.topic().equals(topic)) {
            throw new IllegalArgumentException(partition + " is not a partition of " + stream + "/" + topic);
        }
    }

    public Set<Integer> ownedPartitions() {
        return new HashSet<>(owned);
    }
}
