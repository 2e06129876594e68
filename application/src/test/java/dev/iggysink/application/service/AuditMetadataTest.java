package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.domain.message.PartitionRef;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The audit checks each object's metadata against its key, beside the content's offsets against the key. */
class AuditMetadataTest {
    private static final PartitionRef P0 = new PartitionRef("logs", "api", 0);

    private static String data(long first, long last) {
        return String.format("out/logs/api/%05d-%020d-%020d.json", 0, first, last);
    }

    /** Content offsets as {@code first-last} in the object's text, as a reader of include_metadata files finds them. */
    private static List<Audit.PartitionAudit> audit(InMemoryObjectStore store, long committed) throws Exception {
        Audit audit = new Audit(store);
        return audit.audit("out/logs/api/", "_dlq", audit.deadLetterPrefix("out", "_dlq", "logs", "api"),
                List.of(P0), p -> OptionalLong.of(committed), (k, c) -> {
                    String text = new String(c, StandardCharsets.UTF_8);
                    if (text.isEmpty()) return Optional.empty();
                    String[] parts = text.split("-");
                    return Optional.of(new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])});
                });
    }

    private static Map<String, String> stamps(long first, long last, long records) {
        return ObjectStamps.of(first, last, records, first + "/7/100", last + "/8/200");
    }

    @Test
    void objects_whose_metadata_agrees_with_key_and_content_pass_and_objects_without_metadata_are_not_judged()
            throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        store.seed(data(0, 9), "0-9".getBytes(StandardCharsets.UTF_8), stamps(0, 9, 9));
        store.seed(data(10, 19), new byte[0], Map.of());

        Audit.PartitionAudit a = audit(store, 19).get(0);

        assertThat(a.mismatches()).isEmpty();
        assertThat(a.ok()).isTrue();
        assertThat(a.trustedByKey()).as("no metadata, no offsets inside").containsExactly(data(10, 19));
    }

    @Test
    void an_object_without_metadata_whose_content_names_its_offsets_is_not_trusted_by_key() throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        store.seed(data(0, 9), "0-9".getBytes(StandardCharsets.UTF_8), Map.of());
        store.seed(data(10, 19), "10-19".getBytes(StandardCharsets.UTF_8), stamps(10, 19, 10));

        assertThat(audit(store, 19).get(0).trustedByKey()).isEmpty();
    }

    @Test
    void metadata_that_disagrees_with_the_key_the_content_or_the_range_is_a_mismatch() throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        store.seed(data(0, 9), "0-9".getBytes(StandardCharsets.UTF_8), stamps(0, 8, 9));
        store.seed(data(10, 19), "10-19".getBytes(StandardCharsets.UTF_8), ObjectStamps.of(10, 19, 10, "11/7/100",
                "19/8/200"));
        store.seed(data(20, 29), "20-29".getBytes(StandardCharsets.UTF_8), stamps(20, 29, 11));
        store.seed(data(30, 39), "30-38".getBytes(StandardCharsets.UTF_8), stamps(30, 39, 10));

        Audit.PartitionAudit a = audit(store, 39).get(0);

        assertThat(a.mismatches()).hasSize(4);
        assertThat(a.mismatches().get(0)).contains(data(0, 9)).contains("metadata").contains("0-8");
        assertThat(a.mismatches().get(1)).contains(data(10, 19)).contains("11/7/100");
        assertThat(a.mismatches().get(2)).contains(data(20, 29)).contains("11 records");
        assertThat(a.mismatches()).anySatisfy(m -> assertThat(m).contains(data(30, 39)).contains("30-38"));
        assertThat(a.ok()).isFalse();
    }

    private static String firstOnly(long first) {
        return String.format("out/logs/api/%05d-%020d.json", 0, first);
    }

    /** Under the first-offset key layout (ADR 0019) a key names only where its file starts; the metadata the rest. */
    @Test
    void first_offset_keys_are_audited_by_the_range_their_metadata_names() throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        store.seed(firstOnly(0), "0-9".getBytes(StandardCharsets.UTF_8), stamps(0, 9, 10));
        store.seed(firstOnly(10), "10-24".getBytes(StandardCharsets.UTF_8), stamps(10, 24, 15));
        store.seed(firstOnly(25), "25-29".getBytes(StandardCharsets.UTF_8), stamps(25, 29, 5));

        Audit.PartitionAudit a = audit(store, 29).get(0);

        assertThat(a.gaps()).as("gaps").isEmpty();
        assertThat(a.overlaps()).as("overlaps").isEmpty();
        assertThat(a.mismatches()).isEmpty();
        assertThat(a.ok()).isTrue();

        store.seed(firstOnly(20), "20-29".getBytes(StandardCharsets.UTF_8), stamps(20, 29, 10));
        assertThat(audit(store, 29).get(0).overlaps()).as("a file starting inside another").isNotEmpty();
    }

    /** Metadata naming a range that ends before the key's first offset is a mismatch, not a failed audit. */
    @Test
    void a_first_offset_key_whose_metadata_range_runs_backwards_is_a_mismatch() throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        store.seed(firstOnly(0), "0-9".getBytes(StandardCharsets.UTF_8), stamps(0, 9, 10));
        store.seed(firstOnly(10), "10".getBytes(StandardCharsets.UTF_8), Map.of(ObjectStamps.OFFSETS, "10-5"));

        Audit.PartitionAudit a = audit(store, 9).get(0);

        assertThat(a.mismatches()).singleElement().asString().contains(firstOnly(10), "no range starting at 10",
                "10-5");
    }
}
