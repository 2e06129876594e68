package dev.iggysink.application.port.out;

import dev.iggysink.application.file.FileBytes;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
     * @param metadata    user metadata stored with the object ({@code x-amz-meta-<name>} on S3): names are lower-case
     *                    ASCII letters, digits and {@code -}, values printable ASCII; at most 2 KiB in all
     */
    void put(String key, FileBytes content, String contentType, Map<String, String> metadata) throws StoreException;

    /** {@link #put(String, FileBytes, String, Map)} without user metadata. */
    default void put(String key, FileBytes content, String contentType) throws StoreException {
        put(key, content, contentType, Map.of());
    }

    /**
     * The user metadata stored with {@code key} (names in lower case, as S3 returns them), or empty when no object
     * has that key. One HEAD request on S3.
     */
    Optional<Map<String, String>> metadata(String key) throws StoreException;

    /**
     * Creates {@code key} only if no object has it: a conditional write ({@code If-None-Match: *} on S3, an exclusive
     * create in a directory). Returns false, writing nothing, when the key exists (S3 answers 412, or 409 when two
     * such writes race). A store that ignores the condition overwrites and returns true: the caller finds that out
     * once at start by creating the same key twice.
     */
    boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException;

    /**
     * Writes a file at {@code key} only if no object has it, as {@link #create(String, byte[], Map)} does for a small
     * body: the data PUT itself carries {@code If-None-Match: *} (and the multipart upload's completion, for a large
     * file). Returns false, writing nothing, when the key exists. A store that cannot write files conditionally
     * refuses (not retryable), naming why.
     */
    default boolean create(String key, FileBytes content, String contentType, Map<String, String> metadata)
            throws StoreException {
        throw new StoreException("this object store cannot write a file conditionally (" + key + ")", false, 0, null,
                null);
    }

    /** An object's bytes and the entity tag of that version, which {@link #replace} names. */
    record Versioned(byte[] content, String etag) {
    }

    /** The whole object with its ETag, from one GET on S3; a missing key fails as {@link #get(String)} does. */
    default Versioned getVersioned(String key) throws StoreException {
        throw new StoreException("this object store cannot read an object's version (" + key + ")", false, 0, null,
                null);
    }

    /**
     * Replaces {@code key} only if the object there is still the version {@code etag} names, as
     * {@link #getVersioned} gave it: a compare-and-swap ({@code If-Match} on S3), one PUT whatever the size, without
     * user metadata. Returns false, writing nothing, when it is not: another writer replaced it meanwhile (S3 answers
     * 412, or 409 when conditional writes race) or removed it (404). A store that ignores the condition overwrites
     * and returns true.
     */
    default boolean replace(String key, byte[] content, String contentType, String etag) throws StoreException {
        throw new StoreException("this object store cannot replace an object conditionally (" + key + ")", false, 0,
                null, null);
    }

    /** Deletes {@code key}; a key that does not exist is not an error. */
    void delete(String key) throws StoreException;

    /** The most keys one {@link #delete(List)} takes: S3's DeleteObjects takes up to 1,000. */
    int MAX_DELETE_BATCH = 1000;

    /**
     * Deletes {@code keys} (at most {@link #MAX_DELETE_BATCH}), in one request where the store has one (S3
     * DeleteObjects); keys that do not exist are not an error. A key the store would not delete fails the call with
     * an exception naming it, after the others were deleted. This default deletes them one by one.
     */
    default void delete(List<String> keys) throws StoreException {
        if (keys.size() > MAX_DELETE_BATCH) {
            throw new IllegalArgumentException(keys.size() + " keys in one delete; at most " + MAX_DELETE_BATCH);
        }
        StoreException first = null;
        for (String key : keys) {
            try {
                delete(key);
            } catch (StoreException e) {
                if (first == null) first = e;
            }
        }
        if (first != null) throw first;
    }

    /**
     * The startup check: writes an empty object at the bucket-root key {@code .iggy-sink-probe} (the prefix is not
     * applied) and deletes it. A failed write is an error; a failed delete is only logged.
     */
    void probe() throws StoreException;

    /** Keys under {@code prefix} (all keys when empty), in lexicographic order. */
    List<StoredObject> list(String prefix) throws StoreException;

    /**
     * Keys under {@code prefix} that sort after {@code startAfter} and not after {@code until} (either empty: no bound),
     * in lexicographic order. On S3, {@code start-after}, and no page past {@code until} is asked for: the store reads
     * only that range. This default filters {@link #list(String)}, which reads them all.
     */
    default List<StoredObject> list(String prefix, String startAfter, String until) throws StoreException {
        List<StoredObject> range = new java.util.ArrayList<>();
        for (StoredObject o : list(prefix)) {
            if (o.key().compareTo(startAfter) <= 0) continue;
            if (!until.isEmpty() && o.key().compareTo(until) > 0) break;
            range.add(o);
        }
        return range;
    }

    /** The whole object. */
    byte[] get(String key) throws StoreException;

    /**
     * Up to {@code length} bytes of {@code key} from byte {@code from} on: fewer at the object's end, none from its
     * end on. One ranged GET on S3 ({@code Range: bytes=<from>-<from+length-1>}), so the start or the end of a large
     * object is read without fetching all of it.
     */
    byte[] get(String key, long from, int length) throws StoreException;

    @Override
    void close();
}
