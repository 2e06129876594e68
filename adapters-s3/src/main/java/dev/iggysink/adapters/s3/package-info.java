/**
 * The object-store side of the sink: {@link dev.iggysink.adapters.s3.ObjectStores} picks the adapter named by
 * {@code storage_client}. The adapters live in {@code aws} (AWS SDK v2) and {@code minio} (MinIO Java client); what
 * they share (part plan, failure classification, header values) lives in {@code support}.
 *
 * <p>Nothing outside this module imports an SDK type: the rest of the sink sees only
 * {@link dev.iggysink.application.port.out.ObjectStore} and
 * {@link dev.iggysink.application.port.out.StoreException}.
 */
package dev.iggysink.adapters.s3;
