package dev.iggysink.application.port.out;

import dev.iggysink.application.settings.StreamSettings;

/** Builds the {@link RecordCodec} of one configured stream (its schema, the transforms, the output format). */
@FunctionalInterface
public interface CodecFactory {
    RecordCodec forStream(StreamSettings stream);

    /**
     * Whether the files of these codecs grow on the heap (the memory budget's worst case) or only their last few
     * hundred KiB do, the rest being written elsewhere as they grow; sizes the heap check at start.
     */
    default boolean openFilesOnHeap() {
        return true;
    }
}
