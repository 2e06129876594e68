package dev.iggysink.application.status;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the sink's own continuous audit has seen (the self-audit: the checks of {@code audit}, run inside the sink
 * within a budget of store requests per minute). {@code problems}: gaps, overlaps, objects whose key disagrees with
 * what they say of themselves, and committed objects not found as written, each naming its keys; any of them fails
 * health. {@code notes}: what is worth a look and loses nothing (claims left behind). {@code covered}: per partition
 * this member owns, the offsets the last round checked. {@code lastError}: why the last round did not finish (the
 * store failed), empty when it did.
 */
public record AuditStatus(int requestsPerMinute, Optional<Instant> lastRound, long rounds, long requests,
                          long objectsVerified, long verificationsSkipped, List<Covered> covered,
                          List<String> problems, List<String> notes, Counts counts, Optional<String> lastError) {
    public AuditStatus {
        Objects.requireNonNull(lastRound, "lastRound");
        covered = List.copyOf(covered);
        problems = List.copyOf(problems);
        notes = List.copyOf(notes);
        Objects.requireNonNull(counts, "counts");
        Objects.requireNonNull(lastError, "lastError");
    }

    /** The name of a sink's self-audit thread (object or table sink) for the connector key {@code sinkKey}. */
    public static String threadName(String sinkKey) {
        return "self-audit " + sinkKey;
    }

    /** Nothing audited yet. */
    public static AuditStatus none(int requestsPerMinute) {
        return new AuditStatus(requestsPerMinute, Optional.empty(), 0, 0, 0, 0, List.of(), List.of(), List.of(),
                new Counts(0, 0, 0, 0, 0), Optional.empty());
    }

    /**
     * One partition's last audited window: offsets {@code from} to {@code to} (the group's offset then) in
     * {@code objects} objects, at {@code at}.
     */
    public record Covered(String stream, String topic, int partition, long from, long to, int objects, Instant at) {
    }

    /** The open findings by kind. {@code unverified}: committed objects not found in the store as written. */
    public record Counts(int gaps, int overlaps, int mismatches, int unverified, int claimsLeftBehind) {
    }
}
