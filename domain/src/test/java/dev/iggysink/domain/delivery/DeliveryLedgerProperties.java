package dev.iggysink.domain.delivery;

import static dev.iggysink.domain.Seeded.longBetween;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.domain.Seeded;
import dev.iggysink.domain.buffer.SealedFile;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.RotationReason;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The ledger driven the way the partition writer drives it — records routed to up to three interleaved open files
 * (or one, the default), seals for size, record time, schedule, the open-file limit, flush and shutdown, one-record
 * dead-letter files, uploads finishing in any order and failing before they succeed, commits that land or fail, and
 * revocation followed by a restart from the group's offset — checked after every step against a model that knows
 * every offset's file. The model's commit point is stated as what it means, not as the ledger computes it: the
 * largest offset p such that every file holding an offset up to p is durable and holds nothing past p (a replay
 * from p + 1 then rebuilds exactly the files that are not yet stored).
 */
class DeliveryLedgerProperties {
    private static final PartitionRef P = new PartitionRef("s", "t", 0);

    /** A file of the model: its offsets, its directory (while open) and how far its upload got. */
    private static final class ModelFile {
        final String directory;
        final List<Long> offsets = new ArrayList<>();
        FileState state = FileState.OPEN;
        SealedFile sealed;

        ModelFile(String directory) {
            this.directory = directory;
        }

        long first() {
            return offsets.get(0);
        }

        long last() {
            return offsets.get(offsets.size() - 1);
        }
    }

    /** The writer's side: the ledger, the open files by directory (oldest first) and every file since the start. */
    private static final class Writer {
        final Random random;
        final int maxOpenFiles;
        DeliveryLedger ledger;
        final Map<String, ModelFile> open = new LinkedHashMap<>();
        final TreeMap<Long, ModelFile> files = new TreeMap<>();
        long next;
        long lastCommitted;

        Writer(Random random, int maxOpenFiles, long committed) {
            this.random = random;
            this.maxOpenFiles = maxOpenFiles;
            start(committed);
        }

        void start(long committed) {
            ledger = new DeliveryLedger(P, committed);
            open.clear();
            files.clear();
            next = committed + 1;
            lastCommitted = committed;
        }

        /** One record, as PartitionWriter.append does: route, seal before, open (sealing the oldest), seal after. */
        void record() {
            long offset = next + (random.nextInt(20) == 0 ? 1 + random.nextInt(3) : 0); // retention may leave gaps
            String directory = maxOpenFiles == 1 ? "d" : "d" + random.nextInt(4);
            ModelFile file = maxOpenFiles == 1 ? open.values().stream().findFirst().orElse(null) : open.get(directory);
            if (file != null && random.nextInt(20) == 0) {
                seal(file, RotationReason.RECORD_TIME);
                file = null;
            }
            if (file == null) {
                if (open.size() >= maxOpenFiles) {
                    seal(open.values().iterator().next(),
                            maxOpenFiles == 1 ? RotationReason.PATH_CHANGE : RotationReason.OPEN_FILE_LIMIT);
                }
                file = new ModelFile(directory);
                open.put(directory, file);
            }
            if (file.offsets.isEmpty()) {
                ledger.opened(offset);
                files.put(offset, file);
            }
            file.offsets.add(offset);
            ledger.read(offset);
            next = offset + 1;
            if (random.nextInt(8) == 0) seal(file, random.nextBoolean() ? RotationReason.SIZE : RotationReason.COUNT);
        }

        /** A bad record under errors_tolerance = all: a one-record file, sealed at once. */
        void deadLetter() {
            long offset = next;
            ModelFile file = new ModelFile("dlq");
            file.offsets.add(offset);
            ledger.opened(offset);
            ledger.read(offset);
            files.put(offset, file);
            next = offset + 1;
            sealFile(file, RotationReason.DEAD_LETTER);
        }

        void seal(ModelFile file, RotationReason reason) {
            open.remove(file.directory);
            sealFile(file, reason);
        }

        private void sealFile(ModelFile file, RotationReason reason) {
            file.sealed = new SealedFile(P, "k" + file.first(), file.first(), file.last(), file.offsets.size(),
                    file.offsets.size() * 10L, 0, reason);
            ledger.sealed(file.sealed);
            file.state = FileState.PENDING;
        }

        /** An upload result for any file in flight: uploads finish in any order and may fail before they succeed. */
        void uploadFinished() {
            List<ModelFile> inFlight = files.values().stream()
                    .filter(f -> f.state == FileState.PENDING || f.state == FileState.FAILED).toList();
            if (inFlight.isEmpty()) return;
            ModelFile file = inFlight.get(random.nextInt(inFlight.size()));
            if (random.nextInt(4) == 0) {
                ledger.failed(file.first());
                file.state = FileState.FAILED;
            } else {
                ledger.durable(file.first());
                file.state = FileState.DURABLE;
            }
        }

