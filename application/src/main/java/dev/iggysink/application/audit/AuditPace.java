package dev.iggysink.application.audit;

import dev.iggysink.application.port.out.Sleeper;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.domain.retry.RequestBudget;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The pace of a self-audit: rounds start no more often than {@code interval}, and every request a round makes waits
 * for room in a budget of requests per minute. Waits go through the {@link Sleeper} port.
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

    /** Requests spent so far. */
    public long spent() {
        return budget.spent();
    }

    public int perMinute() {
        return perMinute;
    }

    public boolean stopping() {
        return stopping.getAsBoolean();
    }
}
