package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.RetrySettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.Health;
import java.time.Duration;
import java.time.InstantSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 35 item 4: after a store outage, uploads waiting for their next attempt go up as soon as the store answers
 * again (a probe finds out), not when their backoff ends; and the backoff's cap is {@code retry_max_delay}.
 */
class StoreRecoveryTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final StreamSettings stream = TestSettings.stream("s", "t");
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("s", "t", 2);
    private SinkService sink;

    private SinkService start(RetrySettings retry) {
        SinkSettings base = TestSettings.countRotation(stream, 100);
        SinkSettings settings = new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(),
                base.output(), base.rotation(), retry, base.delivery(), base.transforms());
        sink = new SinkService(settings, (s, t, g) -> source, s -> new LinesCodec(), store, InstantSource.system(),
                d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sink.start();
        return sink;
    }

    @AfterEach
    void stop() throws InterruptedException {
        store.up();
        if (sink != null) sink.stop();
    }

    private boolean committed(long offset) {
        return source.stored(0).orElse(-1) == offset && source.stored(1).orElse(-1) == offset;
    }

    @Test
    void uploads_waiting_out_a_long_backoff_go_up_once_a_probe_sees_the_store_answer_again() {
        // An hour between attempts: only the probe can bring these uploads up while the test runs.
        start(new RetrySettings(3, Duration.ofHours(1), Duration.ofHours(1)));
        for (int p = 0; p < 2; p++) source.append(p, 100, i -> "{\"n\":" + i + "}");
        await().atMost(WAIT).until(() -> committed(99));

        store.down(InMemoryObjectStore.unavailable());
        long retriesBefore = sink.status().totals().uploadRetries();
        for (int p = 0; p < 2; p++) source.append(p, 100, i -> "{\"n\":" + (100 + i) + "}");
        await().atMost(WAIT).until(() -> sink.status().health() == Health.DEGRADED);
        int headsWhileDown = store.headCalls();
        await("the store is probed while it is down").atMost(WAIT).until(() -> store.headCalls() > headsWhileDown);
        assertThat(sink.status().totals().uploadRetries()).as("tried once, then waiting for the backoff")
                .isGreaterThan(retriesBefore);

        store.up();
        await().atMost(WAIT).until(() -> committed(199));
        assertThat(sink.status().health()).isEqualTo(Health.OK);
        assertThat(sink.status().reasons()).isEmpty();
    }

    @Test
    void the_backoff_never_waits_longer_than_retry_max_delay() {
        // The store answers (a probe finds nothing wrong) but refuses these puts three times: only the backoff,
        // capped at 50 ms rather than the hour retry_delay would grow to, brings them up.
        start(new RetrySettings(3, Duration.ofHours(1), Duration.ofMillis(50)));
        store.failNext(InMemoryObjectStore.unavailable(), InMemoryObjectStore.unavailable(),
                InMemoryObjectStore.unavailable());
        for (int p = 0; p < 2; p++) source.append(p, 100, i -> "{\"n\":" + i + "}");

        await().atMost(WAIT).until(() -> committed(99));
        assertThat(sink.status().totals().uploadRetries()).isGreaterThanOrEqualTo(3);
    }
}
