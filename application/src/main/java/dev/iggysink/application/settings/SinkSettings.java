package dev.iggysink.application.settings;

import java.util.List;
import java.util.Objects;

/**
 * Everything one sink connector needs, validated. Produced by the config adapter from a connector file; consumed
 * by the pipeline and by bootstrap when it builds the adapters. {@code toString} never shows a secret
 * ({@link Secret} redacts itself).
 */
public record SinkSettings(String key, String name, boolean enabled, long version, boolean verbose,
                           IggySettings iggy, List<StreamSettings> streams, StorageSettings storage,
                           OutputSettings output, RotationSettings rotation, RetrySettings retry,
                           DeliverySettings delivery, AdminSettings admin, List<TransformSettings> transforms) {
    public SinkSettings {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(iggy, "iggy");
        streams = List.copyOf(streams);
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(rotation, "rotation");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(delivery, "delivery");
        Objects.requireNonNull(admin, "admin");
        transforms = List.copyOf(transforms);
    }
}
