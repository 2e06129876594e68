package dev.iggysink.benchmarks.e2e;

import dev.iggysink.adapters.iceberg.TableTemplate;
import dev.iggysink.adapters.iggy.IggyGroupOffsets;
import dev.iggysink.adapters.iggy.IggySettings;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.benchmarks.Payloads;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;
import dev.iggysink.testkit.s3.MinioServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;

/**
 * The table sink beside the object sink on the same records, per record size (100 B and 1 KiB by default,
 * {@code --size} for one): one topic is filled once per size, then each sink runs against it in its own consumer
 * group, alternating object sink, table sink on a JDBC catalog (SQLite), table sink on a REST catalog (Apache
 * Iceberg's {@code RESTCatalogServer} in this JVM, backed by SQLite), {@code --rounds} times, until the group's
 * committed offsets cover every record, and is stopped. Each sink runs through the distribution's launcher with its
 * default JVM options (the heap it chose is printed; {@code --xmx} replaces it). Prints, per run, records/s and
 * whole-process CPU per record from launch to the last commit and from the first commit on, peak RSS, and for a table
 * its commits (p50 and max commit time, sampled from the sink's {@code /status}) and data files. Then, per catalog,
 * freshness: the table sink with {@code commit_interval = "1s"} while records are sent at the rate it reached above
 * and at a share of it (one sender thread and connection per partition; the sink first commits {@link #WARM_UP}'s
 * worth of records sent before it starts, and the line says how far behind their schedule the senders fell, so a
 * rate the machine cannot send while the sink runs shows as such), and p50/p99 of the time from each record's send
 * (its Iggy timestamp, stamped by the broker when it took it) to the commit of the snapshot that holds it (the
 * snapshot's {@code timestamp-ms}, which Iceberg stamps as it makes the snapshot, just before the catalog swap: the
 * swap's share is within the commit time printed beside). Ends with one line per size, the JDBC table sink's median
 * figures against the object sink's.
 * {@code --self-audit-pairs N} instead runs only the table sink (on the first catalog), N pairs with its self-audit at
 * the default budget and off, interleaved (each pair's order flipped), and prints per size
 * {@code table self-audit cost <size>: records/s ratio R, cpu ratio C} with the audit thread's share of the sink's CPU.
 * The object sink writes json_lines files of 8 MiB to MinIO; the table sink writes Parquet data files of the same
 * rotation into an Iceberg table (warehouse on the same MinIO), one commit per 5 s or per 16 files waiting.
 */
public final class TableBench {
    /**
     * {@code --local-files}: the JDBC catalog's warehouse and the object sink's files in folders of the run, not on
     * MinIO, so that a run shows what each sink's S3 client costs it (ADR 0021).
     */
    static boolean localFiles;

    private static final String STREAM = "tbench";
    private static final String TOPIC = "events";
    private static final String BUCKET = "tbench";
    private static final Path LAUNCHER = Path.of("distribution", "src", "dist", "bin", "iggy-s3-sink");
    /**
     * No commit for this long (longer than the table sink's commit interval): what is left waits in open files, and
     * the sink is stopped to seal them. A table sink whose /status shows it waiting for its commit interval is
     * stopped sooner.
     */
    private static final Duration QUIET = Duration.ofSeconds(7);
    /** A table sink's /status with no record in an open file and no sealed file: open records, sealed files. */
    private static final List<Long> NOTHING = List.of(0L, 0L);
    /** A freshness run first commits this many seconds' worth of records at its rate, sent before the sink starts. */
    private static final Duration WARM_UP = Duration.ofSeconds(3);

    private TableBench() {
    }

    /** One sink run's figures; {@code commitMillis} holds each commit time seen on /status. */
    private record Result(String name, double rate, double cpuUs, double warmRate, double warmCpuUs, long peakRssMib,
                          List<Long> commitMillis, long maxCommitMillis, Audited audited) {
    }

    /**
     * Read from the sink's {@code /metrics} once every record was consumed, before the stop: the self-audit thread's
     * CPU seconds and requests, and the whole process's CPU seconds then; -1 where not known.
     */
    private record Audited(double auditCpuSeconds, double requests, double cpuSeconds) {
        static final Audited NONE = new Audited(-1, -1, -1);
    }

    /** The default budget of self_audit_requests_per_minute, the one the cost is measured at. */
    private static final int DEFAULT_AUDIT_BUDGET = 600;

    /** Where each run's files go and what every run shares. */
    private record Bench(Path jar, Path launcher, String javaOpts, Path runDir, IggyEndpoint iggy, MinioServer minio,
                         Map<String, Catalogs.Handle> catalogs) {
    }

