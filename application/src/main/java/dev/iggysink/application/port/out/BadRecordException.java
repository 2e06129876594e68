package dev.iggysink.application.port.out;

/** A record whose payload does not decode for its stream's schema (or does not fit the output schema). */
public class BadRecordException extends Exception {
    private static final long serialVersionUID = 1L;
    public BadRecordException(String message, Throwable cause) {
        super(message, cause);
    }

    public BadRecordException(String message) {
        super(message);
    }
}
