package dev.iggysink.bootstrap.admin;

import dev.iggysink.application.status.StatusSnapshot;
import java.util.Objects;

/** One sink's status at one moment, with its connector key: what {@link StatusJson} renders. */
public record SinkView(String key, StatusSnapshot snapshot) {
    public SinkView {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(snapshot, "snapshot");
    }
}
