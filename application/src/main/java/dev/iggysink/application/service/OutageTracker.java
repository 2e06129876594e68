package dev.iggysink.application.service;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a dependency (the object store, a topic's source) is failing: since when, with which error, and one log
 * line when it starts failing and one when it works again. Several things can fail independently (uploads of
 * different files, polls of different partitions); the dependency is healthy again only when none of them is failing
 * and the last one ended with a success, so a stop that gives up on a failing upload is not reported as a recovery.
 * Thread-safe.
 */
final class OutageTracker {
    private static final System.Logger LOG = System.getLogger(OutageTracker.class.getName());

    private final String name;
    private final String downWord;
    private final InstantSource clock;
    private final System.Logger log;
    private final Set<Object> failing = new HashSet<>();
    private Instant since;
    private String lastError;

    /**
     * @param name     what is failing, e.g. {@code object store} or {@code source s/t}
     * @param downWord how its trouble reads in health reasons and logs: {@code failing}, {@code unavailable}
     * @param log      the logger the transitions go to (the class that owns the dependency)
     */
    OutageTracker(String name, String downWord, InstantSource clock, System.Logger log) {
        this.name = name;
        this.downWord = downWord;
        this.clock = clock;
        this.log = log == null ? LOG : log;
    }

    /** {@code what} (an upload, a partition's polls) failed; it counts as failing until {@link #ended}. */
    synchronized void failed(Object what, String error) {
        lastError = error;
        failing.add(what);
        if (since == null) {
            since = clock.instant();
            log.log(Level.WARNING, name + " degraded (" + downWord + "), retrying: " + error);
        }
    }

    /** {@code what} stopped failing: {@code succeeded} when it worked, false when it was given up. */
    synchronized void ended(Object what, boolean succeeded) {
        if (!failing.remove(what) || !failing.isEmpty()) return;
        if (succeeded) log.log(Level.INFO, name + " recovered");
        since = null;
    }

    synchronized boolean failing() {
        return !failing.isEmpty();
    }

    synchronized Optional<String> lastError() {
        return Optional.ofNullable(lastError);
    }

    /** The health reason while something fails, e.g. "object store failing since ...: 503 ...". */
    synchronized Optional<String> trouble() {
        return since == null ? Optional.empty()
                : Optional.of(name + " " + downWord + " since " + since + ": " + lastError);
    }
}
