package dev.iggysink.application.port.out;

/**
 * The stream or the topic of the {@link MessageSource} does not exist: never created, or deleted while the sink
 * runs. Not retryable as a call, but not the end of the sink either: its consumer halts that topic alone and looks
 * for it again from time to time, since an operator may create it again.
 */
public final class TopicMissingException extends SourceException {
    private static final long serialVersionUID = 1L;

    public TopicMissingException(String message, Throwable cause) {
        super(message, false, cause);
    }
}
