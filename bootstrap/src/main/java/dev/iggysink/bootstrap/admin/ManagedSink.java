package dev.iggysink.bootstrap.admin;

import dev.iggysink.application.port.in.SinkControl;
import java.util.Objects;

/** One running sink as the admin endpoints see it: its connector key (used in reasons and metric tags). */
public record ManagedSink(String key, SinkControl service) {
    public ManagedSink {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(service, "service");
    }
}
