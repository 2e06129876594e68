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
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.settings.KeyLayout;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.domain.naming.ObjectKey;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What claims cost the store in steady state (no rebalance): every request the sink makes per sealed file, counted
 * by request kind, from the first file after start-up to a clean stop (which removes the claims left). A count, not
 * a time: issue 46 asks for at most 1.25 requests per file; this test pins what the protocol pays today.
 */
class ClaimRequestCountTest {
    private static final int FILES = 200;
    private static final int PER_FILE = 10;

    /** Counts every call that reaches the store, by kind; a batch delete is one request. */
    private static final class CountingStore extends ForwardingObjectStore {
        final Map<String, AtomicLong> calls = new ConcurrentHashMap<>();
        final AtomicLong dataPuts = new AtomicLong();

        CountingStore(InMemoryObjectStore to) {
            super(to);
        }

        private void count(String kind) {
            calls.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
        }

        long total() {
            return calls.values().stream().mapToLong(AtomicLong::get).sum();
        }

        void reset() {
            calls.clear();
            dataPuts.set(0);
        }

        @Override
        public void put(String key, FileBytes content, String contentType, Map<String, String> metadata)
                throws StoreException {
            count("PUT");
            if (ObjectKey.parse(key).isPresent()) dataPuts.incrementAndGet();
            super.put(key, content, contentType, metadata);
        }

        @Override
        public Optional<Map<String, String>> metadata(String key) throws StoreException {
            count("HEAD");
            return super.metadata(key);
        }

        @Override
        public boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException {
            count("conditional PUT");
            return super.create(key, content, metadata);
        }

        @Override
        public boolean create(String key, FileBytes content, String contentType, Map<String, String> metadata)
                throws StoreException {
            count("conditional data PUT");
            dataPuts.incrementAndGet();
            return super.create(key, content, contentType, metadata);
        }

        @Override
        public void delete(String key) throws StoreException {
            count("DELETE");
            super.delete(key);
        }

        @Override
        public void delete(List<String> keys) throws StoreException {
            count("DeleteObjects");
            super.delete(keys);
        }

        @Override
        public List<StoredObject> list(String prefix) throws StoreException {
            count("LIST");
            return super.list(prefix);
        }

        @Override
        public byte[] get(String key) throws StoreException {
            count("GET");
            return super.get(key);
        }

        @Override
        public byte[] get(String key, long from, int length) throws StoreException {
            count("GET");
            return super.get(key, from, length);
        }
    }

    @Test
    void claimed_files_cost_the_store_about_two_requests_each_in_steady_state() throws Exception {
        InMemoryObjectStore shared = new InMemoryObjectStore();
        CountingStore store = new CountingStore(shared);
        double perFile = steadyRequestsPerFile(KeyLayout.OFFSETS, store);
        String breakdown = "requests " + store.calls + " for " + FILES + " files: " + perFile + " per file";
        System.out.println("claims, steady state: " + breakdown);
        assertThat(shared.claims()).as("claims left after a clean stop").isEmpty();
        assertThat(perFile).as(breakdown).isLessThanOrEqualTo(2.05);
    }

    /** Under the first-offset key layout the data PUT is the file's claim: one request per file (ADR 0019). */
    @Test
    void first_offset_keys_cost_the_store_one_request_per_file_in_steady_state() throws Exception {
        InMemoryObjectStore shared = new InMemoryObjectStore();
        CountingStore store = new CountingStore(shared);
        double perFile = steadyRequestsPerFile(KeyLayout.FIRST_OFFSET, store);
        String breakdown = "requests " + store.calls + " for " + FILES + " files: " + perFile + " per file";
        System.out.println("first_offset keys, steady state: " + breakdown);
        assertThat(shared.claims()).as("claims").isEmpty();
        assertThat(store.calls.keySet()).as(breakdown).containsExactly("conditional data PUT");
        assertThat(perFile).as(breakdown).isLessThanOrEqualTo(1.25);
    }

    /** Requests per sealed file from the first file after start-up to a clean stop. */
    private double steadyRequestsPerFile(KeyLayout layout, CountingStore store) throws Exception {
        StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
        SinkSettings settings = TestSettings.withKeyLayout(TestSettings.countRotation(stream, PER_FILE), layout);
        ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
        SinkService sink = new SinkService(settings, (s, t, g) -> source, s -> new LinesCodec(), store,
                InstantSource.system(), d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sink.start();
        boolean stopped = false;
        try {
            // Start-up (the probe of conditional writes, the lookup at assignment) and a first file are not steady.
            source.append(0, PER_FILE, i -> "warm-up " + i);
            await().atMost(Duration.ofSeconds(30)).until(() -> source.stored(0).orElse(-1) == PER_FILE - 1);
            store.reset();
            int records = FILES * PER_FILE;
            source.append(0, records, i -> "record " + i);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> source.stored(0).orElse(-1) == PER_FILE + records - 1);
            sink.stop();
            stopped = true;
        } finally {
            if (!stopped) sink.stop();
        }
        assertThat(store.dataPuts.get()).as("files sealed and uploaded").isEqualTo(FILES);
        return (double) store.total() / FILES;
    }

    /**
     * Claims wait to be removed in a batch; a partition that goes quiet after its commit must not keep its claims
     * until the next commit or the stop: they go once the batch delay has passed (the self-audit notes claims left
     * past a commit).
     */
    @Test
    void a_quiet_partition_s_claims_are_removed_once_the_batch_delay_has_passed() throws Exception {
        StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
        SinkSettings settings = TestSettings.countRotation(stream, PER_FILE);
        InMemoryObjectStore shared = new InMemoryObjectStore();
        ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
        ManualClock clock = new ManualClock(Instant.parse("2026-12-05T10:00:00Z"));
        SinkService sink = new SinkService(settings, (s, t, g) -> source, s -> new LinesCodec(), shared, clock,
                clock.sleeper(), SinkMetrics.NONE);
        sink.start();
        try {
            source.append(0, 3 * PER_FILE, i -> "record " + i);
            await().atMost(Duration.ofSeconds(30)).until(() -> source.stored(0).orElse(-1) == 3 * PER_FILE - 1);
            clock.advance(Duration.ofSeconds(11)); // past the batch delay, with nothing more to commit
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(shared.claims()).as("claims of committed files, the partition quiet").isEmpty());
        } finally {
            sink.stop();
        }
    }
}
