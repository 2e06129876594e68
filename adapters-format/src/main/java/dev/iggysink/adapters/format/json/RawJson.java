package dev.iggysink.adapters.format.json;

/** serde_json::from_slice of raw payload bytes: the value when they are JSON, null when they are not. */
public final class RawJson {
    private RawJson() {
    }

    public static Object parseOrNull(byte[] bytes) {
        try {
            return Json.parse(bytes, Json.Dialect.SERDE);
        } catch (JsonException e) {
            return null;
        }
    }
}
