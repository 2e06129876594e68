package dev.iggysink.adapters.iggy;

/**
 * The Iggy client on the class path is not shaped as the sink's Netty handlers expect (a field or pipeline handler
 * is missing or of another type): another client version than the one the sink is built for. No retry fixes it.
 */
final class IggyClientShapeException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    IggyClientShapeException(String message) {
        super(message);
    }

    IggyClientShapeException(String message, Throwable cause) {
        super(message, cause);
    }
}
