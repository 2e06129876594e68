package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.domain.message.PartitionRef;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The audit tells offsets that only reached the dead letters apart from offsets in data objects. */
class AuditDeadLettersTest {
    private static final PartitionRef P0 = new PartitionRef("logs", "api", 0);

    private static String data(int partition, long first, long last) {
        return String.format("out/logs/api/%05d-%020d-%020d.json", partition, first, last);
    }

    private static String letter(int partition, long offset) {
        return String.format("out/_dlq/logs/api/%05d-%020d.json", partition, offset);
    }

    private static List<Audit.PartitionAudit> audit(InMemoryObjectStore store, long committed) throws Exception {
        Audit audit = new Audit(store);
        return audit.audit("out/logs/api/", "_dlq", audit.deadLetterPrefix("out", "_dlq", "logs", "api"),
                List.of(P0), p -> OptionalLong.of(committed), (k, c) -> Optional.empty());
    }

    @Test
    void offsets_only_in_dead_letter_objects_are_listed_and_are_not_gaps() throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        store.put(data(0, 0, 16), new byte[1], "application/json");
        store.put(letter(0, 17), new byte[1], "application/json");
        store.put(data(0, 18, 41), new byte[1], "application/json");
        store.put(letter(0, 42), new byte[1], "application/json");
        store.put(letter(1, 5), new byte[1], "application/json");

        Audit.PartitionAudit a = audit(store, 42).get(0);

        assertThat(a.deadLettered()).containsExactly(17L, 42L);
        assertThat(a.gaps()).isEmpty();
        assertThat(a.ok()).isTrue();
    }

    @Test
    void a_real_gap_stays_a_gap_around_a_dead_letter() throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        store.put(data(0, 0, 9), new byte[1], "application/json");
        store.put(letter(0, 12), new byte[1], "application/json");

        Audit.PartitionAudit a = audit(store, 14).get(0);

        assertThat(a.deadLettered()).containsExactly(12L);
        assertThat(a.gaps()).extracting(Object::toString).containsExactly("10-11", "13-14");
        assertThat(a.ok()).isFalse();
    }

    @Test
    void the_dead_letter_prefix_is_where_dead_letters_are_written() {
        assertThat(new Audit(null).deadLetterPrefix("", "_dlq", "logs", "api")).isEqualTo("_dlq/logs/api/");
        assertThat(new Audit(null).deadLetterPrefix("out", "_dlq", "logs", "api")).isEqualTo("out/_dlq/logs/api/");
    }
}
