package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.Health;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sink's own audit (issue 48) over a real pipeline on the in-memory store: each planted fault is found, fails
 * health naming its keys, and a clean run finds nothing.
 */
class SelfAuditTest extends ThreeObjectsAudited {
    private static final String FIRST = DIR + "00000-00000000000000000000-00000000000000000099.jsonl";
    private static final String MIDDLE = DIR + "00000-00000000000000000100-00000000000000000199.jsonl";
    private static final String LAST = DIR + "00000-00000000000000000200-00000000000000000299.jsonl";

    SelfAuditTest() {
        super(s -> s, FIRST, MIDDLE, LAST);
    }

    @Test
    void a_clean_run_finds_nothing_and_says_what_it_covered() throws Exception {
        threeObjectsCommitted();

        AuditStatus found = audit();
        AuditStatus again = audit();

        cleanOverAllThree(found);
        assertThat(found.objectsVerified()).as("committed objects read back").isEqualTo(3);
        assertThat(found.lastRound()).isPresent();
        assertThat(again.problems()).isEmpty();
        // Objects read once are not read again while their listed size stays the same.
        assertThat(again.requests() - found.requests()).as("requests of the second round").isLessThanOrEqualTo(2);
        assertThat(sink.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void a_committed_object_deleted_before_it_was_read_back_is_named() throws Exception {
        threeObjectsCommitted();

        objects.delete(LAST);
        AuditStatus found = audit();

        assertThat(found.counts().unverified()).isEqualTo(1);
        failedNaming(LAST, "was committed", "not in the store");
        // and the listing sees the same loss at the partition's end
        assertThat(found.problems()).anySatisfy(p -> assertThat(p).contains("offsets 200-299", "after " + MIDDLE));
    }

    @Test
    void an_object_with_a_wrong_range_is_a_mismatch() throws Exception {
        threeObjectsCommitted();
        audit();

        // The middle object replaced by one that holds half its records (and says so).
        rewritten(MIDDLE, 100, 149);
        AuditStatus found = audit();

        assertThat(found.counts().mismatches()).isEqualTo(1);
        failedNaming(MIDDLE, "100-149");
    }

    @Test
    void a_duplicate_range_is_an_overlap_naming_both_objects() throws Exception {
        threeObjectsCommitted();
        audit();

        String copy = DIR + "00000-00000000000000000150-00000000000000000249.jsonl";
        Map<String, String> stamps = ObjectStamps.of(150, 249, 100, "150/0/0", "249/0/0");
        objects.seed(copy, "x\n".getBytes(StandardCharsets.UTF_8), stamps);
        AuditStatus found = audit();

        assertThat(found.counts().overlaps()).isPositive();
        failedNaming(copy, "overlaps");
    }

    @Test
    void a_claim_left_behind_is_noted_without_failing_health() throws Exception {
        threeObjectsCommitted();
        audit();

        String space = Claims.space("sink-test", TestSettings.countRotation(stream, 100).output(), "jsonl");
        // A claim no file of this member starts at (a member killed after its claim): the claims of this member's
        // committed files wait for their batch delete and are not left behind.
        String claim = Claims.key("iggy/raw", space, source.partition(0), 150);
        objects.seed(claim, "{}".getBytes(StandardCharsets.UTF_8), Map.of());
        AuditStatus found = audit();

        assertThat(found.counts().claimsLeftBehind()).isEqualTo(1);
        assertThat(found.notes()).singleElement().asString().contains("offset 150", "offset 299");
        assertThat(found.problems()).isEmpty();
        assertThat(sink.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void a_run_claim_whose_run_goes_on_past_the_committed_offset_is_not_left_behind() throws Exception {
        threeObjectsCommitted();
        audit();

        String space = Claims.space("sink-test", TestSettings.countRotation(stream, 100).output(), "jsonl");
        // A run claim (ADR 0020) is removed once its run's end is committed, not its first file's.
        objects.seed(Claims.key("iggy/raw", space, source.partition(0), 250), "{}".getBytes(StandardCharsets.UTF_8),
                Map.of("iggy-offsets", "250-259", Claims.RUN_END, "999"));
        AuditStatus going = audit();
        assertThat(going.counts().claimsLeftBehind()).isZero();
        assertThat(going.notes()).isEmpty();

        // One whose run ended at or below the committed offset is left behind, as any other claim.
        objects.seed(Claims.key("iggy/raw", space, source.partition(0), 250), "{}".getBytes(StandardCharsets.UTF_8),
                Map.of("iggy-offsets", "250-259", Claims.RUN_END, "289"));
        AuditStatus ended = audit();
        assertThat(ended.counts().claimsLeftBehind()).isEqualTo(1);
        assertThat(ended.notes()).singleElement().asString().contains("offset 250", "offset 299");
    }

    @Test
    void a_committed_object_that_comes_back_without_any_metadata_is_a_note_not_a_failure() throws Exception {
        threeObjectsCommitted();

        // A store that keeps no user metadata returns the object bare.
        objects.seed(LAST, objects.objects().get(LAST), Map.of());
        AuditStatus found = audit();

        assertThat(found.problems()).isEmpty();
        assertThat(found.notes()).singleElement().asString().contains("without x-amz-meta-iggy-*", LAST);
        assertThat(sink.status().health()).isEqualTo(Health.OK);
    }

    @Test
    void a_restored_object_clears_the_finding() throws Exception {
        threeObjectsCommitted();
        audit();
        byte[] content = objects.objects().get(MIDDLE);
        Map<String, String> metadata = objects.metadataOf(MIDDLE);

        objects.delete(MIDDLE);
        assertThat(audit().problems()).isNotEmpty();
        objects.seed(MIDDLE, content, metadata);

        assertThat(audit().problems()).isEmpty();
        assertThat(sink.status().health()).isEqualTo(Health.OK);
    }
}
