package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.status.Health;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The probe that decides whether claims are on must not be fooled by one odd answer. A single-drive MinIO answered a
 * conditional create of a fresh key with 412 or 403 about once in 9,000 while other keys of the same prefix were
 * deleted (its empty-directory clean-up racing the create); taking that one answer as the store's nature would turn
 * claims off for the life of the process, and with them exactly-once across a rebalance.
 */
class ClaimsProbeTest {
    private static final Object REFUSED_FRESH = new Object();
    private static final Duration WAIT = Duration.ofSeconds(20);

    /** Conditional creates answer from a script first (an exception, or a refusal of a key that does not exist). */
    private static class Scripted extends ForwardingObjectStore {
        final Deque<Object> script = new ArrayDeque<>();
        volatile int creates;

        Scripted(InMemoryObjectStore to) {
            super(to);
        }

        @Override
        public boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException {
            creates++;
            Object next = script.poll();
            if (next == REFUSED_FRESH) return false;
            if (next instanceof StoreException e) throw e;
            return super.create(key, content, metadata);
        }
    }

    @Test
    void a_store_that_honours_conditions_is_found_so_at_once() throws StoreException {
        Scripted store = new Scripted(new InMemoryObjectStore());
        assertThat(new Claims(store, "").on()).isTrue();
        assertThat(store.creates).isEqualTo(2);
    }

    @Test
    void a_fresh_key_refused_once_does_not_turn_claims_off() throws StoreException {
        Scripted store = new Scripted(new InMemoryObjectStore());
        store.script.add(REFUSED_FRESH);
        assertThat(new Claims(store, "").on()).isTrue();
    }

    @Test
    void a_403_once_does_not_turn_claims_off() throws StoreException {
        Scripted store = new Scripted(new InMemoryObjectStore());
        store.script.add(InMemoryObjectStore.forbidden());
        assertThat(new Claims(store, "").on()).isTrue();
    }

    /**
     * Issue 43, item 7: a member that got no clean answer turned claims off for its whole life, and uploaded
     * unclaimed while the other members relied on claims. Now the refusal is the upload's answer (a 403: retried,
     * then the partition halts naming it), and the next call probes again.
     */
    @Test
    void a_store_that_keeps_refusing_claims_refuses_the_upload_rather_than_turn_claims_off() throws StoreException {
        Scripted store = new Scripted(new InMemoryObjectStore());
        for (int i = 0; i < 3; i++) store.script.add(InMemoryObjectStore.forbidden());
        Claims claims = new Claims(store, "p");
        assertThatThrownBy(claims::on).isInstanceOfSatisfying(StoreException.class, e -> {
            assertThat(e.retryable()).isFalse();
            assertThat(e.httpStatus()).isEqualTo(403);
            assertThat(e.getMessage()).contains("p/_claims/").contains("s3:PutObject");
        });
        assertThat(store.creates).isEqualTo(3);
        assertThat(claims.knownOn()).isFalse();
        assertThat(claims.on()).as("probed again once the store answers").isTrue();
    }

