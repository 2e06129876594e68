package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.message.PartitionRef;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PartitionNotesTest {
    private static final PartitionRef P = new PartitionRef("app", "clicks", 2);
    private final PartitionNotes notes = new PartitionNotes();

    private PartitionStatus status() {
        return notes.status(P, true, 10, 9, 3, 30, 1, 2, false);
    }

    @Test
    void a_fresh_partition_knows_no_offset_upload_or_error() {
        PartitionStatus s = status();
        assertThat(s.currentOffset()).isEqualTo(-1);
        assertThat(s.lastUploadKey()).isEmpty();
        assertThat(s.lastUploadAt()).isEmpty();
        assertThat(s.lastError()).isEmpty();
        assertThat(s.lag()).isZero();
    }

    @Test
    void the_status_carries_the_writers_state_and_the_notes() {
        Instant at = Instant.parse("2026-03-16T14:00:00Z");
        notes.currentOffset(41);
        notes.uploaded("k", at, 12);
        notes.error("503 SlowDown");

        assertThat(status()).isEqualTo(new PartitionStatus("app", "clicks", 2, true, 10, 9, 41, 3, 30, 1, 2,
                Optional.of("k"), Optional.of(at), 12, Optional.of("503 SlowDown"), false));
        assertThat(status().lag()).isEqualTo(32);
    }

    @Test
    void an_outcome_without_an_error_clears_the_last_one() {
        notes.error("commit failed: timeout");
        notes.error(Optional.empty());
        assertThat(notes.lastError()).isEmpty();
        notes.error(Optional.of("given up"));
        assertThat(status().lastError()).hasValue("given up");
    }
}
