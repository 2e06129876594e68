package dev.iggysink.application.service;

import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.Sleeper;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.domain.retry.RetryPolicy;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Uploads sealed files on a bounded pool. A failed upload is retried per the retry policy, then again with the
 * capped backoff for as long as the sink runs: a file is never dropped because the store failed. Only a stop past
 * its deadline ends the loop, and then the file is reported as not durable (its records will be read again).
 */
final class Uploader implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Uploader.class.getName());

    private final ObjectStore store;
    private final RetryPolicy policy;
    private final Sleeper sleeper;
    private final InstantSource clock;
    private final SinkMetrics metrics;
    private final ExecutorService pool;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger failing = new AtomicInteger();
    private final AtomicReference<String> lastError = new AtomicReference<>();
    private final AtomicReference<Instant> degradedSince = new AtomicReference<>();
    private final AtomicLong objects = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private volatile boolean nonRetryableSeen;
    private volatile boolean giveUp;

    Uploader(ObjectStore store, RetryPolicy policy, Sleeper sleeper, InstantSource clock, SinkMetrics metrics,
             int concurrency) {
        this.store = store;
        this.policy = policy;
        this.sleeper = sleeper;
        this.clock = clock;
        this.metrics = metrics;
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, "upload-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    void submit(UploadJob job, Consumer<UploadResult> onDone) {
        inFlight.incrementAndGet();
        pool.execute(() -> {
            UploadResult result;
            try {
                result = upload(job);
            } catch (RuntimeException e) {
                // An adapter bug must not lose the file: report it not durable; the partition re-reads it.
                LOG.log(Level.ERROR, "upload of " + job.file().key() + " failed unexpectedly", e);
                result = new UploadResult(job, false, Duration.ZERO, 0, Optional.of(String.valueOf(e)));
            } finally {
                inFlight.decrementAndGet();
            }
            onDone.accept(result);
        });
    }

    private UploadResult upload(UploadJob job) {
        String key = job.file().key();
        byte[] content = job.content().get();
        metrics.sealed(job.file().partition(), job.file().reason(), content.length);
        Instant started = clock.instant();
        boolean countedFailing = false;
        int attempt = 0;
        try {
            while (true) {
                attempt++;
                try {
                    store.put(key, content, job.contentType());
                    Duration took = Duration.between(started, clock.instant());
                    objects.incrementAndGet();
                    bytes.addAndGet(content.length);
                    metrics.uploaded(job.file().partition(), content.length, took);
                    return new UploadResult(job, true, took, content.length, Optional.empty());
                } catch (StoreException e) {
                    if (!countedFailing) {
                        countedFailing = true;
                        if (failing.incrementAndGet() == 1) {
                            degradedSince.compareAndSet(null, clock.instant());
                            LOG.log(Level.WARNING, "object store degraded: " + e.getMessage());
                        }
                    }
                    if (!e.retryable()) nonRetryableSeen = true;
                    lastError.set(e.getMessage());
                    retries.incrementAndGet();
                    metrics.uploadRetried(e.httpStatus() == 0 ? "transport" : "http_" + e.httpStatus());
                    if (giveUp) {
                        return new UploadResult(job, false, Duration.between(started, clock.instant()),
                                content.length, Optional.of(e.getMessage()));
                    }
                    // Past the policy's attempts the retry number keeps growing, so the delay settles at the cap.
                    Duration delay = policy.backoff().delay(Math.min(attempt, 30), e.retryAfter(),
                            ThreadLocalRandom.current().nextDouble());
                    if (attempt == policy.attempts()) {
                        LOG.log(Level.WARNING, "upload of " + key + " failed " + attempt
                                + " times; still retrying with capped backoff: " + e.getMessage());
                    }
                    sleeper.sleep(delay);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new UploadResult(job, false, Duration.between(started, clock.instant()), content.length,
                    Optional.of("upload interrupted by stop"));
        } finally {
            if (countedFailing && failing.decrementAndGet() == 0) {
                degradedSince.set(null);
                nonRetryableSeen = false;
                LOG.log(Level.INFO, "object store recovered");
            }
        }
    }

    int inFlight() {
        return inFlight.get();
    }

    /** Since when uploads have been failing, empty when none is failing now. */
    Optional<Instant> degradedSince() {
        return Optional.ofNullable(degradedSince.get());
    }

    boolean nonRetryableFailure() {
        return failing.get() > 0 && nonRetryableSeen;
    }

    Optional<String> lastError() {
        return Optional.ofNullable(lastError.get());
    }

    long objectsUploaded() {
        return objects.get();
    }

    long bytesUploaded() {
        return bytes.get();
    }

    long retries() {
        return retries.get();
    }

    /** Stops retrying: jobs still failing end as not durable; sleeping ones are woken. */
    void abandon() {
        giveUp = true;
        pool.shutdownNow();
    }

    @Override
    public void close() {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(5, TimeUnit.SECONDS)) pool.shutdownNow();
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
