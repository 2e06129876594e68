package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.SinkSettings;
import java.util.Objects;

/**
 * One sink connector as the config file describes it: what its pipeline does ({@link SinkSettings}, the application's
 * own record) and how to reach the store, Iggy and the admin server (this module's plain records, which bootstrap
 * unpacks into each adapter's settings). The pipeline never sees the last three.
 */
public record ConnectorConfig(SinkSettings sink, StorageConfig storage, IggyConfig iggy, AdminConfig admin) {
    public ConnectorConfig {
        Objects.requireNonNull(sink, "sink");
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(iggy, "iggy");
        Objects.requireNonNull(admin, "admin");
    }

    public String key() {
        return sink.key();
    }
}
