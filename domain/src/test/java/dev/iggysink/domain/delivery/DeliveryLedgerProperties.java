package dev.iggysink.domain.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.domain.buffer.SealedFile;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.RotationReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * Random interleavings of what a partition writer does, checked against a model that knows every offset's file:
 * the commit point is exactly one before the smallest read offset that is not durable, and commits only grow.
 */
class DeliveryLedgerProperties {
    private static final PartitionRef P = new PartitionRef("s", "t", 0);

    private static final class ModelFile {
        final long first;
        final List<Long> offsets = new ArrayList<>();
        FileState state = FileState.OPEN;
        SealedFile sealed;

        ModelFile(long first) {
            this.first = first;
        }
    }

    @Property(tries = 400)
    void never_commits_past_a_file_that_is_not_durable(
            @ForAll @Size(min = 1, max = 250) List<@IntRange(min = 0, max = 99) Integer> steps,
            @ForAll long seed, @ForAll @LongRange(min = -1, max = 1000) long committedAtStart) {
        Random random = new Random(seed);
        DeliveryLedger ledger = new DeliveryLedger(P, committedAtStart);
        TreeMap<Long, ModelFile> files = new TreeMap<>();
        long next = committedAtStart + 1;
        long lastCommitted = committedAtStart;

        for (int step : steps) {
            List<ModelFile> open = files.values().stream().filter(f -> f.state == FileState.OPEN).toList();
            List<ModelFile> sealed = files.values().stream()
                    .filter(f -> f.state != FileState.OPEN && f.state != FileState.DURABLE).toList();
            if (step < 35) { // read one record, into an open file or a new one (at most 3 open)
                long offset = next + (random.nextInt(4) == 0 ? random.nextInt(3) : 0);
                ledger.read(offset);
                next = offset + 1;
                ModelFile target;
                if (open.isEmpty() || (open.size() < 3 && random.nextInt(4) == 0)) {
                    target = new ModelFile(offset);
                    files.put(offset, target);
                    ledger.opened(offset);
                } else {
                    target = open.get(random.nextInt(open.size()));
                }
                target.offsets.add(offset);
            } else if (step < 45) { // a dead-lettered record: a one-record file
                long offset = next;
                ledger.read(offset);
                next = offset + 1;
                ModelFile dlq = new ModelFile(offset);
                dlq.offsets.add(offset);
                files.put(offset, dlq);
                ledger.opened(offset);
                seal(ledger, dlq, RotationReason.FLUSH);
            } else if (step < 55) {
                if (!open.isEmpty()) seal(ledger, open.get(random.nextInt(open.size())), RotationReason.SIZE);
            } else if (step < 62) {
                if (!sealed.isEmpty()) {
                    ModelFile f = sealed.get(random.nextInt(sealed.size()));
                    ledger.uploading(f.first);
                    f.state = FileState.UPLOADING;
                }
            } else if (step < 75) {
                if (!sealed.isEmpty()) {
                    ModelFile f = sealed.get(random.nextInt(sealed.size()));
                    ledger.durable(f.first);
                    f.state = FileState.DURABLE;
                }
            } else if (step < 80) {
                if (!sealed.isEmpty()) {
                    ModelFile f = sealed.get(random.nextInt(sealed.size()));
                    ledger.failed(f.first);
                    f.state = FileState.FAILED;
                }
            } else if (step < 92) { // the writer commits what it may, sometimes tries too far or too little
                var committable = ledger.committable();
                if (committable.isPresent()) {
                    long c = committable.getAsLong();
                    assertThat(c).isGreaterThan(lastCommitted);
                    long tooFar = c + 1 + random.nextInt(3);
                    assertThatThrownBy(() -> ledger.committed(tooFar)).isInstanceOf(IllegalArgumentException.class);
                    long chosen = random.nextBoolean() ? c : lastCommitted + 1 + random.nextLong(c - lastCommitted);
                    ledger.committed(chosen);
                    lastCommitted = chosen;
                }
                ledger.committed(lastCommitted - random.nextInt(3)); // stale acknowledgements are ignored
            } else if (step < 96) { // reconnect: restart from the durable prefix
                long restart = ledger.rewind();
                files.values().removeIf(f -> f.offsets.stream().anyMatch(o -> o >= restart));
                next = restart;
            } else if (!open.isEmpty()) { // discard the oldest open file (always allowed when nothing overlaps it)
                ModelFile oldest = open.get(0);
                boolean overlapped = files.headMap(oldest.first, false).values().stream()
                        .anyMatch(f -> f.offsets.get(f.offsets.size() - 1) >= oldest.first);
                if (overlapped) {
                    assertThatThrownBy(() -> ledger.discardOpen(oldest.first))
                            .isInstanceOf(IllegalStateException.class);
                } else {
                    ledger.discardOpen(oldest.first);
                    files.tailMap(oldest.first, true).clear();
                    next = Math.min(next, oldest.first);
                }
            }
            checkAgainstModel(ledger, files, next, lastCommitted);
        }
    }

    private static void seal(DeliveryLedger ledger, ModelFile f, RotationReason reason) {
        if (f.offsets.isEmpty()) return; // opened but not yet filled: the writer never seals an empty file
        f.sealed = new SealedFile(P, "k" + f.first, f.first, f.offsets.get(f.offsets.size() - 1), f.offsets.size(),
                f.offsets.size() * 10L, 0, reason);
        ledger.sealed(f.sealed);
        f.state = FileState.PENDING;
    }

    private static void checkAgainstModel(DeliveryLedger ledger, TreeMap<Long, ModelFile> files, long next,
                                          long lastCommitted) {
        long smallestNotDurable = next;
        for (ModelFile f : files.values()) {
            if (f.state != FileState.DURABLE) {
                for (long o : f.offsets) smallestNotDurable = Math.min(smallestNotDurable, o);
                smallestNotDurable = Math.min(smallestNotDurable, f.first);
            }
        }
        // Replay-safe: no durable file may straddle the commit point (the sink re-reads from just after it).
        long point = smallestNotDurable - 1;
        for (boolean lowered = true; lowered; ) {
            lowered = false;
            for (ModelFile f : files.values()) {
                long last = f.offsets.isEmpty() ? f.first : f.offsets.get(f.offsets.size() - 1);
                if (f.state == FileState.DURABLE && f.first <= point && last > point) {
                    point = f.first - 1;
                    lowered = true;
                }
            }
        }
        assertThat(ledger.position()).isEqualTo(next);
        assertThat(ledger.commitPoint()).isEqualTo(point);
        assertThat(ledger.lastCommitted()).isEqualTo(lastCommitted).isLessThanOrEqualTo(ledger.commitPoint());
        for (ModelFile f : files.values()) {
            if (f.state == FileState.DURABLE) {
                if (ledger.isTracked(f.first)) assertThat(ledger.state(f.first)).isEqualTo(FileState.DURABLE);
            } else {
                assertThat(ledger.state(f.first)).isEqualTo(f.state);
                assertThat(f.first).isGreaterThan(ledger.lastCommitted());
            }
        }
        assertThat(ledger.notDurable()).containsExactlyElementsOf(files.values().stream()
                .filter(f -> f.sealed != null && f.state != FileState.DURABLE).map(f -> f.sealed).toList());
        assertThat(ledger.bufferedFiles())
                .isEqualTo(files.values().stream().filter(f -> f.state != FileState.DURABLE).count());
    }
}
