package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.Health;
import dev.iggysink.domain.naming.ObjectKey;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Review finding 1: member A cut offsets 0..161 of partition 0 and claimed the cut; its PUT is still under way when
 * member B takes the partition. B's key lookup must read A's claim. When that read fails without being retryable,
 * B used to turn claims off for the whole topic and upload its own unclaimed cut 0..99 beside A's 0..161.
 */
class ClaimLookupFailureTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource a = new ScriptedMessageSource("application_logs", "api_requests", 1);
    private final RunningSinks sinks = new RunningSinks();

    private SinkService start(long filesOf, ScriptedMessageSource from, ObjectStore through) {
        return sinks.start(TestSettings.countRotation(stream, filesOf), from, through);
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        sinks.stopAll(store);
    }

    /** A claims 0..161 with its PUT held, then is killed; B owns the partition from then on. */
    private ScriptedMessageSource aClaimedAndDied() throws Exception {
        ScriptedMessageSource b = a.newMember();
        a.own(0, true);
        b.own(0, false);
        a.append(0, 162, i -> "r" + i);
        SinkService memberA = start(1000, a, store);
        await().atMost(WAIT).until(() -> memberA.status().partitions().stream()
                .anyMatch(p -> p.partition() == 0 && p.bufferedRecords() == 162));
        store.holdPuts(k -> ObjectKey.parse(k).isPresent());
        memberA.flush();
        await().atMost(WAIT).until(() -> store.heldCalls() == 1);
        store.holdNoMore();
        assertThat(store.claims()).hasSize(1);
        memberA.hurryStop();
        memberA.awaitStopped();
        b.own(0, true);
        return b;
    }

    /** The claims' HEAD answers {@code failure} while {@code failing} says so. */
    private ObjectStore claimHeadsFailing(java.util.function.BooleanSupplier failing, StoreException failure) {
        return new ForwardingObjectStore(store) {
            @Override
            public Optional<Map<String, String>> metadata(String key) throws StoreException {
                if (key.contains("_claims/s") && failing.getAsBoolean()) throw failure;
                return super.metadata(key);
            }
        };
    }

    private Map<String, Integer> copiesOfPartition0() {
        Map<String, Integer> copies = new TreeMap<>();
        store.objects().forEach((key, bytes) -> ObjectKey.parse(key).ifPresent(k -> {
            for (long o : LinesCodec.offsets(bytes)) copies.merge(k.partitionId() + ":" + o, 1, Integer::sum);
        }));
        return copies;
    }

    @Test
    void a_claim_that_cannot_be_read_halts_the_partition_naming_the_claim_and_uploads_nothing_unclaimed()
            throws Exception {
        ScriptedMessageSource b = aClaimedAndDied();
        String claim = store.claims().keySet().iterator().next();
        SinkService memberB = start(100, b, claimHeadsFailing(() -> true, new StoreException("HEAD s3://in-memory/"
                + claim + " denied (403 AccessDenied)", false, 403, null, null)));

        await().atMost(WAIT).untilAsserted(() -> assertThat(memberB.status().health()).isEqualTo(Health.FAILED));
        assertThat(memberB.status().reasons()).anySatisfy(r -> assertThat(r).contains("partition 0")
                .contains(claim).contains("restart"));
        // B uploaded nothing beside A's claimed cut (A's PUT may still land) and committed nothing.
        assertThat(store.objects().keySet().stream().filter(k -> ObjectKey.parse(k).isPresent()).toList())
                .as("objects of partition 0").isEmpty();
        assertThat(b.stored(0)).as("committed offset of partition 0").isEmpty();
        assertThat(store.claims()).as("A's claim").containsKey(claim);
    }

    @Test
    void a_claim_that_vanished_between_list_and_get_is_looked_up_again_and_its_cut_adopted() throws Exception {
        ScriptedMessageSource b = aClaimedAndDied();
        AtomicInteger notFound = new AtomicInteger(1);
        SinkService memberB = start(100, b, claimHeadsFailing(() -> notFound.getAndDecrement() > 0,
                new StoreException("GET s3://in-memory/x failed (404 NoSuchKey)", false, 404, null, null)));

        b.append(0, 38, i -> "r" + (162 + i));
        await().atMost(WAIT).untilAsserted(() -> assertThat(b.stored(0)).as("committed offset of partition 0")
                .hasValue(161));
        store.releaseHeld();
        memberB.flush();
        await().atMost(WAIT).until(() -> b.stored(0).orElse(-1) == 199);
        assertThat(copiesOfPartition0()).hasSize(200).allSatisfy((o, n) -> assertThat(n).as("copies of %s", o)
                .isEqualTo(1));
        assertThat(memberB.status().health()).isEqualTo(Health.OK);
    }
}