    @Test
    void odd_answers_in_every_round_leave_the_question_open_and_the_upload_waits() throws StoreException {
        Scripted store = new Scripted(new InMemoryObjectStore());
        store.script.add(REFUSED_FRESH);
        store.script.add(InMemoryObjectStore.forbidden());
        store.script.add(REFUSED_FRESH);
        Claims claims = new Claims(store, "");
        assertThatThrownBy(claims::on).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.retryable()).as(e.getMessage()).isTrue());
        assertThat(claims.on()).isTrue();
    }

    /** Item 7: the probe runs when the sink starts, so its answer is known before anything is consumed. */
    @Test
    void the_store_is_probed_when_the_sink_starts_before_the_first_poll() throws Exception {
        ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
        source.append(0, 10, i -> "r" + i);
        InMemoryObjectStore memory = new InMemoryObjectStore().ignoringConditions();
        long[] pollsAtFirstCreate = {-1};
        Scripted store = new Scripted(memory) {
            @Override
            public boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException {
                synchronized (pollsAtFirstCreate) {
                    if (pollsAtFirstCreate[0] < 0) pollsAtFirstCreate[0] = source.polls();
                }
                return super.create(key, content, metadata);
            }
        };
        SinkService sink = sink(source, store);
        try {
            await().atMost(WAIT).until(() -> sink.status().partitions().stream().anyMatch(p -> p.position() == 10));
            sink.flush();
            await().atMost(WAIT).until(() -> !memory.objects().isEmpty());
        } finally {
            sink.stop();
        }
        assertThat(pollsAtFirstCreate[0]).as("polls before the probe").isZero();
        assertThat(memory.claims()).as("claims are off on a store that ignores the condition").isEmpty();
    }

    /** Item 7: a member without a clean answer waits; it never uploads unclaimed while the group may claim. */
    @Test
    void a_file_waits_for_a_clean_answer_and_then_goes_up_claimed() throws Exception {
        ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
        source.append(0, 10, i -> "r" + i);
        InMemoryObjectStore memory = new InMemoryObjectStore();
        java.util.concurrent.atomic.AtomicBoolean odd = new java.util.concurrent.atomic.AtomicBoolean(true);
        List<String> created = new java.util.concurrent.CopyOnWriteArrayList<>();
        Scripted store = new Scripted(memory) {
            @Override
            public boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException {
                creates++;
                if (odd.get()) return false; // a fresh key refused, as a single-drive MinIO does now and then
                created.add(key);
                return memory.create(key, content, metadata);
            }
        };
        SinkService sink = sink(source, store);
        try {
            await().atMost(WAIT).until(() -> sink.status().partitions().stream().anyMatch(p -> p.position() == 10));
            sink.flush();
            await().atMost(WAIT).until(() -> store.creates >= 3 * 3 || !memory.objects().isEmpty());
            assertThat(memory.objects()).as("uploaded without a clean answer").isEmpty();
            assertThat(sink.status().health()).isEqualTo(Health.DEGRADED);
            assertThat(sink.status().reasons()).anySatisfy(r -> assertThat(r).contains("no clean answer"));
            odd.set(false);
            await().atMost(WAIT).until(() -> !memory.objects().isEmpty());
        } finally {
            sink.stop();
        }
        assertThat(created).as("the file's claim").anyMatch(k -> k.endsWith("/00000-00000000000000000000.claim"));
    }

    /** Item 7: writes refused under _claims/ halt the partition with a reason that says what to grant. */
    @Test
    void claims_refused_for_good_halt_the_partition_rather_than_upload_unclaimed() throws Exception {
        ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
        source.append(0, 10, i -> "r" + i);
        InMemoryObjectStore memory = new InMemoryObjectStore();
        Scripted store = new Scripted(memory) {
            @Override
            public boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException {
                creates++;
                throw InMemoryObjectStore.forbidden();
            }
        };
        SinkService sink = sink(source, store);
        try {
            await().atMost(WAIT).until(() -> sink.status().partitions().stream().anyMatch(p -> p.position() == 10));
            sink.flush();
            await().atMost(WAIT).until(() -> sink.status().partitions().stream().anyMatch(p -> p.halted())
                    || !memory.objects().isEmpty());
            assertThat(memory.objects()).as("uploaded unclaimed").isEmpty();
            assertThat(sink.status().health()).isEqualTo(Health.FAILED);
            assertThat(sink.status().reasons()).anySatisfy(r -> assertThat(r).contains("iggy/raw/_claims/")
                    .contains("s3:PutObject"));
        } finally {
            sink.stop();
        }
        assertThat(source.stored(0)).as("nothing committed").isEmpty();
    }

    private static SinkService sink(ScriptedMessageSource source, ObjectStore store) {
        SinkService sink = new SinkService(TestSettings.countRotation(TestSettings.stream("application_logs",
                "api_requests"), 1000), (s, t, g) -> source, s -> new LinesCodec(), store, InstantSource.system(),
                d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sink.start();
        return sink;
    }

    @Test
    void a_store_that_ignores_conditions_turns_claims_off_after_one_round() throws StoreException {
        Scripted store = new Scripted(new InMemoryObjectStore().ignoringConditions());
        assertThat(new Claims(store, "").on()).isFalse();
        assertThat(store.creates).isEqualTo(2);
    }

    @Test
    void every_probe_key_is_removed() throws StoreException {
        InMemoryObjectStore memory = new InMemoryObjectStore();
        Scripted store = new Scripted(memory);
        store.script.add(REFUSED_FRESH);
        store.script.add(InMemoryObjectStore.forbidden());
        assertThat(new Claims(store, "p").on()).isTrue();
        assertThat(memory.objects()).isEmpty();
    }
}
