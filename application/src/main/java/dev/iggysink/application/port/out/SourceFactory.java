package dev.iggysink.application.port.out;

/**
 * Builds the {@link MessageSource} of one topic of a stream: one member of {@code consumerGroup}, whose stored offsets
 * are the sink's commit points. How the source is reached is the adapter's own business.
 */
@FunctionalInterface
public interface SourceFactory {
    MessageSource open(String stream, String topic, String consumerGroup);
}
