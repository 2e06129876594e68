package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.port.out.StoreException;
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

    /** Conditional creates answer from a script first (an exception, or a refusal of a key that does not exist). */
    private static final class Scripted extends ForwardingObjectStore {
        final Deque<Object> script = new ArrayDeque<>();
        int creates;

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

    @Test
    void a_store_that_keeps_refusing_turns_claims_off_after_three_rounds() throws StoreException {
        Scripted store = new Scripted(new InMemoryObjectStore());
        for (int i = 0; i < 10; i++) store.script.add(InMemoryObjectStore.forbidden());
        assertThat(new Claims(store, "").on()).isFalse();
        assertThat(store.creates).isEqualTo(3);
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
