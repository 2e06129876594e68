package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.domain.naming.ObjectKey;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 43, item 3: a member whose polling is held by the memory budget with nothing read and nothing freed never
 * reports healthy. Here the store takes the uploads that would free memory and never answers (no error, so no
 * outage is reported): health turns degraded, then failed, naming the topic and the partition.
 */
class BudgetStallHealthTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("s", "t", 1);
    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T15:02:31Z"));
    private SinkService sink;

    @AfterEach
    void stop() throws InterruptedException {
        store.releaseHeld();
        if (sink != null) {
            sink.hurryStop();
            sink.awaitStopped();
        }
    }

    @Test
    void polling_held_by_the_budget_with_no_memory_freed_turns_degraded_then_failed() {
        store.holdPuts(k -> ObjectKey.parse(k).isPresent());
        source.append(0, 200, i -> "x".repeat(96));
        sink = new SinkService(TestSettings.sink(TestSettings.stream("s", "t"), RotationSettings.messages(1000),
                ErrorTolerance.NONE, 3_000, Duration.ofSeconds(1)), (s, t, g) -> source, s -> new LinesCodec(),
                store, clock, d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sink.start();
        await().atMost(WAIT).until(() -> store.heldCalls() >= 1);
        // The time held counts from the loop's first turn under the full budget: the clock moves only after it.
        await().atMost(WAIT).until(sink::pollingHeldByBudget);
        assertThat(sink.status().health()).isEqualTo(Health.OK);

        clock.advance(MemoryRelief.DEGRADED_AFTER.plusSeconds(1));
        StatusSnapshot degraded = sink.status();
        assertThat(degraded.health()).isEqualTo(Health.DEGRADED);
        assertThat(degraded.reasons()).singleElement().asString()
                .contains("polling of s/t is held by the memory budget", "partition 0", "1 upload(s) under way");

        clock.advance(SinkService.STUCK_AFTER);
        assertThat(sink.status().health()).isEqualTo(Health.FAILED);
    }

    /**
     * Review finding 9: one slow upload (a large file going out part after part) with the budget full is progress:
     * it will free memory. Health stays OK while its bytes move, and turns failed only once nothing moves.
     */
    @Test
    void an_upload_still_sending_under_a_full_budget_keeps_health_ok_until_it_stops_moving() {
        Semaphore pieces = new Semaphore(1);
        AtomicLong sent = new AtomicLong();
        ObjectStore slow = new ForwardingObjectStore(store) {
            @Override
            public void put(String key, FileBytes content, String contentType, Map<String, String> metadata)
                    throws StoreException {
                if (ObjectKey.parse(key).isPresent()) {
                    try (InputStream in = content.openStream()) {
                        byte[] piece = new byte[256];
                        for (int n = 0; n >= 0; n = in.read(piece)) {
                            sent.addAndGet(n);
                            pieces.acquire();
                        }
                    } catch (IOException e) {
                        throw new StoreException("PUT " + key + " failed: " + e, true, 0, null, e);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new StoreException("PUT " + key + " interrupted", true, 0, null, e);
                    }
                }
                super.put(key, content, contentType, metadata);
            }
        };
        source.append(0, 200, i -> "x".repeat(96));
        sink = new SinkService(TestSettings.sink(TestSettings.stream("s", "t"), RotationSettings.messages(1000),
                ErrorTolerance.NONE, 3_000, Duration.ofSeconds(1)), (s, t, g) -> source, s -> new LinesCodec(),
                slow, clock, d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sink.start();
        await().atMost(WAIT).until(() -> sent.get() > 0 && pieces.hasQueuedThreads());
        await().atMost(WAIT).until(sink::pollingHeldByBudget);

        clock.advance(MemoryRelief.DEGRADED_AFTER.plusSeconds(1));
        long before = sent.get();
        pieces.release();
        await().atMost(WAIT).until(() -> sent.get() > before);
        await().atMost(WAIT).untilAsserted(() -> assertThat(sink.status().health()).as("health while the upload"
                + " sends").isEqualTo(Health.OK));

        clock.advance(SinkService.STUCK_AFTER.plusSeconds(1));
        await().atMost(WAIT).untilAsserted(() -> {
            StatusSnapshot failed = sink.status();
            assertThat(failed.health()).isEqualTo(Health.FAILED);
            assertThat(failed.reasons()).anySatisfy(r -> assertThat(r).contains("held by the memory budget"));
        });
        pieces.release(1_000_000);
    }
}
