package dev.iggysink.adapters.iggy;

/**
 * A poll answer the decoder could not turn into records. {@link #malformed()}: the bytes do not follow the poll
 * layout, so the connection they came over is not trusted any more. Otherwise one message holds a value a record
 * cannot carry (an offset or timestamp above 2^63-1, an unknown header kind): the same bytes come back on every
 * retry, so the partition must stop rather than skip it.
 */
final class PollResponseException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean malformed;

    private PollResponseException(String message, boolean malformed) {
        super(message);
        this.malformed = malformed;
    }

    static PollResponseException malformed(String message) {
        return new PollResponseException(message, true);
    }

    static PollResponseException unreadable(String message) {
        return new PollResponseException(message, false);
    }

    boolean malformed() {
        return malformed;
    }
}
