package dev.iggysink.domain.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.domain.buffer.SealedFile;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.RotationReason;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DeliveryLedgerTest {
    private static final PartitionRef P = new PartitionRef("s", "t", 1);

    private static SealedFile file(long first, long last) {
        return new SealedFile(P, "k-" + first, first, last, last - first + 1, 10, 0, RotationReason.COUNT);
    }

    /** Reads first..last into one file and seals it. */
    private static SealedFile readAndSeal(DeliveryLedger ledger, long first, long last) {
        ledger.opened(first);
        for (long o = first; o <= last; o++) ledger.read(o);
        SealedFile f = file(first, last);
        ledger.sealed(f);
        return f;
    }

    @Test
    void starts_after_the_committed_offset() {
        DeliveryLedger fresh = new DeliveryLedger(P, -1);
        assertThat(fresh.position()).isZero();
        assertThat(fresh.commitPoint()).isEqualTo(-1);
        assertThat(fresh.committable()).isEmpty();
        DeliveryLedger resumed = new DeliveryLedger(P, 41);
        assertThat(resumed.position()).isEqualTo(42);
        assertThat(resumed.lastCommitted()).isEqualTo(41);
        assertThat(resumed.committable()).isEmpty();
    }

    @Test
    void commits_only_the_durable_prefix() {
        DeliveryLedger ledger = new DeliveryLedger(P, -1);
        SealedFile a = readAndSeal(ledger, 0, 9);
        SealedFile b = readAndSeal(ledger, 10, 19);
        ledger.opened(20);
        ledger.read(20);
        assertThat(ledger.state(0)).isEqualTo(FileState.PENDING);
        assertThat(ledger.notDurable()).containsExactly(a, b);
        assertThat(ledger.bufferedFiles()).isEqualTo(3);

        ledger.durable(10);
        assertThat(ledger.commitPoint()).isEqualTo(-1);
        assertThat(ledger.committable()).isEmpty();

        ledger.failed(0);
        assertThat(ledger.state(0)).isEqualTo(FileState.FAILED);
        assertThat(ledger.committable()).isEmpty();
        ledger.durable(0);
        assertThat(ledger.commitPoint()).isEqualTo(19);
        assertThat(ledger.committable()).isEqualTo(OptionalLong.of(19));
        assertThat(ledger.state(10)).isEqualTo(FileState.DURABLE);

        ledger.committed(19);
        assertThat(ledger.lastCommitted()).isEqualTo(19);
        assertThat(ledger.committable()).isEmpty();
        // durable files whose offsets are all committed are forgotten
        assertThatThrownBy(() -> ledger.state(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ledger.state(10)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ledger.openFiles()).containsExactly(20L);
        assertThat(ledger.bufferedFiles()).isEqualTo(1);
    }

    @Test
    void several_open_files_hold_the_commit_point_at_the_oldest() {
        DeliveryLedger ledger = new DeliveryLedger(P, -1);
        ledger.opened(0);
        ledger.read(0);
        ledger.opened(1);
        ledger.read(1);
        ledger.read(2); // goes to the file at 0
        ledger.sealed(new SealedFile(P, "b", 1, 1, 1, 1, 0, RotationReason.PATH_CHANGE));
        ledger.durable(1);
        assertThat(ledger.commitPoint()).isEqualTo(-1);
        ledger.sealed(new SealedFile(P, "a", 0, 2, 2, 1, 0, RotationReason.SIZE));
        ledger.durable(0);
        assertThat(ledger.commitPoint()).isEqualTo(2);
    }

    @Test
    void commits_are_monotonic_and_never_past_the_commit_point() {
        DeliveryLedger ledger = new DeliveryLedger(P, -1);
        readAndSeal(ledger, 0, 4);
        readAndSeal(ledger, 5, 9);
        ledger.durable(0);
        assertThatThrownBy(() -> ledger.committed(5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("5").hasMessageContaining("4");
        ledger.committed(3); // a smaller offset than the point is allowed
        ledger.committed(4);
        ledger.committed(2); // ignored
        assertThat(ledger.lastCommitted()).isEqualTo(4);
        assertThat(ledger.state(5)).isEqualTo(FileState.PENDING);
    }

    @Test
    void a_dead_lettered_record_is_a_one_record_file() {
        DeliveryLedger ledger = new DeliveryLedger(P, 9);
        readAndSeal(ledger, 10, 10);
        ledger.durable(10);
        assertThat(ledger.committable()).isEqualTo(OptionalLong.of(10));
    }

    @Test
    void illegal_transitions_fail() {
        DeliveryLedger ledger = new DeliveryLedger(P, 4);
        assertThatThrownBy(() -> ledger.opened(4)).isInstanceOf(IllegalArgumentException.class);
        ledger.opened(5);
        assertThatThrownBy(() -> ledger.opened(5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ledger.durable(5)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ledger.failed(5)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ledger.sealed(file(6, 7))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ledger.sealed(new SealedFile(new PartitionRef("s", "t", 2), "k", 5, 5, 1, 0, 0,
                RotationReason.SIZE))).isInstanceOf(IllegalArgumentException.class);
        ledger.read(5);
        ledger.sealed(file(5, 5));
        assertThatThrownBy(() -> ledger.sealed(file(5, 5))).isInstanceOf(IllegalStateException.class);
        ledger.durable(5);
        ledger.durable(5); // idempotent
        assertThatThrownBy(() -> ledger.failed(5)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ledger.state(99)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ledger.read(3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void a_revoked_partition_forgets_everything_and_ignores_later_calls() {
        DeliveryLedger ledger = new DeliveryLedger(P, -1);
        readAndSeal(ledger, 0, 4);
        ledger.durable(0);
        ledger.revoke();
        assertThat(ledger.revoked()).isTrue();
        assertThat(ledger.committable()).isEmpty();
        assertThat(ledger.notDurable()).isEmpty();
        assertThat(ledger.bufferedFiles()).isZero();
        ledger.read(7);
        ledger.opened(8);
        ledger.durable(0);
        ledger.committed(4);
        ledger.sealed(file(8, 8));
        ledger.failed(8);
        assertThat(ledger.lastCommitted()).isEqualTo(-1);
        assertThat(ledger.committable()).isEmpty();
        assertThat(ledger.notDurable()).isEqualTo(List.of());
    }

    @Test
    void the_commit_point_never_falls_inside_a_durable_file_so_a_replay_from_it_rebuilds_the_same_files() {
        // Interleaved paths: offsets 0,2,4 go to file A; 1,3 to file B (still open).
        DeliveryLedger ledger = new DeliveryLedger(P, -1);
        ledger.opened(0);
        ledger.read(0);
        ledger.opened(1);
        ledger.read(1);
        for (long o = 2; o <= 4; o++) ledger.read(o);
        SealedFile a = new SealedFile(P, "a", 0, 4, 3, 30, 0, RotationReason.COUNT);
        ledger.sealed(a);
        ledger.durable(0);
        // B (first offset 1) is open: offsets up to 0 are durable, but A holds offsets on both sides of 0, so a
        // replay from 1 would write 2 and 4 again under a new key. Nothing may be committed yet.
        assertThat(ledger.commitPoint()).isEqualTo(-1);
        assertThat(ledger.committable()).isEmpty();

        ledger.sealed(new SealedFile(P, "b", 1, 3, 2, 20, 0, RotationReason.COUNT));
        ledger.durable(1);
        assertThat(ledger.commitPoint()).isEqualTo(4);
        assertThat(ledger.committable()).isEqualTo(OptionalLong.of(4));
    }
}
