package dev.iggysink.application.service;

import dev.iggysink.domain.buffer.SealedFile;
import java.util.function.Supplier;

/**
 * A sealed file on its way to the store. {@code content} builds the file's bytes (framing, compression) and is called
 * once, on the upload thread, so that compressing a file never stops the consumer loop. {@code reservedBytes} is what
 * the file holds of the memory budget until the upload ends.
 */
record UploadJob(SealedFile file, Supplier<byte[]> content, String contentType, long reservedBytes) {
}
