package dev.iggysink.domain.delivery;

/** Where a file is in the delivery protocol. Only DURABLE lets the commit point pass a file. */
public enum FileState {
    /** Still taking records. */
    OPEN,
    /** Sealed and handed to the uploader; its upload has not finished yet. */
    PENDING,
    /** The object store acknowledged the object; its offsets may be committed. */
    DURABLE,
    /** The last upload attempt failed; the uploader retries it (a file is never dropped). */
    FAILED
}
