package dev.iggysink.domain.rotation;

import java.time.Instant;

/**
 * What the rotation policy reads of a file being filled. Declared here, implemented by the buffer's open file, so
 * that the buffer depends on rotation (it records a {@link RotationReason}) and never the other way round.
 */
public interface FileProgress {
    boolean isEmpty();

    long recordCount();

    /** Encoded record bytes so far (without separators or framing). */
    long recordBytes();

    /** Timestamp of the first record; only asked when the file is not empty. */
    long firstTimestampMicros();

    /** Wall-clock time the file was opened, the start of a scheduled rotation period. */
    Instant openedAt();
}
