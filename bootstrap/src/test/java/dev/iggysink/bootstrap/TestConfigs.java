package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.AdminConfig;
import dev.iggysink.adapters.config.ConnectorConfig;
import dev.iggysink.adapters.config.IggyConfig;
import dev.iggysink.adapters.config.StorageConfig;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.application.settings.SinkSettings;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** A connector around pipeline settings, with the defaults a connector file gives for the rest. */
final class TestConfigs {
    private TestConfigs() {
    }

    static ConnectorConfig of(SinkSettings sink) {
        StorageConfig.S3 storage = new StorageConfig.S3(StorageConfig.S3Client.AWS, "bucket", "us-east-1",
                Optional.empty(), false, Optional.empty(), Optional.empty(), 64L << 20, 8L << 20, Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Map.of(), Duration.ofSeconds(60));
        IggyConfig iggy = new IggyConfig("127.0.0.1", 8090, "iggy", Secret.of("iggy"), Optional.empty(), false,
                Optional.empty(), Optional.empty());
        return new ConnectorConfig(sink, storage, iggy, new AdminConfig(Optional.empty(), Optional.empty()));
    }
}
