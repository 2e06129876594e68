package dev.iggysink.domain.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.RotationReason;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class OpenFileTest {
    private static final PartitionRef P = new PartitionRef("app", "logs", 2);
    private static final Instant OPENED = Instant.parse("2026-03-16T14:00:00Z");

    @Test
    void accounts_records_and_seals_into_their_description() {
        OpenFile file = new OpenFile(P, "app/logs", OPENED);
        file.add(10, 1_000, 3);
        file.add(11, 1_001, 2);
        file.add(14, 900, 1);

        assertThat(file.isEmpty()).isFalse();
        assertThat(file.recordCount()).isEqualTo(3);
        assertThat(file.recordBytes()).isEqualTo(6);
        assertThat(file.firstOffset()).isEqualTo(10);
        assertThat(file.lastOffset()).isEqualTo(14);
        assertThat(file.firstTimestampMicros()).isEqualTo(1_000);
        assertThat(file.lastTimestampMicros()).isEqualTo(900);
        assertThat(file.directory()).isEqualTo("app/logs");
        assertThat(file.openedAt()).isEqualTo(OPENED);

        SealedFile sealed = file.seal("k/00002-x.jsonl", RotationReason.COUNT);
        assertThat(sealed).isEqualTo(new SealedFile(P, "k/00002-x.jsonl", 10, 14, 3, 6, 1_000, RotationReason.COUNT));
        assertThat(sealed.nextOffset()).isEqualTo(15);
        assertThat(sealed.covers(14)).isTrue();
        assertThat(sealed.covers(15)).isFalse();
        assertThat(file.isSealed()).isTrue();
        assertThatThrownBy(() -> file.add(15, 0, 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void offsets_must_increase_and_the_error_names_both() {
        OpenFile file = new OpenFile(P, "d", OPENED);
        file.add(5, 0, 1);
        assertThatThrownBy(() -> file.add(5, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offset 5").hasMessageContaining("last offset 5");
        assertThatThrownBy(() -> file.add(3, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3").hasMessageContaining("5");
        assertThat(file.recordCount()).isEqualTo(1);
    }

    @Test
    void an_empty_file_has_no_offsets_and_cannot_be_sealed() {
        OpenFile file = new OpenFile(P, "d", OPENED);
        assertThat(file.isEmpty()).isTrue();
        assertThat(file.recordBytes()).isZero();
        assertThatThrownBy(file::firstOffset).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(file::lastOffset).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(file::firstTimestampMicros).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(file::lastTimestampMicros).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> file.seal("k", RotationReason.FLUSH)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void sealed_file_checks_its_invariants() {
        assertThatThrownBy(() -> new SealedFile(P, "k", 5, 4, 1, 0, 0, RotationReason.SIZE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SealedFile(P, "k", 5, 6, 0, 0, 0, RotationReason.SIZE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SealedFile(P, "k", 5, 6, 3, 0, 0, RotationReason.SIZE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds");
        assertThatThrownBy(() -> new SealedFile(P, " ", 5, 6, 1, 0, 0, RotationReason.SIZE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SealedFile(P, "k", -1, 6, 1, 0, 0, RotationReason.SIZE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new SealedFile(P, "k", 0, Long.MAX_VALUE, 2, 0, 0, RotationReason.SIZE).recordCount()).isEqualTo(2);
    }
}
