package dev.iggysink.application.audit;

import dev.iggysink.application.port.out.Sleeper;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.domain.retry.RequestBudget;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The pace of a self-audit: rounds start no more often than {@code interval}, and every request a round makes waits
 * for room in a budget of requests per minute. Waits go through the {@link Sleeper} port. It also keeps how the rounds
 * went, for the audit's {@link #status}; the audit calls {@link #ended}, {@link #failed} and {@link #status} under
 * its own lock.
 */
public final class AuditPace {
    /** One round of an audit. */
    @FunctionalInterface
    public interface Round {
        void run() throws InterruptedException, StoreException;
    }

    private final int perMinute;
    private final Duration interval;
    private final InstantSource clock;
    private final Sleeper sleeper;
    private final BooleanSupplier stopping;
    private final RequestBudget budget;
    private long rounds;
    private Instant lastRound;
    private String lastError;

    public AuditPace(int requestsPerMinute, Duration interval, InstantSource clock, Sleeper sleeper,
                     BooleanSupplier stopping) {
        if (requestsPerMinute <= 0) throw new IllegalArgumentException("requestsPerMinute must be > 0");
        this.perMinute = requestsPerMinute;
        this.interval = interval;
        this.clock = clock;
        this.sleeper = sleeper;
        this.stopping = stopping;
        this.budget = new RequestBudget(requestsPerMinute, clock.instant());
    }

    /**
     * Runs {@code round} until the audit is stopping or the thread interrupted. A round that fails is handed to
     * {@code failed}, and the next one comes at the usual pace: a failing store is asked no more often than a healthy
     * one.
     */
    public void run(Round round, Consumer<Exception> failed) {
        while (!stopping()) {
            Instant started = clock.instant();
            try {
                round.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (StoreException | RuntimeException e) {
                failed.accept(e);
            }
            Duration rest = interval.minus(Duration.between(started, clock.instant()));
            try {
                if (!rest.isNegative() && !rest.isZero()) sleeper.sleep(rest);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Waits until the budget allows {@code n} more requests, and spends them. */
    public void spend(int n) throws InterruptedException {
        for (Duration wait; !(wait = budget.trySpend(n, clock.instant())).isZero(); ) sleeper.sleep(wait);
    }

    /** A round ended well: counted, its time kept, the failure of an earlier one forgotten. */
    public void ended() {
        rounds++;
        lastRound = clock.instant();
        lastError = null;
    }

    /** A round failed with {@code e}: said in the status until one ends well. */
    public void failed(Exception e) {
        lastError = e.getMessage();
    }

    /** The audit's status: how its rounds went and what they spent from here, what they found from the caller. */
    public AuditStatus status(long verified, long skipped, List<AuditStatus.Covered> covered, List<String> problems,
                              List<String> notes, AuditStatus.Counts counts) {
        return new AuditStatus(perMinute, Optional.ofNullable(lastRound), rounds, budget.spent(), verified, skipped,
                covered, problems, notes, counts, Optional.ofNullable(lastError));
    }

    public int perMinute() {
        return perMinute;
    }

    public boolean stopping() {
        return stopping.getAsBoolean();
    }
}
