package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.SinkSettings;
import java.util.Objects;

/**
 * One sink connector as the config file describes it: what its pipeline does ({@link SinkSettings}, the application's
 * own record) and how to reach the store, Iggy and the admin server (this module's plain records, which bootstrap
 * unpacks into each adapter's settings), and where open files grow ({@code buffer_directory}, the format adapter's;
 * empty keeps them on the heap). The pipeline never sees those.
 */
public record ConnectorConfig(SinkSettings sink, StorageConfig storage, IggyConfig iggy, AdminConfig admin,
                              String bufferDirectory) {
    public ConnectorConfig {
        Objects.requireNonNull(bufferDirectory, "bufferDirectory");
        Objects.requireNonNull(sink, "sink");
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(iggy, "iggy");
        Objects.requireNonNull(admin, "admin");
    }

    /** Open files kept on the heap ({@code buffer_directory = ""}). */
    public ConnectorConfig(SinkSettings sink, StorageConfig storage, IggyConfig iggy, AdminConfig admin) {
        this(sink, storage, iggy, admin, "");
    }

    /** True when open files grow in {@link #bufferDirectory} ({@code buffer_directory}) rather than on the heap. */
    public boolean buffersOnDisk() {
        return !bufferDirectory.isEmpty();
    }

    public String key() {
        return sink.key();
    }
}
