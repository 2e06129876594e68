package dev.iggysink.application.service;

import java.util.HashSet;
import java.util.Set;

/**
 * A partition's uploads in flight: how many were handed over and not yet applied back (of any generation: each still
 * holds its memory), and which of the current generation failed at least once and are being retried. The consumer
 * loop reads it to decide whether the partition may poll and whether memory will free itself. Used by one thread.
 */
final class UploadTally {
    private int outstanding;
    /** First offsets of the current generation's files whose upload is being retried. */
    private final Set<Long> retrying = new HashSet<>();

    void handedOver() {
        outstanding++;
    }

    /** An attempt of the current generation's file starting at {@code firstOffset} failed and will be retried. */
    void retrying(long firstOffset) {
        retrying.add(firstOffset);
    }

    /** An upload ended; {@code current} when it belongs to the current generation. */
    void ended(long firstOffset, boolean current) {
        outstanding--;
        if (current) retrying.remove(firstOffset);
    }

    /** The partition starts again: older uploads still end (and count) here, but none of them stalls it. */
    void newGeneration() {
        retrying.clear();
    }

    /** Uploads handed over and not yet applied back, of any generation. */
    int outstanding() {
        return outstanding;
    }

    /** Some upload of the current generation is failing: the partition reads no further until it succeeds. */
    boolean stalled() {
        return !retrying.isEmpty();
    }

    /** Outstanding uploads that are not failing: they will free memory soon. */
    int progressing() {
        return outstanding - retrying.size();
    }
}
