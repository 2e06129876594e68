package dev.iggysink.bootstrap;

import dev.iggysink.adapters.format.RecordCodecs;
import dev.iggysink.adapters.iggy.IggyMessageSource;
import dev.iggysink.adapters.s3.ObjectStores;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.service.SinkService;
import dev.iggysink.application.settings.SinkSettings;
import java.time.Duration;
import java.time.InstantSource;

/** Wiring only: which adapter serves which port for one configured sink. No rules live here. */
final class SinkAssembly {
    /** Every Iggy call is bounded by this; the 0.8 client has no timeout of its own. */
    static final Duration IGGY_CALL_TIMEOUT = Duration.ofSeconds(10);

    private SinkAssembly() {
    }

    static ObjectStore store(SinkSettings settings) {
        return ObjectStores.create(settings.storage());
    }

    static SinkService service(SinkSettings settings, ObjectStore store, SinkMetrics metrics) {
        return new SinkService(settings,
                (stream, topic) -> new IggyMessageSource(settings.iggy(), stream.stream(), topic,
                        stream.consumerGroup(), IGGY_CALL_TIMEOUT),
                stream -> RecordCodecs.forStream(stream, settings.output(), settings.transforms()),
                store, InstantSource.system(), duration -> Thread.sleep(duration.toMillis()), metrics);
    }
}
