package dev.iggysink.adapters.config;

import java.util.Objects;

/**
 * One configuration problem: the key path it concerns (e.g. {@code plugin_config.max_file_size}, prefixed by
 * {@code [file.toml] } when it comes from a connector directory) and what was expected. Never holds a secret value.
 */
public record ConfigError(String path, String message) {
    public ConfigError {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        return path + ": " + message;
    }
}
