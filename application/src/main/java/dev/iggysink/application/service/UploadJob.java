package dev.iggysink.application.service;

import dev.iggysink.application.port.out.FileBytes;
import dev.iggysink.domain.buffer.SealedFile;
import java.util.function.Supplier;

/**
 * A sealed file on its way to the store. {@code content} builds the file's bytes (framing, compression) and is called
 * once, on the upload thread, so that compressing a file never stops the consumer loop. {@code reservedBytes} is what
 * the file holds of the memory budget until the upload ends. {@code firstAfterAssignment}: the partition's first file
 * since it was assigned to this member, whose start another process may still be writing (see {@link Uploader}).
 */
record UploadJob(SealedFile file, Supplier<FileBytes> content, String contentType, long reservedBytes,
                 boolean firstAfterAssignment) {

    UploadJob(SealedFile file, Supplier<FileBytes> content, String contentType, long reservedBytes) {
        this(file, content, contentType, reservedBytes, false);
    }

    /** The start every key of a file of this partition beginning at the same offset shares. */
    String keyStart() {
        String key = file.key();
        return key.substring(0, key.lastIndexOf('-') + 1);
    }
}
