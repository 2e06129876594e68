package dev.iggysink.application.settings;

/**
 * What happens to a late record: one whose folder's window its partition had already passed, so the folder's
 * completeness marker may already be written (ADR 0016). Only with completeness markers.
 */
public enum LateRecords {
    /** Written to their folder as always; the folder's marker is rewritten with them as version + 1 (the default). */
    REWRITE_MARKER,
    /** Written under the topic's {@code late/} folder, beside the windows; the old folder's marker stays as it is. */
    LATE_PATH
}
