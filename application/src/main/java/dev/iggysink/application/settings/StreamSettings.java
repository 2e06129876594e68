package dev.iggysink.application.settings;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** One {@code [[streams]]} entry. {@code avroSchemaJson} is the resolved schema text (from _json or _path). */
public record StreamSettings(String stream, List<String> topics, PayloadSchema schema, int batchLength,
                             Duration pollInterval, String consumerGroup, Optional<String> avroSchemaJson) {
    public StreamSettings {
        Objects.requireNonNull(stream, "stream");
        topics = List.copyOf(topics);
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(pollInterval, "pollInterval");
        Objects.requireNonNull(consumerGroup, "consumerGroup");
        Objects.requireNonNull(avroSchemaJson, "avroSchemaJson");
        if (batchLength <= 0) throw new IllegalArgumentException("batchLength must be > 0");
    }
}
