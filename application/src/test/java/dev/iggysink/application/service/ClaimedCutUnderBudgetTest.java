package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.naming.ObjectKey;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 43, item 3: member A cuts offsets 0..161 of partition 0 under memory pressure and claims the cut, then dies
 * before its PUT lands. Member B takes the partition and must cut exactly 0..161, but B's budget is smaller and
 * already holds files of its other partitions. Before the fix, relief picked the claimed file (the largest), which a
 * memory-pressure seal leaves open: nothing was freed and polling of the whole topic paused for good, with health OK.
 */
class ClaimedCutUnderBudgetTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String PAYLOAD = "x".repeat(96);

    private final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource a = new ScriptedMessageSource("application_logs", "api_requests", 3);
    private final RunningSinks sinks = new RunningSinks();

    private SinkService start(long budget, ScriptedMessageSource from) {
        SinkSettings base = TestSettings.countRotation(stream, 1000);
        SinkSettings settings = new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(),
                base.output(), base.rotation(), base.retry(),
                new DeliverySettings(budget, ErrorTolerance.NONE, "_dlq", Duration.ofSeconds(5), 4),
                base.transforms());
        return sinks.start(settings, from, store);
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        sinks.stopAll(store);
    }

    private static PartitionStatus partition(SinkService sink, int id) {
        return sink.status().partitions().stream().filter(p -> p.partition() == id).findFirst().orElse(null);
    }

    @Test
    void a_claimed_cut_larger_than_the_new_owners_free_budget_completes_and_every_offset_is_in_one_object()
            throws Exception {
        ScriptedMessageSource b = a.newMember();
        a.own(0, true);
        a.own(1, false);
        a.own(2, false);
        b.own(0, false);
        b.own(1, true);
        b.own(2, true);
        a.append(0, 162, i -> PAYLOAD);
        a.append(1, 15, i -> PAYLOAD);
        a.append(2, 15, i -> PAYLOAD);

        // A reads 0..161 with room to spare, cuts it (a flush stands in for memory pressure) and claims it; its PUT
        // is held, and A is killed with the PUT under way.
        SinkService memberA = start(64L << 20, a);
        await().atMost(WAIT).until(() -> partition(memberA, 0) != null
                && partition(memberA, 0).bufferedRecords() == 162);
        store.holdPuts(k -> ObjectKey.parse(k).isPresent());
        memberA.flush();
        await().atMost(WAIT).until(() -> store.heldCalls() == 1);
        store.holdNoMore();
        assertThat(store.claims()).hasSize(1);
        memberA.hurryStop();
        memberA.awaitStopped();

        // A left the group: B owns partition 0 too. Its budget of 6 KB holds partitions 1 and 2 (about 3 KB) and
        // fills at about offset 30 of the claimed cut of about 17 KB.
        SinkService memberB = start(6_000, b);
        await().atMost(WAIT).untilAsserted(() -> assertThat(b.stored(0)).as("committed offset of partition 0")
                .hasValue(161));
        assertThat(memberB.status().reasons()).isEmpty();

        // A's PUT lands late: the same records under the same key.
        store.releaseHeld();
        memberB.flush(); // partitions 1 and 2 may still have files open (memory pressure did not need to cut them)
        await().atMost(WAIT).until(() -> b.stored(1).orElse(-1) == 14 && b.stored(2).orElse(-1) == 14);
        Map<String, Integer> copies = new TreeMap<>();
        store.objects().forEach((key, bytes) -> {
            ObjectKey.parse(key).ifPresent(k -> {
                for (long o : LinesCodec.offsets(bytes)) copies.merge(k.partitionId() + ":" + o, 1, Integer::sum);
            });
        });
        assertThat(copies).hasSize(162 + 15 + 15).allSatisfy((o, n) -> assertThat(n).as("copies of %s", o)
                .isEqualTo(1));
    }
}
