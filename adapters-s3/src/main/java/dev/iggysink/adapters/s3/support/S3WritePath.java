package dev.iggysink.adapters.s3.support;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;

/**
 * The write path both S3 adapters share, written once: one PUT up to {@code multipart_threshold}, else a multipart
 * upload (parts on the store's bounded pool, aborted on any failure so no part is left behind), the startup probe
 * (an empty object at {@link AdapterSupport#PROBE_KEY}, deleted best effort), the conditional create and the
 * conditional replace. Parts are
 * slices of the file, never copies. User metadata is checked ({@link AdapterSupport#checkedMetadata}) before any
 * request. A subclass sends the single requests with its SDK and translates every failure into a
 * {@link StoreException} named by the operation.
 *
 * @param <P> what the SDK needs of an uploaded part to complete the upload (part number and ETag)
 */
public abstract class S3WritePath<P> implements ObjectStore {
    /** The concrete adapter's logger, so log lines keep naming the adapter. */
    private final Logger log = LoggerFactory.getLogger(getClass());
    protected final StorageSettings settings;
    protected final String bucket;
    /** Multipart parts of every upload of this store run here; the subclass shuts it down in {@code close}. */
    protected final ExecutorService parts;

    protected S3WritePath(StorageSettings settings, String poolName) {
        this.settings = settings;
        this.bucket = settings.bucket();
        this.parts = AdapterSupport.partPool(settings.uploadConcurrency(), poolName);
    }

    /**
     * One PutObject of the whole content, with the configured object options and {@code metadata} (checked, names
     * without the {@code x-amz-meta-} prefix).
     */
    protected abstract void putObject(String operation, String key, FileBytes content, String contentType,
                                      Map<String, String> metadata) throws StoreException;

    /**
     * One PutObject with {@code If-None-Match: *}, the object options and {@code metadata}; failures as operation
     * {@code "PUT If-None-Match"}, the store's refusal (412, 409) among them.
     */
    protected abstract void putObjectIfAbsent(String key, FileBytes content, String contentType,
                                              Map<String, String> metadata) throws StoreException;

    /**
     * One PutObject with {@code If-Match: <etag>} and the object options, without user metadata; failures as
     * operation {@code "PUT If-Match"}, the store's refusal (412, 409, 404) among them.
     */
    protected abstract void putObjectIfMatch(String key, FileBytes content, String contentType, String etag)
            throws StoreException;

    protected abstract void deleteObject(String key) throws StoreException;

    /**
     * One DeleteObjects request in quiet mode for {@code keys} (1 to {@link #MAX_DELETE_BATCH}); returns the keys
     * the store did not delete, each with its error code and message ({@code key, code, message}).
     */
    protected abstract List<String[]> deleteObjects(List<String> keys) throws StoreException;

    /** Starts a multipart upload with the configured object options and {@code metadata}; returns its upload id. */
    protected abstract String createMultipartUpload(String key, String contentType, Map<String, String> metadata)
            throws StoreException;

    /**
     * Uploads one part; {@code content} is that part's slice of the file (a view, not a copy). Failures as operation
     * {@code "UPLOAD PART <number>"}.
     */
    protected abstract P uploadPart(String key, String uploadId, PartPlan.Part part, FileBytes content,
                                    String contentType) throws StoreException;

    /**
     * Completes a multipart upload; with {@code ifNoneMatch} only if no object has the key ({@code If-None-Match: *}
     * on the completion: the store answers 412 when one does, and the parts are aborted).
     */
    protected abstract void completeMultipartUpload(String key, String uploadId, List<P> uploaded,
                                                    boolean ifNoneMatch) throws StoreException;

    protected abstract void abortMultipartUpload(String key, String uploadId) throws StoreException;

    @Override
    public final void put(String key, FileBytes content, String contentType, Map<String, String> metadata)
            throws StoreException {
        Map<String, String> checked = AdapterSupport.checkedMetadata("PUT", bucket, key, metadata);
        if (content.length() <= settings.multipartThreshold()) {
            putObject("PUT", key, content, contentType, checked);
        } else {
            putMultipart(key, content, contentType, checked, false);
        }
    }

    @Override
    public final boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException {
        Map<String, String> checked = AdapterSupport.checkedMetadata("PUT If-None-Match", bucket, key, metadata);
        return refusedIfTaken(() -> putObjectIfAbsent(key, FileBytes.of(content), "application/octet-stream",
                checked));
    }

    /**
     * A file written only if no object has its key: one PUT with {@code If-None-Match: *} up to
     * {@code multipart_threshold}, else a multipart upload whose completion carries the condition.
     */
    @Override
    public final boolean create(String key, FileBytes content, String contentType, Map<String, String> metadata)
            throws StoreException {
        Map<String, String> checked = AdapterSupport.checkedMetadata("PUT If-None-Match", bucket, key, metadata);
        return refusedIfTaken(() -> {
            if (content.length() <= settings.multipartThreshold()) {
                putObjectIfAbsent(key, content, contentType, checked);
            } else {
                putMultipart(key, content, contentType, checked, true);
            }
        });
    }

