package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.iggysink.adapters.config.ConnectorConfig;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The store check before consuming: refusals end the start, silence and outages are waited out until a stop. */
class StartupChecksTest {
    private static final ConnectorConfig SETTINGS =
            TestConfigs.of(TestSettings.countRotation(TestSettings.stream("s", "t"), 10));

    @FunctionalInterface
    private interface Probe {
        void run() throws StoreException;
    }

    /** A store whose probe does what the test says; nothing else is called before consuming. */
    private static ObjectStore probing(Probe probe) {
        return new ObjectStore() {
            @Override
            public void put(String key, dev.iggysink.application.file.FileBytes content, String contentType,
                            java.util.Map<String, String> metadata) {
                throw new UnsupportedOperationException();
            }

            @Override
            public java.util.Optional<java.util.Map<String, String>> metadata(String key) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean create(String key, byte[] content, java.util.Map<String, String> metadata) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void delete(String key) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void probe() throws StoreException {
                probe.run();
            }

            @Override
            public List<StoredObject> list(String prefix) {
                throw new UnsupportedOperationException();
            }

            @Override
            public byte[] get(String key) {
                throw new UnsupportedOperationException();
            }

            @Override
            public byte[] get(String key, long from, int length) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void close() {
            }
        };
    }

    @Test
    void a_stop_ends_a_check_that_never_returns() {
        CountDownLatch probing = new CountDownLatch(1);
        ObjectStore hanging = probing(() -> {
            probing.countDown();
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        AtomicBoolean stop = new AtomicBoolean();
        StartupChecks checks = new StartupChecks(false, Duration.ofMillis(50), stop::get);

        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            Thread stopper = new Thread(() -> {
                try {
                    probing.await();
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
                stop.set(true);
            });
            stopper.start();
            assertThat(checks.checkStore(SETTINGS, hanging)).isEqualTo(StartupChecks.Outcome.STOPPED);
        });
    }

    @Test
    void a_refusing_store_fails_at_once_and_an_unavailable_one_only_with_fail_fast() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        assertThat(new StartupChecks(false, Duration.ofSeconds(10), stop::get)
                .checkStore(SETTINGS, InMemoryObjectStore.denying())).isEqualTo(StartupChecks.Outcome.FAILED);

        InMemoryObjectStore down = new InMemoryObjectStore();
        down.down(InMemoryObjectStore.unavailable());
        assertThat(new StartupChecks(true, Duration.ofSeconds(10), stop::get).checkStore(SETTINGS, down))
                .isEqualTo(StartupChecks.Outcome.FAILED);
    }

    @Test
    void an_unavailable_store_is_retried_until_it_answers() throws Exception {
        java.util.concurrent.atomic.AtomicInteger probes = new java.util.concurrent.atomic.AtomicInteger();
        ObjectStore flaky = probing(() -> {
            if (probes.incrementAndGet() == 1) throw InMemoryObjectStore.unavailable();
        });
        AtomicBoolean stop = new AtomicBoolean();

        assertThat(new StartupChecks(false, Duration.ofSeconds(10), stop::get).checkStore(SETTINGS, flaky))
                .isEqualTo(StartupChecks.Outcome.READY);
        assertThat(probes).hasValue(2);
    }

    @Test
    void what_the_start_waits_for_is_told_with_its_cause_and_attempts_while_it_retries() throws Exception {
        java.util.concurrent.atomic.AtomicInteger probes = new java.util.concurrent.atomic.AtomicInteger();
        StartupProgress progress = new StartupProgress(List.of(SETTINGS.key()));
        List<List<String>> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        ObjectStore flaky = probing(() -> {
            seen.add(progress.reasons());
            if (probes.incrementAndGet() <= 2) throw InMemoryObjectStore.unavailable();
        });
        AtomicBoolean stop = new AtomicBoolean();

        assertThat(new StartupChecks(false, Duration.ofSeconds(10), stop::get, progress).checkStore(SETTINGS, flaky))
                .isEqualTo(StartupChecks.Outcome.READY);
        assertThat(seen).hasSize(3);
        assertThat(seen.get(0)).singleElement().asString().startsWith("checking the object store at ");
        assertThat(seen.get(1)).singleElement().asString().startsWith("waiting for the object store at ")
                .contains("(" + InMemoryObjectStore.unavailable().getMessage()).contains("; 1 attempt, next in 1 s)");
        assertThat(seen.get(2)).singleElement().asString().contains("; 2 attempts, next in 2 s)");
        progress.done(SETTINGS.key());
        assertThat(progress.reasons()).isEmpty();
    }

    @Test
    void the_cause_is_told_without_naming_the_service_twice() {
        assertThat(StartupChecks.cause("Iggy at 10.0.0.5:8090",
                "cannot reach Iggy at 10.0.0.5:8090: Connection refused: /10.0.0.5:8090"))
                .isEqualTo("Connection refused: /10.0.0.5:8090");
        assertThat(StartupChecks.cause("Iggy at 10.0.0.5:8090", "no answer from Iggy within 10000 ms"))
                .isEqualTo("no answer from Iggy within 10000 ms");
    }

    @Test
    void retries_back_off_to_a_cap() {
        assertThat(StartupChecks.retryDelay(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(StartupChecks.retryDelay(3)).isEqualTo(Duration.ofSeconds(4));
        assertThat(StartupChecks.retryDelay(50)).isEqualTo(StartupChecks.MAX_RETRY);
    }
}
