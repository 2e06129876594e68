package dev.iggysink.application.port.out;

import dev.iggysink.application.file.FileBytes;

/**
 * Builds the bytes of one output file. Not thread-safe: one open file, one encoder.
 */
public interface FileEncoder {
    /**
     * Encodes one record into the file.
     *
     * @return the bytes this record counts for size rotation: the formatted record without separators (newline,
     *         comma, brackets), as the Rust sink counts them
     * @throws BadRecordException the record cannot be written in this format; nothing was appended
     */
    long append(DecodedRecord record) throws BadRecordException;

    /** Records appended so far. */
    int count();

    /**
     * The heap this file holds now, buffers included (an encoder's buffer grows ahead of its data), so the memory
     * budget counts what the heap really carries; 0 when the encoder does not know, and then the record bytes count.
     */
    default long heapBytes() {
        return 0;
    }

    /**
     * Seals the file: frames it (brackets, footer) and compresses it. The encoder is unusable afterwards and lets go
     * of its buffers: the returned bytes are the only copy of the file.
     */
    FileBytes finish();
}
