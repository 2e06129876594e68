package dev.iggysink.application.fakes;

import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.PartitionRevokedException;
import dev.iggysink.application.port.out.SourceException;
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
 */
public final class ScriptedMessageSource implements MessageSource {
    private final String stream;
    private final String topic;
    private final List<List<SinkRecord>> partitions = new CopyOnWriteArrayList<>();
    private final Map<Integer, Long> stored = new ConcurrentHashMap<>();
    private final Set<Integer> owned = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<SourceException> pollFailures = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<SourceException> commitFailures = new ConcurrentLinkedQueue<>();
    private final Map<Integer, SourceException> failingPartitions = new ConcurrentHashMap<>();
    private final Map<Integer, Runnable> beforeNextPoll = new ConcurrentHashMap<>();
    private final List<String> commitLog = new CopyOnWriteArrayList<>();
    private final List<String> backwardStores = new CopyOnWriteArrayList<>();
    private volatile SourceException commitsFailing;
    private volatile long epoch;
    private volatile long timestampMicros = 1_773_669_751_000_000L; // 2026-03-16T14:02:31Z
    private volatile boolean closed;
    private volatile SourceException connectFailure;

    public ScriptedMessageSource(String stream, String topic, int partitionCount) {
        this.stream = stream;
        this.topic = topic;
        for (int i = 0; i < partitionCount; i++) {
            partitions.add(new CopyOnWriteArrayList<>());
            owned.add(i);
        }
    }

    public PartitionRef partition(int id) {
        return new PartitionRef(stream, topic, id);
    }

    /** Appends records with the given payloads; each gets the next offset and the current record time. */
    public void append(int partition, List<String> payloads) {
        List<SinkRecord> list = partitions.get(partition);
        synchronized (list) {
            for (String p : payloads) {
                list.add(new SinkRecord(partition(partition), list.size(), timestampMicros, 0, MessageId.ZERO,
                        List.of(), p.getBytes(StandardCharsets.UTF_8)));
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
        timestampMicros = micros;
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
     * Stores that moved a partition's offset below the value stored before (by the sink or by another member):
     * the server accepts them, so the fake does too, and tests assert this list stays empty.
     */
    public List<String> backwardStores() {
        return List.copyOf(backwardStores);
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

    public List<String> commitLog() {
        return List.copyOf(commitLog);
    }

    public boolean closed() {
        return closed;
    }

    @Override
    public void connect() throws SourceException {
        SourceException e = connectFailure;
        if (e != null) throw e;
    }

    @Override
    public synchronized List<PartitionRef> partitions() {
        List<PartitionRef> out = new ArrayList<>();
        for (int i = 0; i < partitions.size(); i++) out.add(partition(i));
        return out;
    }

    @Override
    public OptionalLong committedOffset(PartitionRef partition) {
        return stored(partition.partitionId());
    }

    @Override
    public Batch poll(PartitionRef partition, long fromOffset, int maxRecords) throws SourceException {
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
            return new Batch(partition, true, epoch, list.size() - 1, out);
        }
    }

    @Override
    public void commit(PartitionRef partition, long offset) throws SourceException {
        SourceException e = commitFailures.poll();
        if (e != null) throw e;
        if (commitsFailing != null) throw commitsFailing;
        int id = partition.partitionId();
        if (!owned.contains(id)) throw new PartitionRevokedException(partition, null);
        if (offset >= partitions.get(id).size()) throw new SourceException("4100 offset beyond end", false);
        // As the server: the stored offset is replaced, whatever it was.
        Long before = stored.put(id, offset);
        if (before != null && offset < before) backwardStores.add(id + ": " + before + " -> " + offset);
        commitLog.add(id + ":" + offset);
    }

    @Override
    public long sessionEpoch() {
        return epoch;
    }

    @Override
    public void close() {
        closed = true;
    }

    public Set<Integer> ownedPartitions() {
        return new HashSet<>(owned);
    }
}