    public static int run(String[] args) throws Exception {
        int messages = 0; // 0: per size, see messagesFor
        List<Integer> sizes = List.of(100, 1024);
        int partitions = 8;
        int rounds = 2;
        int freshSeconds = 15;
        // at the rate of the rounds, then at a share of it the machine can send while the sink runs (see freshness)
        List<Double> freshShares = List.of(1.0, 0.4);
        double freshRate = 0;
        List<String> catalogNames = List.of("jdbc", "rest");
        String sinkJar = null;
        String xmx = null;
        boolean jfr = false;
        Map<String, String> tableProperties = new LinkedHashMap<>();
        Path launcher = LAUNCHER;
        Duration idle = null;
        int auditPairs = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--self-audit-pairs" -> auditPairs = Integer.parseInt(args[++i]);
                case "--idle" -> idle = Duration.ofSeconds(Long.parseLong(args[++i]));
                case "--messages" -> messages = (int) Sizes.parse(args[++i]);
                case "--size" -> sizes = List.of((int) Sizes.parse(args[++i]));
                case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--catalogs" -> catalogNames = List.of(args[++i].split(","));
                case "--freshness-seconds" -> freshSeconds = Integer.parseInt(args[++i]);
                case "--freshness-share" -> freshShares = java.util.Arrays.stream(args[++i].split(","))
                        .map(Double::parseDouble).toList();
                case "--freshness-rate" -> freshRate = Sizes.parse(args[++i]);
                case "--sink-jar" -> sinkJar = args[++i];
                case "--launcher" -> launcher = Path.of(args[++i]);
                case "--xmx" -> xmx = args[++i];
                case "--jfr" -> jfr = true;
                case "--local-files" -> localFiles = true;
                case "--table-property" -> {
                    String[] kv = args[++i].split("=", 2);
                    tableProperties.put(kv[0], kv.length > 1 ? kv[1] : "");
                }
                case "--smoke" -> {
                    messages = 20_000;
                    rounds = 1;
                    freshSeconds = 5;
                }
                default -> {
                    System.err.println("tables: unknown option " + args[i]);
                    return 2;
                }
            }
        }
        // Tables made as the sink makes them (create_tables), unless the run asks for other properties.
        if (tableProperties.isEmpty()) tableProperties.putAll(TableTemplate.WRITE_PROPERTIES);
        for (String c : catalogNames) {
            if (!c.equals("jdbc") && !c.equals("rest")) {
                System.err.println("tables: --catalogs takes jdbc, rest or both (jdbc,rest), not " + c);
                return 2;
            }
        }
        if (!Files.isRegularFile(launcher)) {
            System.err.println("tables: no launcher at " + launcher + " (run from the repository's root, or give"
                    + " --launcher bin/iggy-s3-sink of an unpacked tarball)");
            return 2;
        }
        Path jar = Path.of(sinkJar != null ? sinkJar : "bootstrap/target/iggy-s3-sink.jar");
        Path runDir = Path.of("bench-results", "runs", "tables-" + Instant.now().getEpochSecond());
        Files.createDirectories(runDir);
        String javaOpts = xmx == null ? "" : "-Xmx" + xmx;
        // One recording per sink process, written at its stop, named after its pid: jfr print --events
        // jdk.ExecutionSample F summarises where its CPU went.
        if (jfr) javaOpts += " -XX:StartFlightRecording=settings=profile,filename=" + runDir.toAbsolutePath() + "/";
        if (idle != null) return idle(jar, launcher, javaOpts, runDir, partitions, idle) ? 0 : 1;
        if (auditPairs > 0) {
            return selfAuditCost(jar, launcher, javaOpts, runDir, messages, sizes, partitions, catalogNames.get(0),
                    tableProperties, auditPairs) ? 0 : 1;
        }
        if (rounds == 0 && freshRate <= 0) {
            System.err.println("tables: --rounds 0 (freshness only) needs --freshness-rate");
            return 2;
        }
        final int given = messages;
        System.out.printf("== tables: %s records of JSON, %d partitions, %d round(s) of object sink, then"
                        + " table sink on %s; JVM options: the launcher's defaults%s;%s load %s%n",
                sizes.stream().map(s -> String.format("%,d of %s", messagesFor(s, given), label(s))).toList(),
                partitions, rounds, catalogNames,
                xmx == null ? "" : " with -Xmx" + xmx,
                " table properties " + new java.util.TreeMap<>(tableProperties) + ";", load());
        Map<String, String> finals = new LinkedHashMap<>();
        try (IggyEndpoint iggy = IggyEndpoint.fromEnvOrEmbedded(); MinioServer minio = MinioServer.start();
             Catalogs catalogs = Catalogs.open(minio, runDir, BUCKET, catalogNames, tableProperties)) {
            minio.createBucket(BUCKET);
            Bench b = new Bench(jar, launcher, javaOpts, runDir, iggy, minio, catalogs.handles());
            for (int size : sizes) {
                String sz = label(size).toLowerCase(Locale.ROOT);
                if (rounds == 0) {
                    // freshness only, at a rate given: two builds compared at the same load on the sink
                    for (String c : catalogNames) {
                        String fresh = freshness(b, c, sz, size, partitions, freshRate, freshSeconds);
                        if (fresh == null) return 1;
                        System.out.println(fresh);
                    }
                    continue;
                }
                int count = messagesFor(size, messages);
                long[] perPartition = produce(iggy, count, size, partitions);
                Map<String, List<Result>> results = new LinkedHashMap<>();
                for (int r = 1; r <= rounds; r++) {
                    List<String> kinds = new ArrayList<>(List.of("object"));
                    kinds.addAll(catalogNames);
                    for (String kind : kinds) {
                        String name = kind + "-" + sz + "-r" + r;
                        Result res = runOne(b, name, kind, TOPIC, perPartition, count, "5s");
                        if (res == null) return 1;
                        results.computeIfAbsent(kind, k -> new ArrayList<>()).add(res);
                    }
                }
                Result object = median(results.get("object"));
                for (String c : catalogNames) {
                    Result table = median(results.get(c));
                    List<Long> commits = results.get(c).stream().flatMap(x -> x.commitMillis().stream()).sorted()
                            .toList();
                    long max = results.get(c).stream().mapToLong(Result::maxCommitMillis).max().orElse(-1);
                    System.out.printf("%s %s: median after the first commit %,.0f records/s, %.2f us CPU/record, peak"
                                    + " RSS %d MiB; commit time p50 %d ms, max %d ms (%d commits seen)%n", c,
                            label(size), table.warmRate(), table.warmCpuUs(), table.peakRssMib(),
                            percentile(commits, 50), max, commits.size());
                    for (double share : freshRate > 0 ? List.of(1.0) : freshShares) {
                        String fresh = freshness(b, c, sz + (share == 1.0 ? "" : "_" + Math.round(share * 100)),
                                size, partitions, freshRate > 0 ? freshRate : table.warmRate() * share, freshSeconds);
                        if (fresh == null) return 1;
                        System.out.println(fresh);
                    }
                    if (c.equals(catalogNames.get(0))) {
                        // From launch as well: with few large files the object sink's first commit comes late,
                        // and its window after it is short.
                        finals.put(label(size), String.format("tables/objects %s: records/s ratio %.2f, cpu ratio %.2f,"
                                        + " rss table %d MiB object %d MiB (from launch: records/s ratio %.2f, cpu"
                                        + " ratio %.2f)", label(size), table.warmRate() / object.warmRate(),
                                table.warmCpuUs() / object.warmCpuUs(), table.peakRssMib(), object.peakRssMib(),
                                table.rate() / object.rate(), table.cpuUs() / object.cpuUs()));
                    }
                }
                System.out.printf("object %s: median after the first commit %,.0f records/s, %.2f us CPU/record, peak"
                        + " RSS %d MiB%n", label(size), object.warmRate(), object.warmCpuUs(), object.peakRssMib());
            }
        }
        System.out.println("== load at the end " + load() + "; table sink on " + catalogNames.get(0)
                + ", medians over the rounds, after each run's first commit");
        finals.values().forEach(System.out::println);
        return 0;
    }

    /** {@code 100B}, {@code 1KiB}: the size as the final lines name it. */
    static String label(int size) {
        return size % 1024 == 0 ? size / 1024 + "KiB" : size + "B";
    }

    /** The one-, five- and fifteen-minute load averages of the machine. */
    private static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** The run with the median records/s (the lower middle one of an even count). */
    private static Result median(List<Result> runs) {
        List<Result> sorted = new ArrayList<>(runs);
        sorted.sort(java.util.Comparator.comparingDouble(Result::warmRate));
        return sorted.get((sorted.size() - 1) / 2);
    }

    /** The nearest-rank percentile of sorted values; −1 when there are none. */
    static long percentile(List<Long> sorted, int pct) {
        if (sorted.isEmpty()) return -1;
        int rank = (int) Math.ceil(pct / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }

    /**
     * One sink ({@code kind} object, jdbc or rest) from launch until its group's committed offsets cover
     * {@code perPartition} of {@code topic}; null (after printing why) when it did not get there.
     */
    private static Result runOne(Bench b, String name, String kind, String topic, long[] perPartition, long messages,
                                 String commitInterval) throws Exception {
        return runOne(b, name, kind, topic, perPartition, messages, commitInterval, null);
    }

    /** As above, a table sink with {@code self_audit_requests_per_minute = selfAudit} unless null. */
    private static Result runOne(Bench b, String name, String kind, String topic, long[] perPartition, long messages,
                                 String commitInterval, Integer selfAudit) throws Exception {
        boolean table = !kind.equals("object");
        String group = "tables_" + name;
        String tableName = "bench.events_" + name.replace('-', '_');
        int adminPort = Catalogs.freePort();
        Path config = b.runDir().resolve(name + ".toml");
        if (table) b.catalogs().get(kind).createTable(tableName);
        String toml = table ? tableToml(b, kind, topic, group, tableName, commitInterval, adminPort)
                : objectToml(b, topic, group, name, adminPort);
        if (selfAudit != null) toml += "self_audit_requests_per_minute = " + selfAudit + "\n";
        Files.writeString(config, toml, StandardCharsets.UTF_8);
        IggySettings settings = new IggySettings(b.iggy().host(), b.iggy().port(), "iggy", Secret.of("iggy"),
                Optional.empty(), false, Optional.empty(), Optional.empty());
        String loadBefore = load();
        long launch = System.nanoTime();
        try (SinkChild sink = SinkChild.startLauncher(b.launcher(), b.runDir().resolve("home"), b.jar(), config,
                b.runDir().resolve(name + ".log"), b.runDir().resolve(name + "-gc.log"), b.javaOpts(), adminPort);
             IggyGroupOffsets offsets = new IggyGroupOffsets(settings, STREAM, topic, group, Duration.ofSeconds(10))) {
            long cpu = -1;
            long end = -1;
            long peakRss = -1;
            long deadline = launch + Duration.ofMinutes(10).toNanos();
            long lastSum = Long.MIN_VALUE;
            long quietSince = System.nanoTime();
            boolean stopped = false;
            long firstAt = -1;
            long firstCpu = -1;
            long firstCommitted = 0;
            String heap = "";
            List<Long> commitMillis = new ArrayList<>();
            long commitsSeen = 0;
            long maxCommit = -1;
            long nextStatus = 0;
            long consumed = 0;
            long consumedAt = -1;
            long stopAt = -1;
            long idleBeforeStop = 0;
            List<Long> heldBefore = null;
            boolean waitingForInterval = false;
            Audited audited = Audited.NONE;
            while (System.nanoTime() < deadline) {
                long c = sink.cpuTicks();
                if (c >= 0) cpu = c;
                long rss = sink.procKib("VmHWM");
                if (rss > 0) peakRss = rss;
                if (heap.isEmpty() && System.nanoTime() - launch > 1_000_000_000L) heap = heapOptions(sink);
                if (!stopped && System.nanoTime() >= nextStatus) {
                    // Every 200 ms, object and table sink alike: each table commit's time, when one has come since.
                    nextStatus = System.nanoTime() + 200_000_000L;
                    String status = sink.status();
                    if (status != null) consumed = SinkChild.number(status, "records_consumed").orElse(consumed);
                    if (consumedAt < 0 && consumed >= messages) consumedAt = System.nanoTime();
                    if (status != null && table) {
                        List<Long> held = held(status);
                        if (waitsForInterval(consumed, messages, held, heldBefore)) waitingForInterval = true;
                        heldBefore = held;
                        long commits = SinkChild.number(status, "commits").orElse(0);
                        if (commits > commitsSeen) {
                            SinkChild.number(status, "last_commit_millis").ifPresent(commitMillis::add);
                            commitsSeen = commits;
                        }
                        maxCommit = SinkChild.number(status, "max_commit_millis").orElse(maxCommit);
                    }
                }
                long sum = committedSum(offsets, topic, perPartition.length);
                if (firstAt < 0 && sum > -perPartition.length) {
                    firstAt = System.nanoTime();
                    firstCpu = c;
                    firstCommitted = sum + perPartition.length;
                }
                if (covered(offsets, topic, perPartition)) {
                    end = System.nanoTime();
                    if (selfAudit != null && selfAudit > 0 && !stopped) audited = audited(sink);
                    break;
                }
                if (sum != lastSum) {
                    lastSum = sum;
                    quietSince = System.nanoTime();
                    waitingForInterval = false;
                } else if (!stopped && waitingForInterval) {
                    // read before the stop: a stopped sink answers no /metrics
                    if (selfAudit != null && selfAudit > 0) audited = audited(sink);
                    sink.terminate();
                    stopped = true;
                    stopAt = System.nanoTime();
                } else if (!stopped && consumedAt > 0
                        && System.nanoTime() - Math.max(quietSince, consumedAt) > QUIET.toNanos()) {
                    // Everything was read and what is left is in open files that no size limit closes (with few
                    // records, all of them): a stop seals and commits them (both sinks alike), as the object sink's
                    // bench does.
                    if (selfAudit != null && selfAudit > 0) audited = audited(sink);
                    sink.terminate();
                    stopped = true;
                    stopAt = System.nanoTime();
                    // The wait for quiet is the bench's, not the sink's: from the last progress (a commit, or the
                    // last record read) to the stop.
                    idleBeforeStop = stopAt - Math.max(quietSince, consumedAt);
                }
                if (!sink.alive()) {
                    if (covered(offsets, topic, perPartition)) end = System.nanoTime();
                    break;
                }
                Thread.sleep(50);
            }
            if (end > 0 && stopped) end -= idleBeforeStop;
            if (!stopped) sink.terminate(); // a second SIGTERM would cut its stop short
            int exit = sink.waitFor(Duration.ofSeconds(60));
            String log = Files.readString(b.runDir().resolve(name + ".log"));
            if (end < 0 || log.contains("OutOfMemoryError")) {
                System.out.printf("%s: not every record was committed (exit %d)%s; see %s%n", name, exit,
                        log.contains("OutOfMemoryError") ? ", OutOfMemoryError under " + heap : "",
                        b.runDir().resolve(name + ".log"));
                return null;
            }
            double seconds = (end - launch) / 1e9;
            double cpuSeconds = cpu / (double) SinkChild.clockTicksPerSecond();
            double warmSeconds = (end - firstAt) / 1e9;
            double warmCpu = (cpu - firstCpu) / (double) SinkChild.clockTicksPerSecond();
            long warmRecords = messages - firstCommitted;
            boolean warm = warm(warmRecords, messages, warmSeconds);
            Result res = new Result(name, messages / seconds, cpuSeconds * 1e6 / messages,
                    warm ? warmRecords / warmSeconds : messages / seconds,
                    warm ? warmCpu * 1e6 / warmRecords : cpuSeconds * 1e6 / messages, peakRss / 1024, commitMillis,
                    maxCommit, audited);
            StringBuilder line = new StringBuilder();
            line.append(String.format("%-16s %,9.0f records/s  %6.2f us CPU/record  (%.1f s, %.1f s CPU from launch);"
                    + " after the first commit%s %,9.0f records/s  %6.2f us CPU/record; peak RSS %d MiB, heap %s, stop"
                    + " needed: %s, exit %d, load %s -> %s", name, messages / seconds, cpuSeconds * 1e6 / messages,
                    seconds, cpuSeconds, warm ? "" : " (none before the run's end: from launch)", res.warmRate(),
                    res.warmCpuUs(), res.peakRssMib(), heap, stopped, exit,
                    loadBefore, load()));
            if (table) {
                Table t = b.catalogs().get(kind).catalog().loadTable(TableIdentifier.parse(tableName));
                int snapshots = 0;
                for (Snapshot ignored : t.snapshots()) snapshots++;
                long files = Long.parseLong(t.currentSnapshot().summary().getOrDefault("total-data-files", "0"));
                long bytes = Long.parseLong(t.currentSnapshot().summary().getOrDefault("total-files-size", "0"));
                List<Long> sorted = commitMillis.stream().sorted().toList();
                line.append(String.format("  commits %d (p50 %d ms, max %d ms), data files %d, %.1f MB Parquet",
                        snapshots, percentile(sorted, 50), maxCommit, files, bytes / 1e6));
            }
            System.out.println(line);
            return res;
        }
    }

    /** What a table sink's /status says it holds uncommitted: records in open files, sealed files. */
    static List<Long> held(String status) {
        return List.of(SinkChild.sum(status, "open_records"), SinkChild.sum(status, "sealed_files"));
    }

    /**
     * Whether a table sink only waits for its commit interval: everything read, and the same files held (open, or
     * sealed and not yet committed) as at the read before. The object sink's last open files wait for no rotation,
     * and the bench stops it; a table sink in this state is stopped too, which commits what it holds. Unlike the
     * quiet wait, nothing is taken out of its time: a commit under way looks the same from here.
     */
    /**
     * How many records a run of {@code size}-byte records reads: {@code given} when set, else enough for several of
     * the table sink's 5 s commits at today's rates (5M of 100 B, 1M of 1 KiB and larger), so that "after the first
     * commit" covers most of the run.
     */
    static int messagesFor(int size, int given) {
        if (given > 0) return given;
        return size <= 256 ? 5_000_000 : 1_000_000;
    }

    /**
     * Whether "after the first commit" means anything: at least a tenth of the records were committed after it.
     * Else (a run whose first commit came at its end) the run's figures from launch stand for it, as printed.
     */
    static boolean warm(long warmRecords, long messages, double warmSeconds) {
        return warmSeconds > 0 && warmRecords * 10 >= messages;
    }

    static boolean waitsForInterval(long consumed, long messages, List<Long> held, List<Long> before) {
        return consumed >= messages && !held.equals(NOTHING) && held.equals(before);
    }

    /** The self-audit's figures on the sink's {@code /metrics} now, with the process's CPU seconds. */
    private static Audited audited(SinkChild sink) {
        String metrics = sink.metrics();
        long ticks = sink.cpuTicks();
        if (metrics == null || ticks < 0) return Audited.NONE;
        return new Audited(SinkChild.metric(metrics, "iggysink_audit_cpu_seconds_total"),
                SinkChild.metric(metrics, "iggysink_audit_requests_total"),
                ticks / (double) SinkChild.clockTicksPerSecond());
    }

    /**
     * {@code --self-audit-pairs N}: the table sink on {@code catalog}, per size, {@code pairs} pairs of runs with the
     * self-audit at the default budget and off, interleaved (each pair's order flipped); prints per size the on/off
     * ratios of the mean records/s and CPU per record (after the first commit, and from launch) and the audit thread's
     * mean share of the sink's CPU. False when a run failed.
     */
    private static boolean selfAuditCost(Path jar, Path launcher, String javaOpts, Path runDir, int messages,
                                         List<Integer> sizes, int partitions, String catalog,
                                         Map<String, String> tableProperties, int pairs) throws Exception {
        System.out.printf("== table self-audit cost: %,d records of %s JSON each, %d partitions, %s catalog,"
                        + " commit_interval 1s, %d pair(s) of self_audit_requests_per_minute %d and 0; load %s%n",
                messagesFor(sizes.get(0), messages),
                sizes.stream().map(TableBench::label).toList(), partitions, catalog, pairs, DEFAULT_AUDIT_BUDGET,
                load());
        List<String> lines = new ArrayList<>();
        try (IggyEndpoint iggy = IggyEndpoint.fromEnvOrEmbedded(); MinioServer minio = MinioServer.start();
             Catalogs catalogs = Catalogs.open(minio, runDir, BUCKET, List.of(catalog), tableProperties)) {
            minio.createBucket(BUCKET);
            Bench b = new Bench(jar, launcher, javaOpts, runDir, iggy, minio, catalogs.handles());
            for (int size : sizes) {
                String sz = label(size).toLowerCase(Locale.ROOT);
                int count = messagesFor(size, messages);
                long[] perPartition = produce(iggy, count, size, partitions);
                List<Result> on = new ArrayList<>();
                List<Result> off = new ArrayList<>();
                for (int pair = 1; pair <= pairs; pair++) {
                    List<Integer> order = pair % 2 == 1 ? List.of(DEFAULT_AUDIT_BUDGET, 0)
                            : List.of(0, DEFAULT_AUDIT_BUDGET);
                    for (int budget : order) {
                        String name = catalog + "-" + sz + "-audit" + budget + "-p" + pair;
                        // a commit a second: many snapshots and data files, so every round has new ones to read
                        Result r = runOne(b, name, catalog, TOPIC, perPartition, count, "1s", budget);
                        if (r == null) return false;
                        (budget > 0 ? on : off).add(r);
                        if (budget > 0) {
                            Audited a = r.audited();
                            System.out.printf("  %s: self-audit thread %.3f s CPU = %.2f%% of the sink's %.1f s,"
                                            + " %.0f requests%n", name, a.auditCpuSeconds(),
                                    100 * a.auditCpuSeconds() / a.cpuSeconds(), a.cpuSeconds(), a.requests());
                        }
                    }
                }
                // a run whose metrics were not read (-1) says nothing of the share
                List<Result> read = on.stream().filter(r -> r.audited().auditCpuSeconds() >= 0
                        && r.audited().cpuSeconds() > 0).toList();
                double share = read.stream()
                        .mapToDouble(r -> r.audited().auditCpuSeconds() / r.audited().cpuSeconds())
                        .average().orElse(Double.NaN);
                lines.add(String.format(Locale.ROOT, "table self-audit cost %s: records/s ratio %.3f, cpu ratio %.3f"
                                + " (after the first commit; from launch: %.3f, %.3f); audit thread %.2f%% of the"
                                + " sink's CPU (mean of %d run(s) at %d requests/min)", label(size),
                        mean(on, Result::warmRate) / mean(off, Result::warmRate),
                        mean(on, Result::warmCpuUs) / mean(off, Result::warmCpuUs),
                        mean(on, Result::rate) / mean(off, Result::rate),
                        mean(on, Result::cpuUs) / mean(off, Result::cpuUs), 100 * share, read.size(),
                        DEFAULT_AUDIT_BUDGET));
            }
        }
        System.out.println("== load at the end " + load());
        lines.forEach(System.out::println);
        return true;
    }

    private static double mean(List<Result> runs, java.util.function.ToDoubleFunction<Result> f) {
        return runs.stream().mapToDouble(f).average().orElse(Double.NaN);
    }

    /** The heap options the launcher gave the JVM (read from its command line), or "?" while it has not started. */
    private static String heapOptions(SinkChild sink) {
        StringBuilder out = new StringBuilder();
        for (String w : sink.commandLine().split(" ")) {
            if (w.startsWith("-Xmx") || w.startsWith("-Xms") || w.startsWith("-Xmn")
                    || w.startsWith("-XX:MaxRAMPercentage")) {
                if (!out.isEmpty()) out.append(' ');
                out.append(w);
            }
        }
        return out.isEmpty() ? "?" : out.toString();
    }

    /**
     * Freshness on one catalog: a topic of its own, one record per partition committed first (the sink is up and
     * has its table), then records sent for {@code seconds} at {@code rate} records/s, with
     * {@code commit_interval = "1s"}; p50/p99 of send-to-commit over those records, from the table itself (every
     * snapshot's added rows, read by Iceberg's reader). Null when the run failed.
     */
    private static String freshness(Bench b, String catalog, String sz, int size, int partitions, double rate,
                                    int seconds) throws Exception {
        if (seconds <= 0) return catalog + " " + label(size) + ": freshness not measured (--freshness-seconds 0)";
        String topic = "fresh_" + catalog + "_" + sz;
        String name = catalog + "-" + sz + "-fresh";
        String group = "tables_" + name;
        String tableName = "bench.events_" + name.replace('-', '_');
        int adminPort = Catalogs.freePort();
        Path config = b.runDir().resolve(name + ".toml");
        b.catalogs().get(catalog).createTable(tableName);
        Files.writeString(config, tableToml(b, catalog, topic, group, tableName, "1s", adminPort),
                StandardCharsets.UTF_8);
        IggySettings settings = new IggySettings(b.iggy().host(), b.iggy().port(), "iggy", Secret.of("iggy"),
                Optional.empty(), false, Optional.empty(), Optional.empty());
        long[] perPartition = new long[partitions];
        long sent = 0;
        long maxBehind;
        long fromMicros;
        String loadBefore = load();
        double asked = rate;
        long warm;
        try (IggyProducer producer = IggyProducer.connect(b.iggy().host(), b.iggy().port())) {
            producer.createStreamIfMissing(STREAM);
            producer.createTopicIfMissing(STREAM, topic, partitions);
            // WARM_UP's worth of records at the rate, there before the sink starts: it reads them at its own pace,
            // its JIT compiles the per-record code, and the window measures a sink in its steady state (a sink
            // started cold beside senders at a high rate spent up to 10 s catching up, which decided the p99)
            warm = Math.max(partitions, (long) (rate * WARM_UP.toSeconds()));
            fill(producer, topic, warm, size, perPartition);
            try (SinkChild sink = SinkChild.startLauncher(b.launcher(), b.runDir().resolve("home"), b.jar(), config,
                    b.runDir().resolve(name + ".log"), b.runDir().resolve(name + "-gc.log"), b.javaOpts(), adminPort);
                 IggyGroupOffsets offsets = new IggyGroupOffsets(settings, STREAM, topic, group,
                         Duration.ofSeconds(10))) {
                // Up, with its table open and the warm-up committed: from here on only freshness is measured.
                if (!await(sink, offsets, topic, perPartition, Duration.ofMinutes(2))) {
                    System.out.printf("%s: the first records were not committed; see %s%n", name,
                            b.runDir().resolve(name + ".log"));
                    return null;
                }
                Sent out = sendPaced(b, topic, partitions, size, rate, seconds);
                fromMicros = out.fromMicros();
                for (int p = 0; p < partitions; p++) perPartition[p] += out.perPartition()[p];
                sent = out.total();
                maxBehind = out.maxBehindMillis();
                double sentSeconds = out.seconds();
                boolean done = await(sink, offsets, topic, perPartition, Duration.ofMinutes(5));
                sink.terminate();
                int exit = sink.waitFor(Duration.ofSeconds(60));
                if (!done) {
                    System.out.printf("%s: not every record was committed (exit %d); see %s%n", name, exit,
                            b.runDir().resolve(name + ".log"));
                    return null;
                }
                rate = sent / sentSeconds;
            }
        }
        Table t = b.catalogs().get(catalog).catalog().loadTable(TableIdentifier.parse(tableName));
        List<Long> lags = new ArrayList<>();
        for (Snapshot s : t.snapshots()) {
            IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(t).select("iggy_timestamp");
            scan = s.parentId() == null ? scan.useSnapshot(s.snapshotId())
                    : scan.appendsBetween(s.parentId(), s.snapshotId());
            try (CloseableIterable<Record> rows = scan.build()) {
                for (Record r : rows) {
                    OffsetDateTime at = (OffsetDateTime) r.getField("iggy_timestamp");
                    long micros = at.toEpochSecond() * 1_000_000 + at.getNano() / 1000;
                    if (micros >= fromMicros) lags.add(s.timestampMillis() - micros / 1000);
                }
            }
        }
        lags.sort(null);
        // The broker holds every record on the bench's heap: a size's four windows (up to 4 GB each at 1 KiB) ran it
        // out of 12 GiB in the last one, whose senders first stalled for seconds in its collections.
        try (IggyProducer producer = IggyProducer.connect(b.iggy().host(), b.iggy().port())) {
            producer.client().topics().deleteTopic(StreamId.of(STREAM), TopicId.of(topic));
        }
        return String.format("%s %s freshness (commit_interval 1s, after a warm-up of %,d records, %,d records sent at"
                        + " %,.0f records/s for %d s, asked %,.0f, the senders at most %d ms behind): send-to-commit"
                        + " p50 %d ms, p99 %d ms, max %d ms over %,d records read back; load %s -> %s",
                catalog, label(size), warm, sent, rate, seconds, asked, maxBehind, percentile(lags, 50),
                percentile(lags, 99), lags.isEmpty() ? -1 : lags.get(lags.size() - 1), lags.size(), loadBefore,
                load());
    }

    /** What the senders of a freshness window sent, per partition, and how far behind their schedule they fell. */
    private record Sent(long[] perPartition, long total, long maxBehindMillis, long fromMicros, double seconds) {
    }

    /**
     * Sends {@code rate} records a second for {@code seconds} through {@link RawSender}: one thread and connection per
     * partition, each sending every 10 ms what its share of the rate has made due, from payloads built before the
     * window (a ring of distinct ones per partition; only the Iggy timestamp is read back), so that the senders
     * spend their CPU on sending, not on building JSON, and a slow send of one partition holds no other back. A
     * sender that falls behind sends what is due at once; how far behind any fell is returned with the counts, the
     * window's start (wall clock, micros) and its length (from the start to the last send's answer).
     */
    private static Sent sendPaced(Bench b, String topic, int partitions, int size, double rate, int seconds)
            throws Exception {
        long[] perPartition = new long[partitions];
        long[] behind = new long[partitions];
        long[] ended = new long[partitions];
        int ring = (int) Math.max(1, Math.min(4096, 64L * 1024 * 1024 / partitions / Math.max(1, size)));
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        // the payloads and connections are made before the window opens, which the threads all wait for
        java.util.concurrent.CountDownLatch open = new java.util.concurrent.CountDownLatch(1);
        long[] begin = new long[1];
        for (int p = 0; p < partitions; p++) {
            final int partition = p;
            List<byte[]> payloads = new ArrayList<>(ring);
            for (int i = 0; i < ring; i++) payloads.add(Payloads.json((long) partition * ring + i, size));
            RawSender connected = new RawSender(b.iggy().host(), b.iggy().port(), "iggy", "iggy", STREAM, topic,
                    partition, payloads);
            Thread t = new Thread(() -> {
                double share = rate / partitions;
                long sent = 0;
                int at = 0;
                try (RawSender producer = connected) {
                    open.await();
                    long from = begin[0];
                    for (long tick = 1; System.nanoTime() - from < seconds * 1_000_000_000L; tick++) {
                        long due = (long) (share * tick / 100) - sent;
                        while (due > 0) {
                            int n = (int) Math.min(due, 10_000); // a sender far behind still sends batches of a size
                            producer.send(at, n);
                            at = (at + n) % ring;
                            sent += n;
                            due -= n;
                        }
                        long sleep = from + tick * 10_000_000L - System.nanoTime();
                        if (sleep > 0) Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                        else behind[partition] = Math.max(behind[partition], -sleep / 1_000_000);
                    }
                    // before the connection closes, which takes the client's quiet period
                    ended[partition] = System.nanoTime();
                } catch (Throwable e) {
                    failures.add(e);
                }
                perPartition[partition] = sent;
            }, "freshness-sender-" + p);
            threads.add(t);
        }
        for (Thread t : threads) t.start();
        long fromMicros = System.currentTimeMillis() * 1000;
        begin[0] = System.nanoTime();
        open.countDown();
        for (Thread t : threads) t.join();
        double took = (java.util.Arrays.stream(ended).max().orElseThrow() - begin[0]) / 1e9;
        if (!failures.isEmpty()) throw new IllegalStateException("a freshness sender failed", failures.get(0));
        long total = 0;
        long maxBehind = 0;
        for (int p = 0; p < partitions; p++) {
            total += perPartition[p];
            maxBehind = Math.max(maxBehind, behind[p]);
        }
        return new Sent(perPartition, total, maxBehind, fromMicros, took);
    }

    /** Waits until the group's offsets cover {@code perPartition}; false when the sink died or time ran out. */
    private static boolean await(SinkChild sink, IggyGroupOffsets offsets, String topic, long[] perPartition,
                                 Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!covered(offsets, topic, perPartition)) {
            if (!sink.alive() || System.nanoTime() > deadline) return false;
            Thread.sleep(50);
        }
        return true;
    }

    /**
     * {@code --idle S}: the table sink's CPU while its partitions stay empty (the default 5 ms poll_interval): one
     * record per partition is committed first, then the sink's CPU is read over {@code S} seconds and printed as a
     * share of one core.
     */
    private static boolean idle(Path jar, Path launcher, String javaOpts, Path runDir, int partitions, Duration span)
            throws Exception {
        try (IggyEndpoint iggy = IggyEndpoint.fromEnvOrEmbedded(); MinioServer minio = MinioServer.start();
             Catalogs catalogs = Catalogs.open(minio, runDir, BUCKET, List.of("jdbc"), Map.of())) {
            minio.createBucket(BUCKET);
            Bench b = new Bench(jar, launcher, javaOpts, runDir, iggy, minio, catalogs.handles());
            long[] perPartition = produce(iggy, partitions, 64, partitions);
            String group = "tables_idle";
            String tableName = "bench.events_idle";
            int adminPort = Catalogs.freePort();
            catalogs.handles().get("jdbc").createTable(tableName);
            Path config = runDir.resolve("idle.toml");
            Files.writeString(config, tableToml(b, "jdbc", TOPIC, group, tableName, "5s", adminPort),
                    StandardCharsets.UTF_8);
            IggySettings settings = new IggySettings(iggy.host(), iggy.port(), "iggy", Secret.of("iggy"),
                    Optional.empty(), false, Optional.empty(), Optional.empty());
            try (SinkChild sink = SinkChild.startLauncher(launcher, runDir.resolve("home"), jar, config,
                    runDir.resolve("idle.log"), runDir.resolve("idle-gc.log"), javaOpts, adminPort);
                 IggyGroupOffsets offsets = new IggyGroupOffsets(settings, STREAM, TOPIC, group,
                         Duration.ofSeconds(10))) {
                if (!await(sink, offsets, TOPIC, perPartition, Duration.ofMinutes(2))) {
                    System.out.printf("idle: the first records were not committed; see %s%n",
                            runDir.resolve("idle.log"));
                    return false;
                }
                Thread.sleep(5_000); // past the next commit interval and the JIT's first compilations
                long from = sink.cpuTicks();
                long started = System.nanoTime();
                Thread.sleep(span.toMillis());
                long ticks = sink.cpuTicks() - from;
                double seconds = (System.nanoTime() - started) / 1e9;
                System.out.printf("idle table sink, %d empty partitions, %s, heap %s: %.1f%% of a core over %.0f s,"
                                + " load %s%n", partitions, jar, heapOptions(sink),
                        100.0 * ticks / SinkChild.clockTicksPerSecond() / seconds, seconds, load());
                sink.terminate();
                sink.waitFor(Duration.ofSeconds(60));
                return true;
            }
        }
    }

    private static long committedSum(IggyGroupOffsets offsets, String topic, int partitions) throws Exception {
        long sum = 0;
        for (int p = 0; p < partitions; p++) {
            sum += offsets.committedOffset(new PartitionRef(STREAM, topic, p)).orElse(-1);
        }
        return sum;
    }

    private static boolean covered(IggyGroupOffsets offsets, String topic, long[] perPartition) throws Exception {
        for (int p = 0; p < perPartition.length; p++) {
            OptionalLong c = offsets.committedOffset(new PartitionRef(STREAM, topic, p));
            if (c.isEmpty() || c.getAsLong() < perPartition[p] - 1) return false;
        }
        return true;
    }

    private static long[] produce(IggyEndpoint iggy, int messages, int size, int partitions) {
        long[] perPartition = new long[partitions];
        try (IggyProducer producer = IggyProducer.connect(iggy.host(), iggy.port())) {
            // A stream of its own per size: the broker holds every record on its heap.
            producer.deleteStream(STREAM);
            producer.createStreamIfMissing(STREAM);
            producer.createTopicIfMissing(STREAM, TOPIC, partitions);
            fill(producer, TOPIC, messages, size, perPartition);
        }
        return perPartition;
    }

    /** Sends {@code messages} JSON records spread over the partitions; {@code perPartition} gets each one's count. */
    private static void fill(IggyProducer producer, String topic, long messages, int size, long[] perPartition) {
        int partitions = perPartition.length;
        int batch = Math.max(1, Math.min(1000, (1 << 20) / size));
        for (int p = 0; p < partitions; p++) {
            perPartition[p] = messages / partitions + (p < messages % partitions ? 1 : 0);
            List<byte[]> payloads = new ArrayList<>(batch);
            for (long i = 0; i < perPartition[p]; i++) {
                payloads.add(Payloads.json(i * partitions + p, size));
                if (payloads.size() == batch) {
                    producer.send(STREAM, topic, p, payloads);
                    payloads = new ArrayList<>(batch);
                }
            }
            if (!payloads.isEmpty()) producer.send(STREAM, topic, p, payloads);
        }
    }

    private static String head(Bench b, String kind, String topic, String group, int adminPort) {
        return """
                type = "sink"
                key = "%s"
                enabled = true
                version = 0
                name = "%s"
                path = "%s"

                [iggy]
                address = "%s"
                username = "iggy"
                password = "iggy"

                [[streams]]
                stream = "%s"
                topics = ["%s"]
                schema = "json"
                batch_length = 1000
                poll_interval = "5ms"
                consumer_group = "%s"

                [admin]
                address = "127.0.0.1:%d"

                """.formatted(kind, kind, kind.equals("object") ? "libiggy_connector_s3_sink"
                : "libiggy_connector_iceberg_sink", b.iggy().address(), STREAM, topic, group, adminPort);
    }

    private static String objectToml(Bench b, String topic, String group, String prefix, int adminPort)
            throws IOException {
        MinioServer minio = b.minio();
        if (localFiles) {
            Path objects = Files.createDirectories(b.runDir().toAbsolutePath().resolve("objects"));
            return head(b, "object", topic, group, adminPort) + """
                [plugin_config]
                storage_client = "filesystem"
                directory = "%s"
                prefix = "%s"
                file_rotation = "size"
                max_file_size = "8MiB"
                """.formatted(objects, prefix);
        }
        return head(b, "object", topic, group, adminPort) + """
                [plugin_config]
                bucket = "%s"
                prefix = "%s"
                region = "%s"
                endpoint = "%s"
                access_key_id = "%s"
                secret_access_key = "%s"
                path_style = true
                file_rotation = "size"
                max_file_size = "8MiB"
                """.formatted(BUCKET, prefix, minio.region(), minio.endpoint(), minio.accessKey(), minio.secretKey());
    }

    private static String tableToml(Bench b, String catalog, String topic, String group, String tableName,
                                    String commitInterval, int adminPort) {
        MinioServer minio = b.minio();
        return head(b, "table", topic, group, adminPort) + """
                [plugin_config]
                tables = ["%s"]
                %s
                store_url = "%s"
                store_access_key_id = "%s"
                store_secret_access_key = "%s"
                store_region = "%s"
                commit_interval = "%s"
                max_files_per_commit = 16
                max_file_size = "8MiB"
                """.formatted(tableName, b.catalogs().get(catalog).pluginLines(), minio.endpoint(), minio.accessKey(),
                minio.secretKey(), minio.region(), commitInterval);
    }
}
