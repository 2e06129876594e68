package dev.iggysink.bootstrap.admin;

import dev.iggysink.application.settings.Secret;
import java.util.Objects;
import java.util.Optional;

/** The admin HTTP server: {@code address} host:port, empty when {@code off}; optional bearer token. */
public record AdminSettings(Optional<String> address, Optional<Secret> token) {
    public AdminSettings {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(token, "token");
    }

    public static AdminSettings defaults() {
        return new AdminSettings(Optional.of("127.0.0.1:8098"), Optional.empty());
    }
}
