package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.settings.Secret;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class IggyGroupOffsetsTest {
    private final FakeBroker broker = new FakeBroker("orders", "created", 3);

    @Test
    @Timeout(60) // a close that waited would wait the whole day below: this guards a hang, it measures nothing
    void close_does_not_wait_for_the_client_to_wind_down() throws Exception {
        IggySettings settings = new IggySettings("127.0.0.1", 8090, "sink", Secret.of(broker.password),
                Optional.empty(), false, Optional.empty(), Optional.empty());
        IggyConnection connection = broker.factory().create();
        IggyGroupOffsets offsets = new IggyGroupOffsets(settings, "orders", "created", "g", Duration.ofDays(1),
                connection);
        assertThat(offsets.partitions()).hasSize(3);
        broker.hangNext("close"); // as the 0.8 client's close, which completes after a 2 s quiet period

        offsets.close();

        assertThat(broker.calls).contains("close");
        assertThat(broker.connections.get(0).closed).isTrue();
    }
}
