package dev.iggysink.domain.message;

import java.util.Arrays;
import java.util.Objects;

/** One Iggy user header: a typed key and a typed value, both as their little-endian wire bytes. */
public record RecordHeader(HeaderKind keyKind, byte[] key, HeaderKind valueKind, byte[] value) {
    public RecordHeader {
        Objects.requireNonNull(keyKind, "keyKind");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(valueKind, "valueKind");
        Objects.requireNonNull(value, "value");
    }

    public static RecordHeader ofStrings(String key, String value) {
        return new RecordHeader(HeaderKind.STRING, key.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                HeaderKind.STRING, value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RecordHeader h && keyKind == h.keyKind && valueKind == h.valueKind
                && Arrays.equals(key, h.key) && Arrays.equals(value, h.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(keyKind, valueKind, Arrays.hashCode(key), Arrays.hashCode(value));
    }

    @Override
    public String toString() {
        return "RecordHeader[" + keyKind + ":" + key.length + "B=" + valueKind + ":" + value.length + "B]";
    }
}
