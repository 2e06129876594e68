package dev.iggysink.domain.message;

import java.util.Objects;

/** One partition of one topic of one stream; partition ids are 0-based as in Iggy 0.8. */
public record PartitionRef(String stream, String topic, int partitionId) {
    public PartitionRef {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(topic, "topic");
        if (stream.isBlank()) throw new IllegalArgumentException("stream must not be blank");
        if (topic.isBlank()) throw new IllegalArgumentException("topic must not be blank");
        if (partitionId < 0) throw new IllegalArgumentException("partition id must be >= 0, was " + partitionId);
    }

    @Override
    public String toString() {
        return stream + "/" + topic + "/" + partitionId;
    }
}
