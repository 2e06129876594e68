package dev.iggysink.adapters.format;

/** serde_json::from_slice of raw payload bytes: the value when they are JSON, null when they are not. */
final class RawJson {
    private RawJson() {
    }

    static Object parseOrNull(byte[] bytes) {
        try {
            return Json.parse(bytes, Json.Dialect.SERDE);
        } catch (JsonException e) {
            return null;
        }
    }
}
