package dev.iggysink.application.service;

import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.rotation.RotationReason;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * Decides, each turn of a consumer loop, whether it may poll under the memory budget, and when the budget is full
 * frees memory that would otherwise never be freed. Used by one consumer loop thread.
 */
final class MemoryRelief {
    private static final System.Logger LOG = System.getLogger(MemoryRelief.class.getName());

    private final MemoryBudget budget;
    private final String name;
    private boolean logged;

    MemoryRelief(MemoryBudget budget, String name) {
        this.budget = budget;
        this.name = name;
    }

    /** True when polling may go on; else the budget is full, and {@link #relieve} was asked to free memory. */
    boolean mayPoll(List<PartitionWriter> writers) {
        if (!budget.exhausted()) {
            logged = false;
            return true;
        }
        if (!logged) {
            LOG.log(Level.INFO, "memory budget of " + budget.max() + " bytes reached; polling of " + name
                    + " pauses until uploads free memory");
            logged = true;
        }
        relieve(writers);
        return false;
    }

    /**
     * The budget is full. Uploads that are making progress will free memory, so wait for them; when none is (all
     * failing, or nothing sealed yet), seal the largest open file of a partition that can still upload, so its
     * memory can be freed too. Partitions whose uploads fail do not poll, so they cannot take the budget from the
     * others.
     */
    void relieve(List<PartitionWriter> writers) {
        PartitionWriter largest = null;
        for (PartitionWriter w : writers) {
            if (w.progressingUploads() > 0) return;
            if (w.halted() || w.stalled() || w.openBytes() == 0) continue;
            if (largest == null || w.openBytes() > largest.openBytes()) largest = w;
        }
        if (largest != null) largest.sealAll(RotationReason.MEMORY_PRESSURE);
    }
}
