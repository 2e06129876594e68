package dev.iggysink.application.port.out;

import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.RotationReason;
import java.time.Duration;

/**
 * What the pipeline reports as it goes, for a metrics registry. Called from the consumer loops and the upload pool
 * concurrently: implementations are thread-safe and cheap. Every method has a no-op default.
 */
public interface SinkMetrics {
    SinkMetrics NONE = new SinkMetrics() { };

    default void consumed(PartitionRef partition, int records, long payloadBytes) { }

    default void encoded(PartitionRef partition, long recordBytes) { }

    default void sealed(PartitionRef partition, RotationReason reason, long fileBytes) { }

    default void uploaded(PartitionRef partition, long bytes, Duration took) { }

    /** One failed upload attempt that will be retried; {@code reason} is e.g. "http_503", "transport". */
    default void uploadRetried(String reason) { }

    default void deadLettered(PartitionRef partition) { }

    default void committed(PartitionRef partition, long offset) { }

    /**
     * The topic was found missing (deleted while the sink runs: its consumer halts and looks for it again) or,
     * with {@code missing} false, found again.
     */
    default void topicMissing(String stream, String topic, boolean missing) { }
}
