package dev.iggysink.application.service;

import dev.iggysink.domain.rotation.RotationReason;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * The stop of one consumer loop: seals every owned partition's open files (after a crash of the loop, drops them
 * instead: one may end in a half-written record), waits for the uploads until the shutdown deadline or a second stop
 * signal, committing what becomes durable, and then says what was not made durable.
 */
final class Drain {
    /** The uploads' reports, applied on the calling thread. */
    interface Uploads {
        void applyPending();

        /** Waits up to {@code timeout} for one report and applies it; false when none came. */
        boolean awaitOne(Duration timeout) throws InterruptedException;
    }

    private final Uploads uploads;
    private final Committer committer;
    private final InstantSource clock;
    private final Duration timeout;
    private final Controls controls;

    Drain(Uploads uploads, Committer committer, InstantSource clock, Duration timeout, Controls controls) {
        this.uploads = uploads;
        this.committer = committer;
        this.clock = clock;
        this.timeout = timeout;
        this.controls = controls;
    }

    void run(List<PartitionWriter> writers, boolean crashed) {
        for (PartitionWriter w : writers) {
            if (crashed) w.discardOpen();
            else if (w.owned()) w.sealAll(RotationReason.SHUTDOWN);
        }
        Instant deadline = clock.instant().plus(timeout);
        try {
            // A commit that failed is tried again until the deadline too, not only while uploads are running.
            while ((!allIdle(writers) || anyCommittable(writers)) && clock.instant().isBefore(deadline)
                    && !controls.hurry) {
                boolean heard = uploads.awaitOne(Duration.ofMillis(50));
                if (heard) uploads.applyPending();
                if (heard || anyCommittable(writers)) committer.commitAll(writers);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        uploads.applyPending();
        committer.commitAll(writers);
    }

    /** Why the stop was not clean: partitions that halted during the run, or that still have records not committed. */
    static List<String> problems(List<PartitionWriter> writers) {
        List<String> problems = new ArrayList<>();
        for (PartitionWriter w : writers) {
            if (w.everHalted().isPresent()) {
                problems.add(w.everHalted().get());
            } else if (w.owned() && !w.settled()) {
                problems.add("partition " + w.partition() + ": offsets from " + (w.lastCommitted() + 1)
                        + " were not made durable and committed; they will be read again on the next start");
            }
        }
        return problems;
    }

    private static boolean anyCommittable(List<PartitionWriter> writers) {
        for (PartitionWriter w : writers) {
            if (w.committable().isPresent()) return true;
        }
        return false;
    }

    private static boolean allIdle(List<PartitionWriter> writers) {
        for (PartitionWriter w : writers) {
            if (!w.idle()) return false;
        }
        return true;
    }
}
