package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.Secret;
import java.util.Objects;
import java.util.Optional;

/** The {@code [iggy]} table: TCP address, and either username/password or a personal access token. */
public record IggyConfig(String host, int port, String username, Secret password, Optional<Secret> token,
                         boolean tlsEnabled, Optional<String> tlsCaFile, Optional<String> tlsDomain) {
    public IggyConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(tlsCaFile, "tlsCaFile");
        Objects.requireNonNull(tlsDomain, "tlsDomain");
    }

    /** {@code host:port}, IPv6 hosts in brackets. */
    public String address() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
