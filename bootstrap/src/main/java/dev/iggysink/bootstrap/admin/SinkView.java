package dev.iggysink.bootstrap.admin;

import dev.iggysink.application.status.StatusSnapshot;
import java.util.Map;
import java.util.Objects;

/**
 * One sink's status at one moment, with its connector key and how many files it sealed for each rotation reason:
 * what {@link StatusJson} renders.
 */
public record SinkView(String key, StatusSnapshot snapshot, Map<String, Long> rotations) {
    public SinkView {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(snapshot, "snapshot");
        rotations = Map.copyOf(rotations);
    }

    public SinkView(String key, StatusSnapshot snapshot) {
        this(key, snapshot, Map.of());
    }
}
