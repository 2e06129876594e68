package dev.iggysink.application.port.in;

import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.application.status.TableStatus;
import java.util.Map;
import java.util.Optional;

/**
 * What a driving adapter (the admin server, a CLI, a test) may ask of a running sink. The admin server depends on
 * this port only, never on the pipeline's classes.
 */
public interface SinkControl {
    /** Seals every open file now; the files upload and commit as usual. */
    void flush();

    /** Stops polling; uploads and commits go on. */
    void pause();

    /**
     * As {@link #pause()}, saying who asked ({@code requestedBy}, e.g. "POST /pause from 10.0.0.7"): health reports
     * it with the time of the first request until {@link #resume()}.
     */
    void pause(String requestedBy);

    void resume();

    /** Health, per-partition state and totals; safe from any thread at any time. */
    StatusSnapshot status();

    /** How many files were sealed for each reason since start (size, count, record time, schedule, ...). */
    Map<String, Long> rotationCounts();

    /** What a table sink adds to {@link #status()}: its commit totals and lanes; empty for the object sink. */
    default Optional<TableStatus> tables() {
        return Optional.empty();
    }

    /** What the sink's own continuous audit found; empty when it is off ({@code self_audit_requests_per_minute = 0}). */
    default Optional<AuditStatus> audit() {
        return Optional.empty();
    }

    /** Asks the sink to stop polling and drain; returns at once. */
    void requestStop();
}
