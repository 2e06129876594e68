package dev.iggysink.application.port.out;

import java.time.Duration;
import java.util.Optional;

/**
 * The one failure type of {@link ObjectStore}, classified at the adapter boundary. Retryable: HTTP 408, 429, 5xx,
 * connection refused/reset, timeouts. Not retryable: 400, 403, a missing bucket, and other 4xx. The message names
 * the operation and the key, never a credential.
 */
public class StoreException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean retryable;
    private final int httpStatus;
    private final transient Duration retryAfter;

    public StoreException(String message, boolean retryable, int httpStatus, Duration retryAfter, Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
        this.httpStatus = httpStatus;
        this.retryAfter = retryAfter;
    }

    public boolean retryable() {
        return retryable;
    }

    /** The HTTP status the store answered, or 0 when the request got no answer (transport failure). */
    public int httpStatus() {
        return httpStatus;
    }

    /** The store's {@code Retry-After}, when it sent one. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
