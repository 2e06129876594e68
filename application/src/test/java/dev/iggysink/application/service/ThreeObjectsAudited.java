package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.StatusSnapshot;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;

/**
 * The self-audit tests' starting point: a sink of partition 0 on an in-memory store with 300 records committed in
 * three objects of 100, the self-audit at its default budget and run by the test, not in the background.
 */
abstract class ThreeObjectsAudited {
    static final Duration WAIT = Duration.ofSeconds(20);
    static final String DIR = "iggy/raw/application_logs/api_requests/2026-03-16/14/";

    final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
    final ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
    SinkService sink;

    @AfterEach
    void stop() throws InterruptedException {
        if (sink != null) sink.stop();
    }

    /** Runs the sink until the three objects, named by {@code keys}, are committed in {@code objects}. */
    void threeObjectsCommitted(UnaryOperator<SinkSettings> layout, ObjectStore store, InMemoryObjectStore objects,
                               String... keys) {
        SinkSettings base = layout.apply(TestSettings.countRotation(stream, 100));
        DeliverySettings d = base.delivery();
        SinkSettings settings = new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(),
                base.output(), base.rotation(), base.retry(), new DeliverySettings(d.maxBufferedBytes(),
                d.errorsTolerance(), d.dlqPrefix(), d.shutdownTimeout(), d.uploadConcurrency(), 600), List.of());
        source.append(0, 300, i -> "r" + i);
        sink = new SinkService(settings, (s, t, g) -> source, s -> new LinesCodec(), store, InstantSource.system(),
                d2 -> Thread.sleep(Math.min(d2.toMillis(), 20)), SinkMetrics.NONE);
        sink.auditInBackground = false;
        sink.start();
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 299);
        assertThat(objects.objects()).containsKeys(keys);
    }

    AuditStatus audit() throws Exception {
        return sink.auditNow().orElseThrow();
    }

    StatusSnapshot failedNaming(String... words) {
        StatusSnapshot status = sink.status();
        assertThat(status.health()).as("health, reasons %s", status.reasons()).isEqualTo(Health.FAILED);
        assertThat(status.reasons()).anySatisfy(r -> assertThat(r).startsWith("self-audit: ").contains(words));
        return status;
    }
}
