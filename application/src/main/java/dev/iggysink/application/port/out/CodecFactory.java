package dev.iggysink.application.port.out;

import dev.iggysink.application.settings.StreamSettings;

/** Builds the {@link RecordCodec} of one configured stream (its schema, the transforms, the output format). */
@FunctionalInterface
public interface CodecFactory {
    RecordCodec forStream(StreamSettings stream);
}
