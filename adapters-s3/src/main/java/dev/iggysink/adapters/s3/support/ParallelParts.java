package dev.iggysink.adapters.s3.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.iggysink.application.port.out.StoreException;

/**
 * Uploads the parts of one object on a bounded pool. After the first failure no further part starts, and the call
 * returns only when every started part has finished: the caller's abort must come after the last part request, or
 * S3 may keep a part that landed after the abort (the "abort again" case in the S3 docs).
 */
public final class ParallelParts {
    private ParallelParts() {
    }

    /** One part's upload; returns what the completion needs (an ETag). */
    @FunctionalInterface
    public interface PartUpload<R> {
        R upload(PartPlan.Part part) throws StoreException;
    }

    /** Results in part order, or the first failure (by part number) once every started part has ended. */
    public static <R> List<R> run(ExecutorService pool, List<PartPlan.Part> parts, PartUpload<R> upload)
            throws StoreException {
        AtomicBoolean failed = new AtomicBoolean();
        List<Future<R>> futures = new ArrayList<>(parts.size());
        for (PartPlan.Part part : parts) {
            futures.add(pool.submit(() -> {
                if (failed.get()) {
                    return null; // skipped: an earlier part already failed
                }
                try {
                    return upload.upload(part);
                } catch (StoreException | RuntimeException e) {
                    failed.set(true);
                    throw e;
                }
            }));
        }
        List<R> results = new ArrayList<>(parts.size());
        StoreException failure = null;
        boolean interrupted = false;
        for (Future<R> future : futures) {
            while (true) {
                try {
                    results.add(future.get());
                    break;
                } catch (InterruptedException e) {
                    // Keep waiting: returning now would let the abort race the parts still in flight.
                    interrupted = true;
                    failed.set(true);
                } catch (ExecutionException e) {
                    if (failure == null) {
                        failure = e.getCause() instanceof StoreException se ? se
                                : new StoreException("part upload failed: " + e.getCause(), false, 0, null,
                                e.getCause());
                    }
                    results.add(null);
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
            if (failure == null) {
                failure = new StoreException("multipart upload interrupted", false, 0, null, null);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return results;
    }
}
