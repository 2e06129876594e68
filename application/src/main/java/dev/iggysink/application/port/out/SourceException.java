package dev.iggysink.application.port.out;

/**
 * The one failure type of {@link MessageSource}. {@code retryable} says whether the same call may succeed later
 * (timeouts, connection loss, a member that must re-join); non-retryable failures are configuration problems (wrong
 * credentials, no permission) that stop the sink with this message. A missing stream or topic is the subclass
 * {@link TopicMissingException}: it halts that topic only.
 */
public class SourceException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean retryable;

    public SourceException(String message, boolean retryable, Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
    }

    public SourceException(String message, boolean retryable) {
        this(message, retryable, null);
    }

    public boolean retryable() {
        return retryable;
    }

    /**
     * Whether the source ran out of memory taking an answer in (Netty's direct memory, or the heap): the same call
     * asking for less may succeed.
     */
    public boolean outOfMemory() {
        Throwable t = getCause();
        for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
            if (t instanceof OutOfMemoryError) return true;
        }
        return false;
    }
}
