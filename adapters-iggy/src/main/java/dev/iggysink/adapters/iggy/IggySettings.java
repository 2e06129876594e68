package dev.iggysink.adapters.iggy;

import dev.iggysink.application.settings.Secret;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach Iggy: TCP address, and either username/password or a personal access token.
 */
public record IggySettings(String host, int port, String username, Secret password, Optional<Secret> token,
                           boolean tlsEnabled, Optional<String> tlsCaFile, Optional<String> tlsDomain) {
    public IggySettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(tlsCaFile, "tlsCaFile");
        Objects.requireNonNull(tlsDomain, "tlsDomain");
        if (port <= 0 || port > 65535) throw new IllegalArgumentException("port out of range: " + port);
    }

    public static IggySettings defaults() {
        return new IggySettings("127.0.0.1", 8090, "iggy", Secret.of("iggy"), Optional.empty(), false,
                Optional.empty(), Optional.empty());
    }
}
