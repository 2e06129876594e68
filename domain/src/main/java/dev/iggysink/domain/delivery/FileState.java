package dev.iggysink.domain.delivery;

/** Where a file is in the delivery protocol. Only DURABLE lets the commit point pass a file. */
public enum FileState {
    /** Still taking records. */
    OPEN,
    /** Sealed, waiting for an upload slot. */
    PENDING,
    /** An upload is in flight. */
    UPLOADING,
    /** The object store acknowledged the object; its offsets may be committed. */
    DURABLE,
    /** The last upload attempt failed; it will be retried (a file is never dropped). */
    FAILED
}
