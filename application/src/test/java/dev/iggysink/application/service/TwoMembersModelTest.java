package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.KeyLayout;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.naming.ObjectKey;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two members of one consumer group write one partition through random interleavings of what the delivery protocol
 * must survive: records arriving, flushes (cuts a replay does not repeat), the partition moving between the members
 * while uploads and claims are held in flight (and land late), graceful stops, kills (uploads abandoned while a held
 * PUT is still under way), commit failures and restarts. Afterwards one member drains the partition alone; every
 * offset must then be committed and in exactly one object. Each seed is one interleaving; a failure names its seed.
 */
class TwoMembersModelTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int STEPS = 60;

    static List<Long> seeds() {
        List<Long> seeds = new ArrayList<>();
        for (long s = 1; s <= 24; s++) seeds.add(s * 7919);
        return seeds;
    }

    /**
     * One member: its place in the group, its way to the shared store (whose writes can be held: a slow PUT or
     * claim of this member that lands late), and the sink running on it (null when stopped).
     */
    private static final class Member {
        final ScriptedMessageSource source;
        final HeldStore store;
        SinkService sink;
        CompletableFuture<Void> stopping = CompletableFuture.completedFuture(null);

        Member(ScriptedMessageSource source, InMemoryObjectStore shared) {
            this.source = source;
            this.store = new HeldStore(shared);
        }
    }

    /**
     * The shared store as one member reaches it: while held, its puts and creates wait (and land when released), or
     * its data PUTs alone (a claim answered, then its file's PUT slow).
     */
    private static final class HeldStore extends ForwardingObjectStore {
        private volatile java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(0);
        private volatile boolean createsPass;

        HeldStore(InMemoryObjectStore shared) {
            super(shared);
        }

        void hold() {
            hold(false);
        }

        void hold(boolean putsOnly) {
            if (gate.getCount() != 0) return;
            createsPass = putsOnly;
            gate = new java.util.concurrent.CountDownLatch(1);
        }

        void release() {
            gate.countDown();
        }

        private void pass() {
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void put(String key, FileBytes content, String contentType, Map<String, String> metadata)
                throws StoreException {
            pass();
            super.put(key, content, contentType, metadata);
        }

        @Override
        public boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException {
            if (!createsPass) pass();
            return super.create(key, content, metadata);
        }

        @Override
        public boolean create(String key, FileBytes content, String contentType, Map<String, String> metadata)
                throws StoreException {
            if (!createsPass) pass();
            return super.create(key, content, contentType, metadata);
        }

        @Override
        public void close() {
            // the shared store outlives each member
        }
    }

    private final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");

    private SinkSettings settings(long count) {
        SinkSettings base = TestSettings.countRotation(stream, count);
        return new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(), base.output(),
                base.rotation(), base.retry(),
                new DeliverySettings(64L << 20, ErrorTolerance.NONE, "_dlq", Duration.ofMillis(400), 4),
                base.transforms());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void every_offset_ends_in_exactly_one_object(long seed) throws Exception {
        Random random = new Random(seed);
        InMemoryObjectStore store = new InMemoryObjectStore();
        ScriptedMessageSource group = new ScriptedMessageSource("application_logs", "api_requests", 1);
        SinkSettings settings = settings(random.nextBoolean() ? 7 : 1000);
        List<Member> members = new ArrayList<>();
        members.add(new Member(group, store));
        members.add(new Member(group.newMember(), store));
        group.own(0, true);
        members.get(1).source.own(0, false);
        int appended = 0;
        for (Member m : members) m.sink = start(settings, m.source, m.store);
        try {
            for (int step = 0; step < STEPS; step++) {
                double r = random.nextDouble();
                Member m = members.get(random.nextInt(2));
                Member other = members.get(0) == m ? members.get(1) : members.get(0);
                if (r < 0.25) {
                    int n = 1 + random.nextInt(30);
                    group.append(0, n, i -> "r" + i);
                    appended += n;
                } else if (r < 0.35) {
                    if (m.sink != null) m.sink.flush();
                } else if (r < 0.5) {
                    // The partition moves; the old owner learns it at its next poll or commit.
                    boolean mine = m.source.ownedPartitions().contains(0);
                    (mine ? m : other).source.own(0, false);
                    (mine ? other : m).source.own(0, true);
                } else if (r < 0.6) {
                    m.store.hold();
                } else if (r < 0.7) {
                    m.store.release();
                } else if (r < 0.8) {
                    if (m.sink != null) stop(m, random.nextBoolean());
                } else if (r < 0.87) {
                    if (m.sink == null && m.stopping.isDone()) m.sink = start(settings, m.source, m.store);
                } else if (r < 0.9) {
                    m.source.failCommits(new SourceException("commit timed out", true));
                } else {
                    if (members.stream().allMatch(x -> x.sink == null) && m.stopping.isDone()) {
                        m.sink = start(settings, m.source, m.store);
                    }
                }
                Thread.sleep(random.nextInt(25));
            }
        } finally {
            for (Member m : members) if (m.sink != null) stop(m, random.nextBoolean());
            // Held writes land late, after the partition has moved on.
            Thread.sleep(random.nextInt(50));
            for (Member m : members) m.store.release();
            for (Member m : members) m.stopping.get();
        }

        // One member drains the partition alone.
        members.get(1).source.own(0, false);
        group.own(0, true);
        int total = appended;
        SinkService last = start(settings, group, store);
        try {
            await().atMost(WAIT).until(() -> {
                PartitionStatus p = last.status().partitions().stream().findFirst().orElse(null);
                return p != null && (p.halted() || p.position() == total && p.pendingFiles() == 0);
            });
            assertThat(last.status().reasons()).as("seed %d", seed).isEmpty();
        } finally {
            last.stop();
        }
        assertThat(group.stored(0).orElse(-1)).as("seed %d: committed", seed).isEqualTo(total - 1L);
        Map<Long, Integer> copies = coverage(store);
        assertThat(copies).as("seed %d: offsets in objects", seed).hasSize(total);
        assertThat(copies).as("seed %d: every offset in exactly one object; objects %s", seed,
                store.objects().keySet()).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
        assertThat(group.backwardStores()).as("seed %d", seed).isEmpty();
    }

    /** A budget that holds about 30 records of {@link #TIGHT_PAYLOAD}, a tenth of what a roomy member may cut. */
    private static final long TIGHT_BUDGET = 3_000;
    private static final String TIGHT_PAYLOAD = "x".repeat(96);

    private SinkSettings settings(long count, long maxBufferedBytes) {
        SinkSettings base = settings(count);
        return new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(), base.output(),
                base.rotation(), base.retry(),
                new DeliverySettings(maxBufferedBytes, ErrorTolerance.NONE, "_dlq", Duration.ofMillis(400), 4),
                base.transforms());
    }

    /**
     * As {@link #every_offset_ends_in_exactly_one_object}, with three partitions that move one at a time and members
     * that each start with a roomy or a tight memory budget: a roomy member cuts files (flush, stop) that a tight one
     * must then cut the same way when they were claimed. Afterwards a member with the tight budget drains every
     * partition alone: each interleaving must make progress to the end, with every offset in exactly one object.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void every_offset_ends_in_exactly_one_object_under_a_tight_memory_budget(long seed) throws Exception {
        Random random = new Random(seed);
        runMovingPartitionsUnderBudgets(seed, random, random.nextBoolean() ? 7 : 1000, false, KeyLayout.OFFSETS);
    }

    /**
     * As {@link #every_offset_ends_in_exactly_one_object_under_a_tight_memory_budget}, with a count between what a
     * tight member can hold and what a roomy one holds: a roomy old owner's count cut, its PUT held in flight, meets
     * the new tight owner's memory cut at the same start. A count cut is no free choice of its member only when
     * every member can reach it; this is the interleaving where one cannot, so even count cuts must be claimed.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void a_count_cut_in_flight_meets_a_memory_cut_at_the_same_start(long seed) throws Exception {
        Random random = new Random(seed);
        runMovingPartitionsUnderBudgets(seed, random, COUNT_PAST_TIGHT, true, KeyLayout.OFFSETS);
    }

    /**
     * The interleavings of {@link #every_offset_ends_in_exactly_one_object_under_a_tight_memory_budget} and of
     * {@link #a_count_cut_in_flight_meets_a_memory_cut_at_the_same_start} under the first-offset key layout, where no
     * claim is written: the data PUT itself is conditional (ADR 0019).
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void first_offset_keys_write_every_offset_exactly_once(long seed) throws Exception {
        Random random = new Random(seed);
        boolean countPastTight = seed % 2 == 0;
        runMovingPartitionsUnderBudgets(seed, random, countPastTight ? COUNT_PAST_TIGHT : random.nextBoolean() ? 7 : 1000,
                countPastTight, KeyLayout.FIRST_OFFSET);
    }

    /** More records than {@link #TIGHT_BUDGET} holds of {@link #TIGHT_PAYLOAD}, far fewer than a roomy budget. */
    private static final long COUNT_PAST_TIGHT = 45;

    /** @param fixedBudgets the first member always roomy and the second always tight, instead of drawn at each start */
    private void runMovingPartitionsUnderBudgets(long seed, Random random, long count, boolean fixedBudgets,
                                                 KeyLayout layout) throws Exception {
        runMovingPartitionsUnderBudgets(seed, random, count, fixedBudgets, layout, 40);
    }

    /**
     * The interleavings of {@link #a_count_cut_in_flight_meets_a_memory_cut_at_the_same_start} with appends of up to
     * 200 records: a member's count cut then often finds the records of the next files in the partition already, and
     * claims them with it as a run (docs/adr/0020-run-claims.md). A new owner arriving inside a run, whose tight budget
     * would cut elsewhere, must cut where the run does while the old owner's PUTs of the run's files are held.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void run_claims_decide_the_cuts_of_files_whose_records_were_there(long seed) throws Exception {
        Random random = new Random(seed);
        runMovingPartitionsUnderBudgets(seed, random, COUNT_PAST_TIGHT, true, KeyLayout.OFFSETS, 200);
    }

    /**
     * The interleavings of {@link #run_claims_decide_the_cuts_of_files_whose_records_were_there} under a size
     * rotation, with payloads of 40 to 159 bytes (so files of one size hold different numbers of records) and members
     * of different size limits: a size cut claimed while the next records are there makes a run of size cuts
     * (docs/adr/0022-run-claims-of-size-cuts.md), which the other member, whatever its own limit and budget, must cut
     * by the run's limit while the maker's PUTs of the run's files are held.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void run_claims_of_size_cuts_decide_the_cuts_of_files_whose_records_were_there(long seed) throws Exception {
        Random random = new Random(seed);
        runMovingPartitionsUnderBudgets(seed, random, false, KeyLayout.OFFSETS, 200,
                (member, budget) -> sizeSettings(member == 0 ? 4_500 : 3_200, budget),
                i -> "x".repeat(40 + (i * 37) % 120), true);
    }

    private SinkSettings sizeSettings(long size, long maxBufferedBytes) {
        SinkSettings base = TestSettings.sink(stream, dev.iggysink.application.settings.RotationSettings.size(size),
                ErrorTolerance.NONE, maxBufferedBytes, Duration.ofMillis(400));
        return new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(), base.output(),
                base.rotation(), base.retry(), base.delivery(), base.transforms());
    }

    /** @param maxAppend the most records one step appends to a partition */
    private void runMovingPartitionsUnderBudgets(long seed, Random random, long count, boolean fixedBudgets,
                                                 KeyLayout layout, int maxAppend) throws Exception {
        runMovingPartitionsUnderBudgets(seed, random, fixedBudgets, layout, maxAppend,
                (member, budget) -> settings(count, budget, layout), i -> TIGHT_PAYLOAD, false);
    }

    /**
     * @param settings the settings of member 0 or 1 (2: the member that drains at the end) under a budget
     * @param payload  the payload of the record at an offset
     * @param putsApart whether a hold may hold a member's data PUTs alone, its claims answered
     */
    private void runMovingPartitionsUnderBudgets(long seed, Random random, boolean fixedBudgets, KeyLayout layout,
                                                 int maxAppend,
                                                 java.util.function.BiFunction<Integer, Long, SinkSettings> settings,
                                                 java.util.function.IntFunction<String> payload, boolean putsApart)
            throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        int partitions = 3;
        ScriptedMessageSource group = new ScriptedMessageSource("application_logs", "api_requests", partitions);
        List<Member> members = new ArrayList<>();
        members.add(new Member(group, store));
        members.add(new Member(group.newMember(), store));
        for (int p = 0; p < partitions; p++) {
            boolean first = random.nextBoolean();
            members.get(0).source.own(p, first);
            members.get(1).source.own(p, !first);
        }
        int[] appended = new int[partitions];
        for (Member m : members) {
            m.sink = start(settings.apply(members.indexOf(m), fixedBudgets ? fixedBudget(members, m) : budget(random)),
                    m.source, m.store);
        }
        try {
            for (int step = 0; step < STEPS; step++) {
                double r = random.nextDouble();
                Member m = members.get(random.nextInt(2));
                Member other = members.get(0) == m ? members.get(1) : members.get(0);
                int p = random.nextInt(partitions);
                if (r < 0.3) {
                    int n = 1 + random.nextInt(maxAppend);
                    group.append(p, n, payload);
                    appended[p] += n;
                } else if (r < 0.4) {
                    if (m.sink != null) m.sink.flush();
                } else if (r < 0.55) {
                    boolean mine = m.source.ownedPartitions().contains(p);
                    (mine ? m : other).source.own(p, false);
                    (mine ? other : m).source.own(p, true);
                } else if (r < 0.63) {
                    m.store.hold(putsApart && random.nextBoolean());
                } else if (r < 0.71) {
                    m.store.release();
                } else if (r < 0.8) {
                    if (m.sink != null) stop(m, random.nextBoolean());
                } else if (r < 0.9) {
                    if (m.sink == null && m.stopping.isDone()) {
                        long budget = fixedBudgets ? fixedBudget(members, m) : budget(random);
                        m.sink = start(settings.apply(members.indexOf(m), budget), m.source, m.store);
                    }
                } else {
                    m.source.failCommits(new SourceException("commit timed out", true));
                }
                Thread.sleep(random.nextInt(25));
            }
        } finally {
            for (Member m : members) if (m.sink != null) stop(m, random.nextBoolean());
            Thread.sleep(random.nextInt(50));
            for (Member m : members) m.store.release();
            for (Member m : members) m.stopping.get();
        }

        // A member with the tight budget drains every partition alone.
        for (int p = 0; p < partitions; p++) {
            members.get(1).source.own(p, false);
            group.own(p, true);
        }
        SinkService last = start(settings.apply(2, TIGHT_BUDGET), group, store);
        try {
            await().atMost(WAIT).until(() -> {
                List<PartitionStatus> all = last.status().partitions();
                return all.size() == partitions && all.stream().allMatch(s -> s.halted()
                        || s.position() == appended[s.partition()] && s.pendingFiles() == 0);
            });
            assertThat(last.status().reasons()).as("seed %d", seed).isEmpty();
        } finally {
            last.stop();
        }
        Map<String, Integer> copies = new TreeMap<>();
        store.objects().forEach((key, bytes) -> {
            java.util.regex.Matcher k = DATA_FILE.matcher(key.substring(key.lastIndexOf('/') + 1));
            if (!k.matches()) return;
            for (long o : LinesCodec.offsets(bytes)) copies.merge(Integer.parseInt(k.group(1)) + ":" + o, 1, Integer::sum);
        });
        if (layout == KeyLayout.FIRST_OFFSET) assertThat(store.claims()).as("seed %d: claims", seed).isEmpty();
        for (int p = 0; p < partitions; p++) {
            assertThat(group.stored(p).orElse(-1)).as("seed %d: committed of partition %d", seed, p)
                    .isEqualTo(appended[p] - 1L);
        }
        assertThat(copies).as("seed %d: offsets in objects", seed).hasSize(java.util.Arrays.stream(appended).sum());
        assertThat(copies).as("seed %d: every offset in exactly one object; objects %s", seed,
                store.objects().keySet()).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
        assertThat(group.backwardStores()).as("seed %d", seed).isEmpty();
    }

    /** The file name of a data object under either key layout: its partition first. */
    private static final java.util.regex.Pattern DATA_FILE =
            java.util.regex.Pattern.compile("(\\d{5})-\\d{20}(?:-\\d{20})?\\.jsonl");

    private SinkSettings settings(long count, long maxBufferedBytes, KeyLayout layout) {
        return TestSettings.withKeyLayout(settings(count, maxBufferedBytes), layout);
    }

    private static long fixedBudget(List<Member> members, Member m) {
        return members.indexOf(m) == 0 ? 64L << 20 : TIGHT_BUDGET;
    }

    private static long budget(Random random) {
        return random.nextBoolean() ? TIGHT_BUDGET : 64L << 20;
    }

    private SinkService start(SinkSettings settings, ScriptedMessageSource source, ObjectStore store) {
        SinkService sink = new SinkService(settings, (s, t, g) -> source, s -> new LinesCodec(), store,
                InstantSource.system(), d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sink.start();
        return sink;
    }

    /** Stops in the background: a held upload may keep a stop waiting up to its timeout. */
    private static void stop(Member m, boolean kill) {
        SinkService sink = m.sink;
        m.sink = null;
        m.stopping = CompletableFuture.runAsync(() -> {
            try {
                if (kill) sink.hurryStop();
                sink.stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    private static Map<Long, Integer> coverage(InMemoryObjectStore store) {
        return coverage(store, "");
    }

    /** Offsets in the data objects whose keys start with {@code keysStart}, with how many objects hold each. */
    private static Map<Long, Integer> coverage(InMemoryObjectStore store, String keysStart) {
        Map<Long, Integer> seen = new TreeMap<>();
        store.objects().forEach((key, bytes) -> {
            if (!key.startsWith(keysStart) || ObjectKey.parse(key).isEmpty()) return;
            for (long o : LinesCodec.offsets(bytes)) seen.merge(o, 1, Integer::sum);
        });
        return seen;
    }

    /**
     * One sink of {@link #two_sinks_sharing_a_prefix_each_write_every_offset_exactly_once}: its consumer group (the
     * same records as the other sink's), its two members and its settings (another group, another path template).
     */
    private static final class Sink {
        final ScriptedMessageSource group = new ScriptedMessageSource("application_logs", "api_requests", 1);
        final List<Member> members = new ArrayList<>();
        final SinkSettings settings;
        final String keysStart;

        Sink(SinkSettings settings, InMemoryObjectStore shared, String keysStart) {
            this.settings = settings;
            this.keysStart = keysStart;
            members.add(new Member(group, shared));
            members.add(new Member(group.newMember(), shared));
            group.own(0, true);
            members.get(1).source.own(0, false);
        }
    }

    /**
     * Two sinks (other consumer groups, other path templates) archive one topic into one bucket under one prefix, so
     * their claims live side by side (issue 43, item 2). The same interleavings run on both at once; afterwards each
     * sink must hold every offset exactly once in its own objects.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void two_sinks_sharing_a_prefix_each_write_every_offset_exactly_once(long seed) throws Exception {
        Random random = new Random(seed);
        InMemoryObjectStore store = new InMemoryObjectStore();
        long count = random.nextBoolean() ? 7 : 1000;
        SinkSettings base = settings(count);
        StreamSettings otherGroup = new StreamSettings(stream.stream(), stream.topics(), stream.schema(),
                stream.batchLength(), stream.pollInterval(), "another-group", stream.avroSchemaJson());
        List<Sink> sinks = List.of(new Sink(base, store, "iggy/raw/application_logs/"),
                new Sink(new SinkSettings(base.key(), base.name(), true, 0, false, List.of(otherGroup),
                        OutputSettings.jsonLines(base.output().prefix(), "copy/{topic}"), base.rotation(),
                        base.retry(), base.delivery(), base.transforms()), store, "iggy/raw/copy/"));
        int appended = 0;
        for (Sink k : sinks) for (Member m : k.members) m.sink = start(k.settings, m.source, m.store);
        try {
            for (int step = 0; step < STEPS; step++) {
                double r = random.nextDouble();
                Sink k = sinks.get(random.nextInt(2));
                Member m = k.members.get(random.nextInt(2));
                Member other = k.members.get(0) == m ? k.members.get(1) : k.members.get(0);
                if (r < 0.25) {
                    int n = 1 + random.nextInt(30);
                    for (Sink each : sinks) each.group.append(0, n, i -> "r" + i);
                    appended += n;
                } else if (r < 0.35) {
                    if (m.sink != null) m.sink.flush();
                } else if (r < 0.5) {
                    boolean mine = m.source.ownedPartitions().contains(0);
                    (mine ? m : other).source.own(0, false);
                    (mine ? other : m).source.own(0, true);
                } else if (r < 0.6) {
                    m.store.hold();
                } else if (r < 0.7) {
                    m.store.release();
                } else if (r < 0.8) {
                    if (m.sink != null) stop(m, random.nextBoolean());
                } else if (r < 0.87) {
                    if (m.sink == null && m.stopping.isDone()) m.sink = start(k.settings, m.source, m.store);
                } else if (r < 0.9) {
                    m.source.failCommits(new SourceException("commit timed out", true));
                } else {
                    if (k.members.stream().allMatch(x -> x.sink == null) && m.stopping.isDone()) {
                        m.sink = start(k.settings, m.source, m.store);
                    }
                }
                Thread.sleep(random.nextInt(25));
            }
        } finally {
            for (Sink k : sinks) for (Member m : k.members) if (m.sink != null) stop(m, random.nextBoolean());
            Thread.sleep(random.nextInt(50));
            for (Sink k : sinks) for (Member m : k.members) m.store.release();
            for (Sink k : sinks) for (Member m : k.members) m.stopping.get();
        }

        // Each sink drains the partition with one member, both at once.
        List<SinkService> last = new ArrayList<>();
        for (Sink k : sinks) {
            k.members.get(1).source.own(0, false);
            k.group.own(0, true);
            last.add(start(k.settings, k.group, store));
        }
        int total = appended;
        try {
            for (SinkService s : last) {
                await().atMost(WAIT).until(() -> {
                    PartitionStatus p = s.status().partitions().stream().findFirst().orElse(null);
                    return p != null && (p.halted() || p.position() == total && p.pendingFiles() == 0);
                });
                assertThat(s.status().reasons()).as("seed %d", seed).isEmpty();
            }
        } finally {
            for (SinkService s : last) s.stop();
        }
        for (Sink k : sinks) {
            String which = "seed " + seed + ", sink writing " + k.keysStart;
            assertThat(k.group.stored(0).orElse(-1)).as("%s: committed", which).isEqualTo(total - 1L);
            Map<Long, Integer> copies = coverage(store, k.keysStart);
            assertThat(copies).as("%s: offsets in objects", which).hasSize(total);
            assertThat(copies).as("%s: every offset in exactly one object; objects %s", which,
                    store.objects().keySet()).allSatisfy((o, n) -> assertThat(n).isEqualTo(1));
            assertThat(k.group.backwardStores()).as(which).isEmpty();
        }
    }
}
