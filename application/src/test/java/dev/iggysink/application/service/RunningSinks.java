package dev.iggysink.application.service;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.domain.naming.ObjectKey;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The members of one test: sinks started on the fakes (line codec, system clock, short sleeps), each on its own
 * source and a store they share, all ended after the test with the store's held writes let through first.
 */
final class RunningSinks {
    private final List<SinkService> sinks = new ArrayList<>();

    SinkService start(SinkSettings settings, ScriptedMessageSource from, ObjectStore store) {
        return start(settings, from, store, new LinesCodec());
    }

    SinkService start(SinkSettings settings, ScriptedMessageSource from, ObjectStore store, LinesCodec codec) {
        SinkService sink = new SinkService(settings, (s, t, g) -> from, s -> codec, store,
                InstantSource.system(), d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sinks.add(sink);
        sink.start();
        return sink;
    }

    /** Lets the held writes of {@code store} land, then stops every sink started here. */
    void stopAll(InMemoryObjectStore store) throws InterruptedException {
        store.releaseHeld();
        for (SinkService s : sinks) s.hurryStop();
        for (SinkService s : sinks) s.awaitStopped();
    }

    /** The key of partition 0's file of offsets {@code first}-{@code last} under the test settings' template. */
    static String key(long first, long last) {
        return ObjectKey.of("iggy/raw", "application_logs/api_requests/2026-03-16/14", 0, first, last, "jsonl");
    }

    /** Offsets in the stored data files of {@code store} (dead letters apart), with how many files hold each. */
    static Map<Long, Integer> coverage(InMemoryObjectStore store) {
        Map<Long, Integer> seen = new TreeMap<>();
        store.objects().forEach((key, bytes) -> {
            if (key.contains("/_dlq/") || ObjectKey.parse(key).isEmpty()) return;
            for (long o : LinesCodec.offsets(bytes)) seen.merge(o, 1, Integer::sum);
        });
        return seen;
    }
}