        /** The consumer's commit turn: commit what is committable; the commit may fail and is tried again later. */
        void commitTurn() {
            OptionalLong committable = ledger.committable();
            if (committable.isEmpty()) return;
            long c = committable.getAsLong();
            assertThat(c).as("commits only grow").isGreaterThan(lastCommitted);
            assertThatThrownBy(() -> ledger.committed(c + 1 + random.nextInt(3)))
                    .isInstanceOf(IllegalArgumentException.class);
            if (random.nextInt(5) == 0) return; // the store refused the commit
            ledger.committed(c);
            lastCommitted = c;
            // files wholly at or below the commit are settled: no later step can depend on them
            files.values().removeIf(f -> f.state == FileState.DURABLE && f.last() <= c);
        }

        /** The partition moved away, or came back: forget everything and restart from the group's stored offset. */
        void revokeAndRestart() {
            ledger.revoke();
            assertThat(ledger.committable()).isEmpty();
            assertThat(ledger.notDurable()).isEmpty();
            if (!files.isEmpty()) ledger.durable(files.firstKey()); // a late upload result is ignored
            start(lastCommitted + (random.nextBoolean() ? 0 : random.nextInt(5))); // another member may have gone on
        }
    }

    @Test
    void the_commit_point_is_the_longest_replay_safe_durable_prefix() {
        Seeded.check(400, r -> {
            Writer w = new Writer(r, r.nextBoolean() ? 3 : 1, longBetween(r, -1, 1000));
            int steps = 1 + r.nextInt(250);
            StringBuilder trace = new StringBuilder("max open files " + w.maxOpenFiles + ":");
            for (int i = 0; i < steps; i++) {
                int step = r.nextInt(100);
                String name;
                if (step < 45) {
                    name = "record";
                    w.record();
                } else if (step < 50) {
                    name = "dead-letter";
                    w.deadLetter();
                } else if (step < 57) {
                    name = "schedule";
                    if (!w.open.isEmpty()) {
                        List<ModelFile> open = new ArrayList<>(w.open.values());
                        w.seal(open.get(r.nextInt(open.size())), RotationReason.SCHEDULE);
                    }
                } else if (step < 60) {
                    name = "flush";
                    for (ModelFile f : new ArrayList<>(w.open.values())) w.seal(f, RotationReason.FLUSH);
                } else if (step < 82) {
                    name = "upload";
                    w.uploadFinished();
                } else if (step < 97) {
                    name = "commit";
                    w.commitTurn();
                } else {
                    name = "revoke";
                    w.revokeAndRestart();
                }
                trace.append(' ').append(name);
                if (trace.length() > 4000) trace.delete(0, trace.length() - 4000);
                checkAgainstModel(w, trace);
            }
        });
    }

    private static void checkAgainstModel(Writer w, StringBuilder trace) {
        DeliveryLedger ledger = w.ledger;
        long point = replaySafePoint(w);
        expect("position", ledger.position(), w.next, trace);
        expect("commit point", ledger.commitPoint(), point, trace);
        expect("last commit", ledger.lastCommitted(), w.lastCommitted, trace);
        expect("committable", ledger.committable(),
                point > w.lastCommitted ? OptionalLong.of(point) : OptionalLong.empty(), trace);
        List<SealedFile> notDurable = new ArrayList<>();
        for (ModelFile f : w.files.values()) {
            if (f.state == FileState.DURABLE) continue;
            expect("state of the file at " + f.first(), ledger.state(f.first()), f.state, trace);
            if (f.sealed != null) notDurable.add(f.sealed);
        }
        expect("files not durable", ledger.notDurable(), notDurable, trace);
    }

    // Plain comparisons: this runs after every step of every try.
    private static void expect(String what, Object actual, Object expected, StringBuilder trace) {
        if (!actual.equals(expected)) {
            throw new AssertionError(what + " is " + actual + ", the model says " + expected + " after " + trace);
        }
    }

    /**
     * The largest p in [last commit, next - 1] such that every file with an offset at or below p is durable and
     * ends at or below p. Only p = next - 1 and p = (a file's first offset) - 1 need trying: past any other valid p,
     * p + 1 is valid too.
     */
    private static long replaySafePoint(Writer w) {
        List<Long> candidates = new ArrayList<>();
        candidates.add(w.next - 1);
        for (long first : w.files.descendingKeySet()) candidates.add(first - 1);
        for (long p : candidates) {
            if (p < w.lastCommitted) break;
            boolean safe = true;
            for (ModelFile f : w.files.values()) {
                if (f.first() > p) break;
                if (f.state != FileState.DURABLE || f.last() > p) {
                    safe = false;
                    break;
                }
            }
            if (safe) return p;
        }
        throw new AssertionError("no replay-safe point at or above the last commit " + w.lastCommitted);
    }
}
