package dev.iggysink.application.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryTables;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two members of one consumer group write two partitions into two tables (static fan-out) through random
 * interleavings of what the table commit protocol must survive: records arriving (some that fit no schema), partitions
 * moving between the members without either noticing at once, commits racing (one member's commit slipped into the
 * other's), commits that land but answer with a timeout, snapshots by other writers, failed stagings, failed group
 * commits, kills (a member vanishes with staged files) and graceful stops. Afterwards one member runs alone until it
 * caught up; every offset that fits must then be in exactly one committed data file of each table, every other one
 * in exactly one dead letter (some of whose writes fail), and the group's offset at the partition's end. Each seed
 * is one interleaving; a failure names its seed.
 */
class TableMembersModelTest {
    private static final String A = "lake.a";
    private static final String B = "lake.b";
    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final int STEPS = 80;

    static List<Long> seeds() {
        List<Long> seeds = new ArrayList<>();
        for (long s = 1; s <= 40; s++) seeds.add(s * 7919);
        return seeds;
    }

    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:02:31Z"));
    private final InMemoryTables tables = new InMemoryTables();
    /** Whether the members' polls go ahead (sent while the previous partition's records are appended): every other
     * seed. */
    private boolean pollsAhead;

    private final class Member {
        ScriptedMessageSource source;
        TableConsumer consumer;

        Member(ScriptedMessageSource source) {
            start(source);
        }

        void start(ScriptedMessageSource s) {
            source = pollsAhead ? s.pollWithoutWaiting() : s;
            TableSettings settings = new TableSettings(TableRouting.fixed(A, B), RotationPolicy.byCount(3), INTERVAL,
                    3, 4, ErrorTolerance.ALL);
            consumer = new TableConsumer(s, new LinesCodec(), tables, settings, clock, new SinkMetrics() { },
                    new TableTally());
        }

        void step() {
            if (consumer == null) return;
            try {
                consumer.step();
            } catch (SourceException e) {
                // the runner backs off and steps again
                if (!e.retryable()) throw new IllegalStateException(e);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void every_offset_ends_up_in_exactly_one_data_file_of_each_table(long seed) throws SourceException {
        Random random = new Random(seed);
        pollsAhead = seed % 2 == 0;
        ScriptedMessageSource topic = new ScriptedMessageSource("app", "events", 2);
        Member[] members = {new Member(topic), new Member(topic.newMember())};
        List<String> log = new ArrayList<>();
        Map<Integer, List<Long>> unfit = new HashMap<>();
        int[] counts = new int[2];
        for (int step = 0; step < STEPS; step++) {
            int m = random.nextInt(2);
            Member member = members[m];
            Member other = members[1 - m];
            int action = random.nextInt(100);
            if (action < 25) {
                int p = random.nextInt(2);
                int n = 1 + random.nextInt(5);
                counts[p] += n;
                topic.append(p, n, i -> {
                    if (random.nextInt(12) == 0) {
                        unfit.computeIfAbsent(p, k -> new ArrayList<>()).add((long) i);
                        return "NOFIT n=" + i;
                    }
                    return "n=" + i;
                });
                log.add("append " + n + " to " + p);
            } else if (action < 55) {
                member.step();
                log.add("step " + m);
            } else if (action < 63) {
                clock.advance(INTERVAL.dividedBy(1 + random.nextInt(3)));
                log.add("clock");
            } else if (action < 71 && member.consumer != null && other.consumer != null) {
                // the partition moves; neither member hears of it until its next poll
                int p = random.nextInt(2);
                member.source.own(p, false);
                other.source.own(p, true);
                log.add("move " + p + " to " + (1 - m));
            } else if (action < 76 && other.consumer != null) {
                Member racer = other;
                tables.beforeNextSwap(racer::step);
                member.step();
                // a race the step did not commit into is not kept for a later commit: the racer's own commit would
                // run it inside itself, a re-entry its single loop thread cannot make
                tables.noSwapPending();
                log.add("step " + m + " with " + (1 - m) + " racing");
            } else if (action < 80) {
                tables.nextCommitLandsThenTimesOut();
                log.add("next commit times out");
            } else if (action < 83) {
                tables.foreignSnapshot(random.nextBoolean() ? A : B);
                log.add("foreign snapshot");
            } else if (action < 86) {
                tables.failNextStages(1 + random.nextInt(2));
                tables.failNextDeadLetter(new StoreException("PUT: 503 Slow Down", true, 503, null, null));
                log.add("stages and a dead letter fail");
            } else if (action < 89 && member.consumer != null) {
                member.source.failCommits(new SourceException("connection reset", true));
                member.step();
                log.add("group commit of " + m + " fails");
            } else if (action < 93 && member.consumer != null) {
                // killed: nothing is drained, staged files stay behind
                member.consumer = null;
                member.source.close();
                log.add("kill " + m);
            } else if (action < 96 && member.consumer != null) {
                member.consumer.drain();
                member.consumer.abandon();
                member.consumer = null;
                member.source.close();
                log.add("stop " + m);
            } else if (member.consumer == null) {
                member.start(topic.newMember());
                log.add("restart " + m);
            }
        }

        // One member runs alone until it caught up.
        for (Member member : members) {
            if (member.consumer != null) {
                member.consumer.abandon();
                member.source.close();
                member.consumer = null;
            }
        }
        Member last = new Member(topic.newMember());
        for (int p = 0; p < 2; p++) last.source.own(p, true);
        for (int i = 0; i < 50; i++) {
            last.step();
            clock.advance(INTERVAL);
        }
        last.consumer.drain();

        for (int p = 0; p < 2; p++) {
            int size = counts[p];
            assertThat(topic.stored(p)).as("seed %d: group offset of %d; %s", seed, p, log)
                    .isEqualTo(size == 0 ? OptionalLong.empty() : OptionalLong.of(size - 1));
            List<Long> expected = new ArrayList<>();
            for (long o = 0; o < size; o++) if (!unfit.getOrDefault(p, List.of()).contains(o)) expected.add(o);
            for (String table : List.of(A, B)) {
                List<Long> got = new ArrayList<>();
                for (InMemoryTables.DataFile f : tables.committed(table)) {
                    if (f.partition().partitionId() == p) got.addAll(f.offsets());
                }
                got.sort(Long::compare);
                assertThat(got).as("seed %d: offsets of partition %d in %s; %s", seed, p, table, log)
                        .isEqualTo(expected);
            }
            List<Long> lettered = new ArrayList<>();
            for (String key : tables.deadLetters().keySet()) {
                if (key.startsWith(String.format("_dlq/app/events/%05d-", p))) {
                    lettered.add(Long.parseLong(key.substring(key.lastIndexOf('-') + 1, key.indexOf(".json"))));
                }
            }
            assertThat(lettered).as("seed %d: dead letters of partition %d; %s", seed, p, log)
                    .isEqualTo(unfit.getOrDefault(p, List.of()));
        }
    }
}
