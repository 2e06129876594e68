package dev.iggysink.application.settings;

import java.util.List;
import java.util.Objects;

/**
 * What the pipeline of one sink connector needs, validated: which streams and topics, how files are built, rotated,
 * retried and delivered. How to reach Iggy, the store and the admin server is not here: those options belong to their
 * adapters (the config adapter reads them beside this record and bootstrap hands them over), so the pipeline runs
 * unchanged on any source and store behind its ports.
 */
public record SinkSettings(String key, String name, boolean enabled, long version, boolean verbose,
                           List<StreamSettings> streams, OutputSettings output, RotationSettings rotation,
                           RetrySettings retry, DeliverySettings delivery, List<TransformSettings> transforms) {
    public SinkSettings {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(name, "name");
        streams = List.copyOf(streams);
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(rotation, "rotation");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(delivery, "delivery");
        transforms = List.copyOf(transforms);
    }
}
