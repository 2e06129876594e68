package dev.iggysink.application.service;

import dev.iggysink.application.status.Health;
import dev.iggysink.domain.delivery.MemoryBudget;
import dev.iggysink.domain.rotation.RotationReason;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Decides, each turn of a consumer loop, whether it may poll under the memory budget, and when the budget is full
 * frees memory that would otherwise never be freed. Used by one consumer loop thread; {@link #held} may be asked from
 * any thread.
 *
 * <p>A full budget never stops a loop for good: uploads under way free memory when they end; else the largest file
 * that may be sealed is sealed (its upload then frees it); else every open file left is a cut another member claimed
 * (which must end exactly at its claimed offset, so it can be neither sealed nor dropped), and its partition reads
 * on past the budget up to that offset, where the file is sealed and uploaded. The overshoot is bounded by the
 * claimed files (the claiming member held them). Partitions whose uploads fail hold memory until the store answers
 * again: that is an outage, reported as such. Whatever else keeps the budget full with nothing read and nothing freed
 * is reported (an upload still sending its bytes is progress, one waiting for an answer is not): degraded after
 * {@link #DEGRADED_AFTER}, failed after the time that makes a consumer loop count as stuck.
 */
final class MemoryRelief {
    private static final System.Logger LOG = System.getLogger(MemoryRelief.class.getName());
    /** Held this long with nothing read and nothing freed, polling is degraded even while uploads are under way. */
    static final Duration DEGRADED_AFTER = Duration.ofMinutes(1);

    /** Polling has been held by the full budget since {@code since} with nothing read or freed. */
    record Held(Instant since, boolean nothingCanFree, String detail) {
    }

    private final MemoryBudget budget;
    private final String name;
    private final InstantSource clock;
    private boolean logged;
    private long usedAtLastTurn = -1;
    private long sentAtLastTurn = -1;
    /** How far the uploads under way got (see {@link Uploader#sendingProgress}); moving, they will free memory. */
    private final LongSupplier sending;
    private volatile Held held;

    MemoryRelief(MemoryBudget budget, String name, InstantSource clock) {
        this(budget, name, clock, () -> 0);
    }

    MemoryRelief(MemoryBudget budget, String name, InstantSource clock, LongSupplier sending) {
        this.budget = budget;
        this.name = name;
        this.clock = clock;
        this.sending = sending;
    }

    /**
     * True when polling may go on: the budget has room, or some partition must read on to complete a claimed cut
     * (then only such partitions are polled, see {@link #mayPollPastBudget}). Else the budget is full, and
     * {@link #relieve} was asked to free memory.
     */
    boolean mayPoll(List<PartitionWriter> writers) {
        if (!budget.exhausted()) {
            logged = false;
            notHeld();
            return true;
        }
        if (!logged) {
            LOG.log(Level.INFO, "memory budget of " + budget.max() + " bytes reached; polling of " + name
                    + " pauses until uploads free memory");
            logged = true;
        }
        boolean freeing = relieve(writers);
        boolean claimed = false;
        for (PartitionWriter w : writers) claimed |= mayPollPastBudget(w);
        track(writers, freeing || claimed);
        return claimed;
    }

    /** Whether {@code w} may be polled while the budget is full: it must read on to the end of a claimed cut. */
    boolean mayPollPastBudget(PartitionWriter w) {
        return w.completingClaim() && !w.stalled();
    }

    /** Polling is not held by the budget (it has room, or the loop is paused on request). */
    void notHeld() {
        usedAtLastTurn = -1;
        sentAtLastTurn = -1;
        held = null;
    }

    /**
     * The budget is full. Uploads that are making progress will free memory, so wait for them; when none is (all
     * failing, or nothing sealed yet), seal the largest open file that may be sealed, of a partition that can still
     * upload, so its memory can be freed too. Partitions whose uploads fail do not poll, so they cannot take the
     * budget from the others. Returns whether memory will be freed without reading further.
     */
    boolean relieve(List<PartitionWriter> writers) {
        PartitionWriter largest = null;
        for (PartitionWriter w : writers) {
            if (w.progressingUploads() > 0) return true;
            if (w.halted() || w.stalled() || w.sealableBytes() == 0) continue;
            if (largest == null || w.sealableBytes() > largest.sealableBytes()) largest = w;
        }
        if (largest == null) return false;
        largest.sealAll(RotationReason.MEMORY_PRESSURE);
        return true;
    }

    /**
     * Since when the budget holds polling with the memory in use unchanged and no upload sending (the budget is the
     * sink's: memory that another topic's loop frees or reads counts too, as it will let this loop read on; so does
     * a large file still going out part after part, which frees its memory when it ends).
     */
    private void track(List<PartitionWriter> writers, boolean freeing) {
        long used = budget.used();
        long sent = sending.getAsLong();
        Held before = held;
        Instant since = before == null || used != usedAtLastTurn || sent != sentAtLastTurn ? clock.instant()
                : before.since();
        usedAtLastTurn = used;
        sentAtLastTurn = sent;
        held = new Held(since, !freeing, detail(writers));
    }

    private String detail(List<PartitionWriter> writers) {
        List<String> parts = new ArrayList<>();
        for (PartitionWriter w : writers) {
            if (w.openBytes() == 0 && w.outstanding() == 0) continue;
            StringBuilder sb = new StringBuilder("partition ").append(w.partition().partitionId()).append(": ")
                    .append(w.openBytes()).append(" bytes in open files, ").append(w.outstanding())
                    .append(" upload(s) under way");
            w.claimedCut().ifPresent(c -> sb.append(", claimed cut ").append(c).append(" still open"));
            if (w.stalled()) sb.append(", its uploads failing");
            w.haltReason().ifPresent(r -> sb.append(", halted"));
            parts.add(sb.toString());
        }
        return String.join("; ", parts);
    }

    /** Since when the full budget holds polling with nothing read or freed; empty while it does not. */
    Optional<Instant> heldSince() {
        Held h = held;
        return h == null ? Optional.empty() : Optional.of(h.since());
    }

    /**
     * The health of this loop's polling under the budget at {@code now}, with its reason: empty while memory is read
     * or freed; degraded when held with the memory in use unchanged for longer than {@link #DEGRADED_AFTER}, failed
     * when for longer than {@code stuckAfter}.
     */
    Optional<Map.Entry<Health, String>> held(Instant now, Duration stuckAfter) {
        Held h = held;
        if (h == null) return Optional.empty();
        Duration since = Duration.between(h.since(), now);
        if (since.compareTo(DEGRADED_AFTER) <= 0) return Optional.empty();
        Health health = since.compareTo(stuckAfter) > 0 ? Health.FAILED : Health.DEGRADED;
        return Optional.of(Map.entry(health, "polling of " + name + " is held by the memory budget ("
                + budget.used() + " of " + budget.max() + " bytes) since " + h.since() + " with nothing read, no"
                + " memory freed and no upload sending" + (h.nothingCanFree() ? "; nothing in this topic could free it" : "")
                + (h.detail().isEmpty() ? "" : " (" + h.detail() + ")") + "; see /status, or raise"
                + " max_buffered_bytes"));
    }
}
