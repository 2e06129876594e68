package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 43, item 2, the whole sequence: sink Y's member stops with its file 0-74 claimed and its PUT in flight; sink
 * X (another consumer group, another path template, same bucket and prefix) cuts 0-74 too, took Y's claim for its own
 * and removed it after its commit; Y's partition moved, Y's new owner found no claim and cut 0-149, and Y's late PUT
 * of 0-74 put those offsets in a second object of Y's.
 */
class TwoSinksOnOnePrefixTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final RunningSinks sinks = new RunningSinks();

    private SinkService start(SinkSettings settings, ScriptedMessageSource from) {
        return sinks.start(settings, from, store);
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        sinks.stopAll(store);
    }

    private static SinkSettings sink(String group, String template) {
        StreamSettings base = TestSettings.stream("application_logs", "api_requests");
        StreamSettings stream = new StreamSettings(base.stream(), base.topics(), base.schema(), base.batchLength(),
                base.pollInterval(), group, base.avroSchemaJson());
        SinkSettings s = TestSettings.countRotation(stream, 1000);
        return new SinkSettings(s.key(), s.name(), true, 0, false, s.streams(),
                OutputSettings.jsonLines("iggy/raw", template), s.rotation(), s.retry(),
                new DeliverySettings(64L << 20, ErrorTolerance.NONE, "_dlq", Duration.ofSeconds(30), 4),
                s.transforms());
    }

    private Map<Long, Integer> coverage(String keysStart) {
        Map<Long, Integer> seen = new TreeMap<>();
        store.objects().forEach((key, bytes) -> {
            if (!key.startsWith(keysStart)) return;
            for (long o : LinesCodec.offsets(bytes)) seen.merge(o, 1, Integer::sum);
        });
        return seen;
    }

    private static CompletableFuture<Boolean> stopInBackground(SinkService sink) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return sink.stop().clean();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void another_sinks_commit_does_not_remove_the_claim_that_decides_this_sinks_cut() throws Exception {
        SinkSettings y = sink("archive", "{stream}/{topic}/{date}/{hour}");
        SinkSettings x = sink("copy", "copy/{topic}");
        ScriptedMessageSource groupY = new ScriptedMessageSource("application_logs", "api_requests", 1);
        ScriptedMessageSource groupX = new ScriptedMessageSource("application_logs", "api_requests", 1);
        groupY.append(0, 75, i -> "r" + i);
        groupX.append(0, 75, i -> "r" + i);

        // Y's member stops: its file 0-74 is claimed, its PUT held in flight.
        SinkService y1 = start(y, groupY);
        await().atMost(WAIT).until(() -> y1.status().partitions().stream().anyMatch(p -> p.bufferedRecords() == 75));
        store.holdPuts(k -> k.startsWith("iggy/raw/application_logs/"));
        CompletableFuture<Boolean> y1Stop = stopInBackground(y1);
        await().atMost(WAIT).until(() -> store.heldCalls() == 1);
        store.holdNoMore();

        // X cuts 0-74 too (before: Y's claim forced that cut on X), uploads, commits and removes its claims.
        SinkService x1 = start(x, groupX);
        await().atMost(WAIT).until(() -> x1.status().partitions().stream()
                .anyMatch(p -> p.bufferedRecords() == 75 || p.committed() == 74));
        assertThat(x1.stop().clean()).isTrue();
        assertThat(groupX.stored(0)).hasValue(74);

        // Y's partition moves to another member of Y while Y's PUT is still in flight.
        ScriptedMessageSource y2Source = groupY.newMember();
        groupY.own(0, false);
        y2Source.own(0, true);
        groupY.append(0, 75, i -> "r" + i);
        SinkService y2 = start(y, y2Source);
        await().atMost(WAIT).until(() -> y2.status().partitions().stream()
                .anyMatch(p -> p.position() == 150));
        assertThat(y2.stop().clean()).isTrue();
        assertThat(y2Source.stored(0)).hasValue(149);

        store.releaseHeld();
        y1Stop.get();
        assertThat(coverage("iggy/raw/application_logs/")).as("sink Y's objects %s", store.objects().keySet())
                .hasSize(150).allSatisfy((o, n) -> assertThat(n).as("copies of %s", o).isEqualTo(1));
        assertThat(coverage("iggy/raw/copy/")).as("sink X's objects").hasSize(75)
                .allSatisfy((o, n) -> assertThat(n).as("copies of %s", o).isEqualTo(1));
        assertThat(store.claims()).as("every claim removed by its own sink").isEmpty();
    }
}
