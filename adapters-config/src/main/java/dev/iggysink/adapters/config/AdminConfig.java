package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.Secret;
import java.util.Objects;
import java.util.Optional;

/** The {@code [admin]} table: {@code address} host:port, empty when {@code off}; optional bearer token. */
public record AdminConfig(Optional<String> address, Optional<Secret> token) {
    public AdminConfig {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(token, "token");
    }
}
