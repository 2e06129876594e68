package dev.iggysink.domain.rotation;

/** Why a file was sealed; recorded on the sealed file for logs, metrics and the status page. */
public enum RotationReason {
    /** The file's record bytes reached the size limit. */
    SIZE,
    /** The file's record count reached the limit. */
    COUNT,
    /** The next record's timestamp is a full span after the file's first record (record time). */
    RECORD_TIME,
    /** A wall-clock boundary passed since the file was opened. */
    SCHEDULE,
    /** The next record renders to another directory (path template changed, e.g. a new hour). */
    PATH_CHANGE,
    /** Too many files were open for the partition; the oldest was sealed to make room. */
    OPEN_FILE_LIMIT,
    /** An explicit flush requested by an operator. */
    FLUSH,
    /** The memory budget ran out with nothing uploading: the largest open file was sealed early. */
    MEMORY_PRESSURE,
    /** A bad record was written alone to a dead-letter object (errors_tolerance = "all"). */
    DEAD_LETTER,
    /** Graceful stop. */
    SHUTDOWN,
    /**
     * Cut where the claim of another member says the file ends: that member (the partition's previous owner) cut the
     * same file first and may still upload it, so this one writes the same records under the same key.
     */
    CLAIM
}
