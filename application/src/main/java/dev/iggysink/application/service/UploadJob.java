package dev.iggysink.application.service;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.domain.buffer.SealedFile;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A sealed file on its way to the store. {@code content} builds the file's bytes (framing, compression) and is called
 * once, on the upload thread, so that compressing a file never stops the consumer loop. {@code reservedBytes} is what
 * the file holds of the memory budget until the upload ends. {@code metadata} is stored with the object
 * ({@link ObjectStamps}).
 *
 * <p>Order between the files of one partition: {@code ready} completes when the upload may start: true once the
 * partition's previous file of this generation settled its cut and every dead letter inside this file's range is
 * durable (a file must never be in the store while a record it leaves out is in no object); false when one of them
 * did not make it, and this file is then not uploaded either. {@code settled} is this file's own answer to the next
 * one: true once its cut is decided (its claim held, or the re-check found no other copy, or it needs neither), false
 * when it ends without that. For a dead letter, {@code settled} means durable.
 *
 * <p>{@code check}: {@link Check#CLAIM} when the file's cut must be claimed first ({@link Check#CLAIM_FIRST} for the
 * partition's first file since it was assigned), {@link Check#OTHER_COPY} for that first file when the sink claims
 * nothing (a last look for a late copy of the previous owner), {@link Check#NONE} otherwise. When the store turns
 * out not to honour conditional writes, {@code CLAIM_FIRST} falls back to {@code OTHER_COPY} and {@code CLAIM} to
 * {@code NONE}. {@code claims}: the claims of the file's sink ({@link Claims#space}), for {@code CLAIM} and
 * {@code CLAIM_FIRST}; null otherwise. {@code runEnd}: past the file's last offset when its claim is a run claim
 * ({@link Claims#RUN_END}), -1 otherwise; {@code runRule}: the rule of a run claim of size cuts, null otherwise.
 */
record UploadJob(SealedFile file, Supplier<FileBytes> content, String contentType, long reservedBytes, Check check,
                 Map<String, String> metadata, CompletableFuture<Boolean> ready,
                 CompletableFuture<Boolean> settled, Claims claims, long runEnd, String runRule) {

    UploadJob(SealedFile file, Supplier<FileBytes> content, String contentType, long reservedBytes, Check check,
              Map<String, String> metadata, CompletableFuture<Boolean> ready, CompletableFuture<Boolean> settled,
              Claims claims, long runEnd) {
        this(file, content, contentType, reservedBytes, check, metadata, ready, settled, claims, runEnd, null);
    }

    /**
     * {@code CREATE}: the key names only the file's first offset, and the data PUT itself is conditional: it is the
     * file's claim (docs/adr/0019-one-conditional-write-per-file.md).
     */
    enum Check { NONE, OTHER_COPY, CLAIM, CLAIM_FIRST, CREATE }

    UploadJob(SealedFile file, Supplier<FileBytes> content, String contentType, long reservedBytes) {
        this(file, content, contentType, reservedBytes, false);
    }

    UploadJob(SealedFile file, Supplier<FileBytes> content, String contentType, long reservedBytes,
              boolean firstAfterAssignment) {
        this(file, content, contentType, reservedBytes, firstAfterAssignment ? Check.OTHER_COPY : Check.NONE,
                Map.of(), CompletableFuture.completedFuture(true), new CompletableFuture<>(), null, -1);
    }

    /** The start every key of a file of this partition beginning at the same offset shares. */
    String keyStart() {
        String key = file.key();
        return key.substring(0, key.lastIndexOf('-') + 1);
    }
}
