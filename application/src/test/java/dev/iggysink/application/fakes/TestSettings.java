package dev.iggysink.application.fakes;


import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.KeyLayout;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.RetrySettings;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Small builders of valid settings for application tests. */
public final class TestSettings {
    private TestSettings() {
    }

    public static StreamSettings stream(String name, String... topics) {
        return new StreamSettings(name, List.of(topics), PayloadSchema.JSON, 100, Duration.ofMillis(1), "sink-test",
                Optional.empty());
    }

    public static SinkSettings sink(StreamSettings stream, RotationSettings rotation, ErrorTolerance tolerance,
                                    long maxBufferedBytes, Duration shutdownTimeout) {
        return new SinkSettings("s3", "S3 sink", true, 0, false, List.of(stream),
                OutputSettings.jsonLines("iggy/raw", "{stream}/{topic}/{date}/{hour}"), rotation,
                new RetrySettings(3, Duration.ofMillis(10), RetrySettings.DEFAULT_MAX_DELAY),
                new DeliverySettings(maxBufferedBytes, tolerance, "_dlq", shutdownTimeout, 4), List.of());
    }

    public static SinkSettings countRotation(StreamSettings stream, long count) {
        return sink(stream, RotationSettings.messages(count), ErrorTolerance.NONE, 64L << 20, Duration.ofSeconds(5));
    }

    /** {@code settings} writing keys of {@code layout}. */
    public static SinkSettings withKeyLayout(SinkSettings settings, KeyLayout layout) {
        OutputSettings o = settings.output();
        OutputSettings output = new OutputSettings(o.prefix(), o.pathTemplate(), o.format(), o.compression(),
                o.includeMetadata(), o.includeHeaders(), o.timezone(), o.avroSchemaJson(), o.parquetCodec(),
                o.avroCodec(), o.missingFieldPlaceholder(), o.completionMarker(), layout);
        return new SinkSettings(settings.key(), settings.name(), true, 0, false, settings.streams(), output,
                settings.rotation(), settings.retry(), settings.delivery(), settings.transforms());
    }
}
