package dev.iggysink.adapters.iggy;

import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.SourceFactory;
import dev.iggysink.application.settings.IggySettings;
import dev.iggysink.application.settings.StreamSettings;
import java.time.Duration;
import java.util.Objects;

/** Opens one {@link IggyMessageSource} (one group member, one connection) per configured stream and topic. */
public final class IggySourceFactory implements SourceFactory {
    private final IggySettings settings;
    private final Duration callTimeout;

    public IggySourceFactory(IggySettings settings, Duration callTimeout) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.callTimeout = Objects.requireNonNull(callTimeout, "callTimeout");
    }

    @Override
    public MessageSource open(StreamSettings stream, String topic) {
        return new IggyMessageSource(settings, stream.stream(), topic, stream.consumerGroup(), callTimeout);
    }
}
