package dev.iggysink.application.table;

import dev.iggysink.domain.retry.Backoff;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One dependency of a table sink (its catalog, its warehouse store) while calls to it fail. The loops ask
 * {@link #due} before a call: after a failure the next call waits out a capped, jittered backoff (as the object
 * sink's uploads do), so an outage costs a few calls a minute, not one per poll. One line when the outage starts,
 * one when it ends, and {@link #summary} for the status line in between. Shared by the loops of a sink; thread-safe.
 */
final class TableOutage {
    private static final System.Logger LOG = System.getLogger(TableOutage.class.getName());
    /** Past this many failures the backoff stays at its cap. */
    private static final int MAX_STEP = 30;

    private final String name;
    private final Backoff backoff;
    private Instant since;
    private Instant nextTry = Instant.EPOCH;
    private String lastError;
    private long failures;

    /** @param name what fails, as the operator knows it: {@code catalog http://rest:8181} */
    TableOutage(String name, Backoff backoff) {
        this.name = name;
        this.backoff = backoff;
    }

    /** Whether a call may be made now: always while it answers, after a failure once its backoff has passed. */
    synchronized boolean due(Instant now) {
        return since == null || !now.isBefore(nextTry);
    }

    /** A call failed with {@code error} at {@code now}; returns whether this started the outage. */
    synchronized boolean failed(String error, Instant now) {
        failures++;
        lastError = error;
        Duration wait = backoff.delay((int) Math.min(failures, MAX_STEP), Optional.empty(),
                ThreadLocalRandom.current().nextDouble());
        nextTry = now.plus(wait);
        if (since != null) return false;
        since = now;
        LOG.log(Level.WARNING, "{0} failing, retrying with backoff (at most {1} ms apart): {2}", name,
                String.valueOf(backoff.cap().toMillis()), error);
        return true;
    }

    /** A call went through: ends an outage, with one line. */
    synchronized void succeeded(Instant now) {
        if (since == null) return;
        LOG.log(Level.INFO, "{0} recovered after {1} s and {2} failed attempt(s)", name,
                String.valueOf(Duration.between(since, now).toSeconds()), String.valueOf(failures));
        since = null;
        failures = 0;
        lastError = null;
    }

    /** The health reason while it fails: what, since when, and the last error. */
    synchronized Optional<String> trouble() {
        return since == null ? Optional.empty()
                : Optional.of(name + " failing since " + since + ", retrying: " + lastError);
    }

    /** One line for the status interval while it fails. */
    synchronized Optional<String> summary(Instant now) {
        if (since == null) return Optional.empty();
        return Optional.of(name + " still failing after " + Duration.between(since, now).toSeconds() + " s ("
                + failures + " failed attempt(s), next in " + Math.max(0, Duration.between(now, nextTry).toMillis())
                + " ms): " + lastError);
    }
}
