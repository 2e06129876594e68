package dev.iggysink.application.settings;

import java.util.Objects;

/** A credential. Its text is reachable only through {@link #reveal()}; every other rendering is redacted. */
public final class Secret {
    private final String value;

    private Secret(String value) {
        this.value = Objects.requireNonNull(value, "value");
    }

    public static Secret of(String value) {
        return new Secret(value);
    }

    /** The plain text, for the one call that sends it to Iggy or S3. Never log it. */
    public String reveal() {
        return value;
    }

    @Override
    public String toString() {
        return "****";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Secret s && value.equals(s.value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }
}
