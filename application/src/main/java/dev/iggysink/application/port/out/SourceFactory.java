package dev.iggysink.application.port.out;

import dev.iggysink.application.settings.StreamSettings;

/** Builds the {@link MessageSource} of one topic of a configured stream (one consumer-group member per topic). */
@FunctionalInterface
public interface SourceFactory {
    MessageSource open(StreamSettings stream, String topic);
}