    /** One PUT with {@code If-Match}, whatever the size: a marker, far below any part size. */
    @Override
    public final boolean replace(String key, byte[] content, String contentType, String etag)
            throws StoreException {
        if (etag == null || etag.isBlank()) {
            // A store (or a proxy before it) that answers a GET without an ETag leaves no version to name.
            throw new StoreException("PUT If-Match " + StoreFailures.location(bucket, key) + ": the store gave no ETag"
                    + " with the version read, so it cannot be replaced conditionally", false, 0, null, null);
        }
        try {
            putObjectIfMatch(key, FileBytes.of(content), contentType, etag);
            return true;
        } catch (StoreException e) {
            // 412 PreconditionFailed: another version is there. 409: another conditional write of the key won.
            // 404 NoSuchKey: the object is gone (a missing bucket is a failure, said as such).
            if (e.httpStatus() == 412 || e.httpStatus() == 409) return false;
            if (e.httpStatus() == 404 && !String.valueOf(e.getMessage()).contains("NoSuchBucket")) return false;
            throw e;
        }
    }

    private interface ConditionalWrite {
        void run() throws StoreException;
    }

    private static boolean refusedIfTaken(ConditionalWrite write) throws StoreException {
        try {
            write.run();
            return true;
        } catch (StoreException e) {
            // 412 PreconditionFailed: the key exists. 409 ConditionalRequestConflict: another conditional write of
            // the key was in flight and won. Either way the key is someone else's.
            if (e.httpStatus() == 412 || e.httpStatus() == 409) return false;
            throw e;
        }
    }

    /** DeleteObject, which S3 answers with 204 for a key that does not exist too. */
    @Override
    public final void delete(String key) throws StoreException {
        deleteObject(key);
    }

    /** DeleteObjects: one request for up to 1,000 keys; keys that do not exist count as deleted. */
    @Override
    public final void delete(List<String> keys) throws StoreException {
        if (keys.size() > MAX_DELETE_BATCH) {
            throw new IllegalArgumentException(keys.size() + " keys in one delete; at most " + MAX_DELETE_BATCH);
        }
        if (keys.isEmpty()) return;
        List<String[]> failed = deleteObjects(keys);
        if (failed.isEmpty()) return;
        String[] first = failed.get(0);
        boolean denied = "AccessDenied".equals(first[1]);
        boolean retryable = failed.stream().allMatch(f -> RETRYABLE_DELETE_ERRORS.contains(f[1]));
        throw new StoreException("DELETE OBJECTS " + StoreFailures.location(bucket, first[0]) + ": " + failed.size()
                + " of " + keys.size() + " keys not deleted, the first " + first[0] + " (" + first[1]
                + (first[2] == null || first[2].isEmpty() ? "" : ": " + first[2]) + ")", retryable, denied ? 403 : 0,
                null, null);
    }

    /** Error codes of one key in a DeleteObjects answer that another attempt may not meet. */
    private static final java.util.Set<String> RETRYABLE_DELETE_ERRORS = java.util.Set.of("InternalError",
            "SlowDown", "ServiceUnavailable", "OperationAborted");

    @Override
    public final void probe() throws StoreException {
        String key = AdapterSupport.PROBE_KEY;
        putObject("PUT (startup probe)", key, FileBytes.EMPTY, "application/octet-stream", Map.of());
        try {
            deleteObject(key);
        } catch (StoreException e) {
            // Cleanup is best effort; write access is what the sink needs.
            log.warn("Startup probe: could not delete {} ({}); the sink starts anyway",
                    StoreFailures.location(bucket, key), e.getMessage());
        }
    }

    private void putMultipart(String key, FileBytes content, String contentType, Map<String, String> metadata,
                              boolean ifNoneMatch) throws StoreException {
        // A file is one encoder buffer, which stops at 2 GiB.
        int length = Math.toIntExact(content.length());
        String uploadId = createMultipartUpload(key, contentType, metadata);
        try {
            List<P> uploaded = ParallelParts.run(parts, PartPlan.of(length, settings.multipartPartSize()),
                    part -> uploadPart(key, uploadId, part, content.slice(part.offset(), part.length()),
                            contentType));
            completeMultipartUpload(key, uploadId, uploaded, ifNoneMatch);
        } catch (StoreException e) {
            abort(key, uploadId, e);
            throw e;
        }
    }

    /** Removes the parts of a failed upload, so nothing is billed or left for a lifecycle rule to find. */
    private void abort(String key, String uploadId, StoreException failure) {
        try {
            abortMultipartUpload(key, uploadId);
        } catch (StoreException e) {
            log.warn("Could not abort multipart upload {} of {}: {}", uploadId, StoreFailures.location(bucket, key),
                    e.getMessage());
            failure.addSuppressed(e);
        }
    }
}
