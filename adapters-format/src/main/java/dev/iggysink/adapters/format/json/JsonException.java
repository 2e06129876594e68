package dev.iggysink.adapters.format.json;

/** Bytes that are not a JSON document for the dialect asked; {@code position} is the byte where parsing stopped. */
public final class JsonException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int position;

    JsonException(String message, int position) {
        super("not valid JSON at byte " + position + ": " + message, null, false, false);
        this.position = position;
    }

    public int position() {
        return position;
    }
}
