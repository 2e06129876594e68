package dev.iggysink.adapters.format;

/** Bytes that are not a JSON document for the dialect asked; {@code position} is the byte where parsing stopped. */
final class JsonException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int position;

    JsonException(String message, int position) {
        super("not valid JSON at byte " + position + ": " + message, null, false, false);
        this.position = position;
    }

    int position() {
        return position;
    }
}
