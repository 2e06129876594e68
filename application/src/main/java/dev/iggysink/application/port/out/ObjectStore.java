package dev.iggysink.application.port.out;

import java.util.List;

/**
 * Where sealed files land: one bucket of S3 or an S3-compatible store. Implementations are thread-safe (the upload
 * pool calls {@link #put} concurrently) and make exactly one attempt per call: the SDK's own retries are off or
 * counted, so the caller's retry policy is the only one.
 */
public interface ObjectStore extends AutoCloseable {

    /**
     * Writes {@code content} under {@code key}, replacing an object of the same key. Idempotent: writing the same
     * bytes again leaves the same object. Above the multipart threshold the object is uploaded in parts; a failed
     * multipart upload is aborted so no parts remain.
     *
     * The content is sent as it is, never gathered into one array first; an implementation may read it more than
     * once (to hash it, to send it again).
     *
     * @param contentType the MIME type stored with the object
     */
    void put(String key, FileBytes content, String contentType) throws StoreException;

    /**
     * The startup check: writes an empty object at the bucket-root key {@code .iggy-sink-probe} (the prefix is not
     * applied) and deletes it. A failed write is an error; a failed delete is only logged.
     */
    void probe() throws StoreException;

    /** Keys under {@code prefix} (all keys when empty), in lexicographic order. */
    List<StoredObject> list(String prefix) throws StoreException;

    /** The whole object. */
    byte[] get(String key) throws StoreException;

    @Override
    void close();
}
