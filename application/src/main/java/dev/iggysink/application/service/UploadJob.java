package dev.iggysink.application.service;

import dev.iggysink.domain.buffer.SealedFile;

/** A sealed file on its way to the store. {@code content} is owned by the job (not copied). */
record UploadJob(SealedFile file, byte[] content, String contentType, long reservedBytes) {
}
