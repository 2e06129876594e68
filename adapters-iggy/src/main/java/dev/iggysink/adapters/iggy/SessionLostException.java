package dev.iggysink.adapters.iggy;

import dev.iggysink.application.port.out.SourceException;

/**
 * Internal signal: the connection can no longer be trusted (no answer in time, transport failure, membership
 * gone). The source closes it and builds a new session; callers outside see a plain retryable
 * {@link SourceException}.
 */
final class SessionLostException extends SourceException {
    private static final long serialVersionUID = 1L;
    SessionLostException(String message, Throwable cause) {
        super(message, true, cause);
    }
}
