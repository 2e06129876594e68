package dev.iggysink.application.service;

import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.delivery.PollCeiling;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;

/**
 * The polls of one consumer loop, sized to the memory budget, with one poll started ahead while the current batch is
 * encoded: sent by the source and awaited when needed ({@link MessageSource#startPoll}), or, when the source cannot do
 * that, run on a thread of its own. The poll ahead is a guess: it is used only if the partition's position and
 * generation did not move meanwhile (a bad record, a revocation, a restart), else dropped. The source must allow the
 * two threads (the loop's {@link SerializedSource} does).
 */
final class Fetcher implements AutoCloseable {
    /** A poll ahead: on the fetch thread ({@code batch}), or sent by the source and awaited here ({@code pending}). */
    private record Ahead(PartitionWriter writer, long from, long generation, int size, Future<Batch> batch,
                         MessageSource.PendingPoll pending) {
    }

    private final MessageSource source;
    private final MemoryBudget budget;
    private final int batchLength;
    private final ExecutorService thread;
    private Ahead ahead;
    /**
     * What a record is taken to weigh until a poll tells: as much as Iggy takes in one message (64 MB), so that the
     * first poll asks for one record. A guess of 64 KiB asked 288 records of the default budget's first poll: of 4 MiB
     * records, 1.2 GB, which the client's direct memory refused on every retry, and the partition stood still.
     */
    static final long FIRST_GUESS_RECORD_BYTES = 64L * 1000 * 1000;
    /** Payload bytes per record in the last non-empty poll; sizes the next poll against the memory budget. */
    private long averageRecordBytes = FIRST_GUESS_RECORD_BYTES;
    /** A poll holds at most the budget over this. */
    static final int BUDGET_SHARE_PER_POLL = 4;
    private final PollCeiling ceiling = new PollCeiling();
    /** What the poll whose answer is taken asked for. */
    private int lastAsked;
    /** Payload bytes of the batch being encoded: on the heap, not yet in the budget. */
    private long unencodedBytes;

    Fetcher(String name, MessageSource source, MemoryBudget budget, int batchLength) {
        this.source = source;
        this.budget = budget;
        this.batchLength = batchLength;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fetch-" + name);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * The batch of {@code w} at its position: the poll ahead when it was for this very position, else a fresh poll.
     * A poll ahead meant for another writer that {@code stillWanted} is kept for later in the pass.
     */
    Batch fetch(PartitionWriter w, Predicate<PartitionWriter> stillWanted) throws SourceException,
            InterruptedException {
        try {
            Batch b = fetchOrTake(w, stillWanted);
            ceiling.answered(lastAsked, b.records().size());
            return b;
        } catch (SourceException e) {
            ceiling.failed(e.outOfMemory());
            throw e;
        }
    }

    private Batch fetchOrTake(PartitionWriter w, Predicate<PartitionWriter> stillWanted)
            throws SourceException, InterruptedException {
        Ahead a = ahead;
        ahead = null;
        if (a != null && a.writer() != w && stillWanted.test(a.writer())) {
            ahead = a;
            a = null;
        }
        if (a != null) {
            boolean valid = a.writer() == w && a.from() == w.position() && a.generation() == w.generation()
                    && w.owned();
            if (valid) lastAsked = a.size();
            if (a.pending() != null) {
                // One not used is dropped: the source reads its answer before it sends anything else.
                if (valid) return a.pending().await();
            } else try {
                Batch b = a.batch().get();
                if (valid) return b;
            } catch (ExecutionException e) {
                if (valid && e.getCause() instanceof SourceException se) throw se;
                if (valid && e.getCause() instanceof RuntimeException re) throw re;
            }
        }
        lastAsked = pollSize(w);
        return source.poll(w.partition(), w.position(), lastAsked);
    }

    /**
     * {@link #pollSize(long)}, or for a partition completing a claimed cut up to the cut's end within
     * {@code batch_length}: under a full budget only such partitions read, and the cut is held in memory to its end
     * anyway, so one record per poll would only cost round trips while the topic's other partitions wait.
     */
    private int pollSize(PartitionWriter w) {
        int size = pollSize(0);
        if (!w.completingClaim()) return size;
        long toEnd = w.claimedEnd() - w.position() + 1;
        return toEnd <= size ? size : ceiling.apply((int) Math.min(batchLength, toEnd));
    }

    /** Starts the poll of {@code next} from {@code from}, unless one is already ahead or the budget is full. */
    void fetchAhead(PartitionWriter next, long from) {
        if (ahead != null || budget.exhausted()) return;
        int size = pollSize(unencodedBytes);
        PartitionRef partition = next.partition();
        MessageSource.PendingPoll pending;
        try {
            pending = source.startPoll(partition, from, size);
        } catch (SourceException e) {
            pending = () -> {
                throw e;
            };
        }
        ahead = pending != null ? new Ahead(next, from, next.generation(), size, null, pending)
                : new Ahead(next, from, next.generation(), size,
                thread.submit(() -> source.poll(partition, from, size)), null);
    }

    boolean hasAhead() {
        return ahead != null;
    }

    /** Positions are void (a new session): whatever is ahead is dropped. */
    void forget() {
        ahead = null;
    }

    /**
     * Learns the size of records from the batch about to be encoded, for the next poll's size; until it is encoded
     * its bytes are not in the budget, so the poll ahead leaves room for them.
     */
    void learned(List<SinkRecord> records, long payloadBytes) {
        if (!records.isEmpty()) averageRecordBytes = Math.max(1, payloadBytes / records.size());
        unencodedBytes = payloadBytes;
    }

    /**
     * {@code batch_length}, cut down so that one poll cannot overshoot the memory budget's room, less
     * {@code notCounted} bytes already on the heap, by more than about one record, nor hold more than
     * {@value #BUDGET_SHARE_PER_POLL} of the budget: a batch is on the heap before it is encoded, and it is encoded
     * whole even when the budget fills half-way, so a poll of 1,000 records of 64 KiB (64 MiB) with the budget of
     * 72 MiB full ran a 256 MiB heap out.
     */
    int pollSize(long notCounted) {
        long room = Math.min(budget.max() / BUDGET_SHARE_PER_POLL,
                Math.max(0, budget.max() - budget.used() - notCounted));
        long fits = Math.max(1, room / Math.max(1, averageRecordBytes));
        return ceiling.apply((int) Math.min(batchLength, fits));
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
