package dev.iggysink.bootstrap.admin;

import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.application.status.TableStatus;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One sink's status at one moment, with its connector key and how many files it sealed for each rotation reason:
 * what {@link StatusJson} renders. {@code tables}: what a table sink adds (its commits and lanes); empty for the
 * object sink. {@code audit}: what the sink's own audit found; empty when it is off.
 */
public record SinkView(String key, StatusSnapshot snapshot, Map<String, Long> rotations,
                       Optional<TableStatus> tables, Optional<AuditStatus> audit) {
    public SinkView {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(snapshot, "snapshot");
        rotations = Map.copyOf(rotations);
        Objects.requireNonNull(tables, "tables");
        Objects.requireNonNull(audit, "audit");
    }

    public SinkView(String key, StatusSnapshot snapshot, Map<String, Long> rotations,
                    Optional<TableStatus> tables) {
        this(key, snapshot, rotations, tables, Optional.empty());
    }

    public SinkView(String key, StatusSnapshot snapshot, Map<String, Long> rotations) {
        this(key, snapshot, rotations, Optional.empty());
    }

    public SinkView(String key, StatusSnapshot snapshot) {
        this(key, snapshot, Map.of());
    }
}
