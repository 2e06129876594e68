package dev.iggysink.benchmarks.e2e;

import dev.iggysink.adapters.iggy.IggyGroupOffsets;
import dev.iggysink.adapters.iggy.IggySettings;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.benchmarks.Payloads;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;
import dev.iggysink.testkit.s3.MinioServer;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iggy.client.blocking.ConsumerGroupsClient;
import org.apache.iggy.consumergroup.Consumer;
import org.apache.iggy.identifier.ConsumerId;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.message.PolledMessages;
import org.apache.iggy.message.PollingStrategy;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The end-to-end bench: how fast the real sink turns Iggy messages into durable, committed objects, against the
 * ceiling of PUTting the same objects straight to the same store.
 *
 * <ol>
 *   <li>Start Iggy (in-JVM broker, or {@code IGGY_TCP_ADDRESS}) and MinIO; produce every message first, so the sink
 *       drains a full topic and the producer is never what is measured. The in-JVM broker then serves one read of
 *       the whole topic, so that its JIT has compiled the poll path before the sink starts.</li>
 *   <li>Start the sink jar as a child with its admin server on a free port. The clock starts at the first record
 *       the sink reports consumed (JVM start-up and the bucket probe are reported apart) and stops when the
 *       group's committed offsets, read from Iggy without joining the group, cover every message. Once the sink has
 *       read everything and has no upload pending, it gets SIGTERM so the graceful stop seals the last open files
 *       (size rotation never fills them); the stop is part of the measured time.</li>
 *   <li>Time to durable for the last record = commit covering everything − moment the sink had read everything.</li>
 *   <li>Raw-PUT baseline: the objects the sink wrote (count and sizes, listed from the bucket) PUT again by
 *       {@code upload_concurrency} threads through the sink's own S3 adapter; ratio = sink time / baseline time
 *       for the same bytes.</li>
 * </ol>
 * Peak RSS is the child's {@code VmHWM}; heap figures come from its GC log. One JSON line per run is appended to
 * the results file.
 */
public final class EndToEndBench {
    private static final String STREAM = "bench";
    private static final String TOPIC = "events";
    private static final String GROUP = "s3_sink_bench";
    private static final String BUCKET = "bench";
    private static final String PREFIX = "sink";
    /**
     * How often the sink's {@code /status} is read: often near the events timed from it (the first record read, the
     * last one read, nothing left to upload), rarely in between, where a request at the near rate all along cost the
     * sink a measurable share of its CPU (the handler runs a few hundred times a run, too few for its code to be
     * compiled; figures: docs/performance.md, "Method").
     */
    private static final long POLL_MILLIS = 25;
    private static final long POLL_MILLIS_BETWEEN = 250;
    /** The broker warm-up's reader's group: one of its own, so it leaves the sink's group alone. */
    private static final String WARMUP_GROUP = "bench_warmup";
    private static final long WARMUP_POLL = 1_000;

    private final E2eOptions o;
    private final PrintStream out = System.out;

    private EndToEndBench(E2eOptions options) {
        this.o = options;
    }

    public static int run(String[] args) throws Exception {
        E2eOptions options;
        try {
            options = E2eOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        if (options.help) {
            System.out.println(E2eOptions.USAGE);
            return 0;
        }
        return new EndToEndBench(options).run();
    }

    private int run() throws Exception {
        Path jar = sinkJar();
        Path runDir = Path.of("bench-results", "runs", o.name + "-" + Instant.now().getEpochSecond());
        Files.createDirectories(runDir);
        if (o.latency) return runLatency(jar, runDir);
        out.printf("== e2e %s: %,d x %s JSON (%s), %d partitions, %s, rotation %s:%s, compression %s, budget %s,"
                        + " upload_concurrency %d%n", o.name, o.messages, Sizes.human(o.size),
                o.shape.name().toLowerCase(Locale.ROOT), o.partitions, o.format,
                o.rotationKind, o.rotationValue, o.compression, o.maxBufferedBytes == null ? "default"
                        : o.maxBufferedBytes, o.uploadConcurrency);
        if (!o.claims) out.println("claims forced off (the sink's store ignores conditional writes)");
        try (IggyEndpoint iggy = IggyEndpoint.fromEnvOrEmbedded(); MinioServer minio = startMinio()) {
            minio.createBucket(BUCKET);
            long[] perPartition = produce(iggy);
            double brokerWarmup = iggy.embedded() ? warmBroker(iggy, perPartition) : 0;
            Map<String, Object> r = new LinkedHashMap<>();
            Path config = runDir.resolve("connector.toml");
            int adminPort = freePort();
            Files.writeString(config, toml(iggy.address(), minio, adminPort), StandardCharsets.UTF_8);
            Sample s = runSink(jar, config, runDir, adminPort, iggy, perPartition, minio);
            if (s == null) return 1;
            deleteStream(iggy);
            List<Long> sizes = new ArrayList<>();
            int claimsLeft = 0;
            for (S3Object obj : minio.client().listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(PREFIX + "/"))
                    .contents()) {
                // Claims and the conditional-write probe's keys are no output: neither counted nor PUT again.
                if (obj.key().startsWith(PREFIX + "/_claims/")) {
                    if (obj.key().endsWith(".claim")) claimsLeft++;
                    continue;
                }
                sizes.add(obj.size());
            }
            long objectBytes = sizes.stream().mapToLong(Long::longValue).sum();
            double sinkSeconds = (s.end - s.first) / 1e9;
            double payloadMb = o.messages * (double) o.size / 1e6;
            r.put("name", o.name);
            r.put("at", Instant.now().toString());
            r.put("messages", o.messages);
            r.put("size", o.size);
            r.put("partitions", o.partitions);
            r.put("format", o.format);
            r.put("payload_shape", o.shape.name().toLowerCase(Locale.ROOT));
            r.put("rotation", o.rotationKind + ":" + o.rotationValue);
            r.put("compression", o.compression);
            r.put("max_buffered_bytes", o.maxBufferedBytes == null ? "default" : o.maxBufferedBytes);
            r.put("buffer_directory", o.bufferDirectory == null ? "default" : o.bufferDirectory);
            r.put("self_audit_requests_per_minute", o.selfAudit == null ? "default" : o.selfAudit.toString());
            r.put("upload_concurrency", o.uploadConcurrency);
            r.put("iggy", iggy.embedded() ? "embedded" : "external");
            r.put("broker_warmup_s", round(brokerWarmup));
            r.put("sink_java", o.sinkJava == null ? "bench JVM's" : o.sinkJava);
            r.put("claims", o.claims ? "on" : "off");
            r.put("key_layout", o.keyLayout == null ? "offsets" : o.keyLayout);
            r.put("producer_records_per_s", round(s.producerRate));
            r.put("sink_startup_s", round((s.first - s.launch) / 1e9));
            r.put("sink_seconds", round(sinkSeconds));
            r.put("records_per_s", round(o.messages / sinkSeconds));
            r.put("payload_mb_per_s", round(payloadMb / sinkSeconds));
            r.put("objects", sizes.size());
            r.put("object_mb", round(objectBytes / 1e6));
            r.put("object_mb_per_s", round(objectBytes / 1e6 / sinkSeconds));
            r.put("objects_per_s", round(sizes.size() / sinkSeconds));
            r.put("read_all_s", round((s.readAll - s.first) / 1e9));
            r.put("sigterm_needed", s.sigterm > 0);
            r.put("time_to_durable_last_ms", round((s.end - s.readAll) / 1e6));
            r.put("sink_exit", s.exit);
            putCpu(r, s.cpuFirst, s.cpuEnd, o.messages);
            putWarmCpu(r, s);
            double warmRate = warmRate(o.messages, s.halfConsumed, s.halfAt, s.end);
            r.put("records_per_s_second_half", round(warmRate));
            r.put("status_polls", s.statusPolls);
            putCores(r, s, sinkSeconds);
            r.put("peak_rss_mib", s.peakRssKib / 1024);
            long[] heap = s.heapMib;
            r.put("heap_used_peak_mib", heap[0]);
            r.put("heap_live_max_mib", heap[1]);
            r.put("heap_committed_max_mib", heap[2]);
            r.put("buffered_peak_mib", round(s.maxBuffered / 1048576.0));
            r.put("paused_seen", s.pausedSeen);
            putRequests(r, s, sizes.size(), claimsLeft);
            putAudit(r, s);
            if (o.baseline && !sizes.isEmpty()) {
                RawPutBaseline.Result b = RawPutBaseline.run(storage(minio), sizes, o.uploadConcurrency,
                        "application/octet-stream", minio.pid());
                r.put("raw_put_seconds", round(b.seconds()));
                r.put("raw_put_objects_per_s", round(b.objects() / b.seconds()));
                r.put("raw_put_mb_per_s", round(b.bytes() / 1e6 / b.seconds()));
                r.put("sink_vs_raw_put", round(b.seconds() / sinkSeconds));
                r.put("sink_vs_raw_put_second_half", warmRate > 0 ? round(b.seconds() / (o.messages / warmRate))
                        : -1.0);
                putCpuBound(r, s, b, sinkSeconds, objectBytes);
            }
            r.put("run_dir", runDir.toString());
            print(r);
            append(r);
            return s.exit == 0 ? 0 : 1;
        }
    }

    /** What one sink run observed; times are {@link System#nanoTime()}. */
    private static final class Sample {
        double producerRate;
        long launch;
        long first;
        long readAll;
        long sigterm;
        long end;
        int exit;
        long peakRssKib;
        long[] heapMib;
        long maxBuffered;
        boolean pausedSeen;
        /** Child CPU ticks (user + system) at the first consumed record and when everything was committed. */
        long cpuFirst = -1;
        long cpuEnd = -1;
        /** The latest reading while the child was alive. */
        long cpuLast = -1;
        /** The same for MinIO and for this JVM (the in-JVM broker serving the polls), over the same window. */
        long minioFirst = -1;
        long minioEnd = -1;
        long selfFirst = -1;
        long selfEnd = -1;
        /** The machine's steal ticks (CPU the hypervisor held back) over the same window. */
        long stealFirst = -1;
        long stealEnd = -1;
        /** Records read and child CPU ticks at the first reading with half the records read (the warm half). */
        long halfConsumed = -1;
        long cpuHalf = -1;
        long halfAt;
        int statusPolls;
        /** MinIO's request counters before the launch, at the first consumed record and after the sink exited. */
        Optional<StoreRequests> requestsLaunch = Optional.empty();
        Optional<StoreRequests> requestsFirst = Optional.empty();
        Optional<StoreRequests> requestsExit = Optional.empty();
        /**
         * Read when everything was consumed and uploaded, just before the stop: the CPU seconds of the self-audit's
         * thread and its store requests (the sink's own meters), and the child's CPU ticks at that moment.
         */
        double auditCpuSeconds = -1;
        double auditRequests = -1;
        long cpuAtAudit = -1;
        /** The self-audit thread's CPU seconds at the first consumed record (start-up left out). */
        double auditCpuFirst = -1;
    }

    private Sample runSink(Path jar, Path config, Path runDir, int adminPort, IggyEndpoint iggy, long[] perPartition,
                           MinioServer minio) throws Exception {
        OptionalLong minioPid = minio.pid();
        Sample s = new Sample();
        s.requestsLaunch = StoreRequests.read(minio.endpoint());
        s.producerRate = producerRate;
        Path jfr = o.jfr ? runDir.resolve("sink.jfr") : null;
        IggySettings settings = new IggySettings(iggy.host(), iggy.port(), "iggy", Secret.of("iggy"),
                Optional.empty(), false, Optional.empty(), Optional.empty());
        Duration timeout = Duration.ofSeconds(o.timeoutSeconds);
        s.launch = System.nanoTime();
        try (SinkChild sink = SinkChild.start(o.sinkJava, jar, config, runDir.resolve("sink.log"),
                runDir.resolve("gc.log"), o.sinkJavaOptsWithSwitches(), jfr, adminPort);
             IggyGroupOffsets offsets = new IggyGroupOffsets(settings, STREAM, TOPIC, GROUP, Duration.ofSeconds(5))) {
            out.printf("sink pid %d, log %s%n", sink.pid(), runDir.resolve("sink.log"));
            long deadline = s.launch + timeout.toNanos();
            long lastCommitCheck = 0;
            while (true) {
                long now = System.nanoTime();
                if (now > deadline) {
                    out.printf("TIMEOUT after %d s; see %s%n", o.timeoutSeconds, runDir.resolve("sink.log"));
                    sink.terminate();
                    sink.waitFor(Duration.ofSeconds(30));
                    return null;
                }
                long rss = sink.procKib("VmHWM");
                if (rss > 0) s.peakRssKib = Math.max(s.peakRssKib, rss);
                long cpuNow = sink.cpuTicks();
                if (cpuNow >= 0) s.cpuLast = cpuNow;
                String st = s.sigterm == 0 ? sink.status() : null;
                if (s.sigterm == 0) s.statusPolls++;
                boolean idle = false;
                long sleep = s.sigterm != 0 ? 5 : POLL_MILLIS;
                if (st != null) {
                    long consumed = SinkChild.number(st, "records_consumed").orElse(0);
                    s.maxBuffered = Math.max(s.maxBuffered, SinkChild.number(st, "buffered_bytes").orElse(0));
                    s.pausedSeen |= st.contains("\"paused\":true");
                    if (consumed > 0 && s.first == 0) {
                        s.first = now;
                        s.cpuFirst = sink.cpuTicks();
                        s.minioFirst = SinkChild.cpuTicksOf(minioPid);
                        s.selfFirst = SinkChild.ownCpuTicks();
                        s.stealFirst = SinkChild.stealTicks();
                        s.requestsFirst = StoreRequests.read(minio.endpoint());
                        s.auditCpuFirst = SinkChild.metric(sink.metrics(), "iggysink_audit_cpu_seconds_total");
                    }
                    if (consumed >= o.messages && s.readAll == 0) s.readAll = now;
                    if (consumed * 2 >= o.messages && s.halfConsumed < 0) {
                        s.halfConsumed = consumed;
                        s.cpuHalf = sink.cpuTicks();
                        s.halfAt = now;
                    }
                    idle = s.readAll != 0 && SinkChild.sum(st, "pending_uploads") == 0;
                    if (s.sigterm == 0) sleep = untilNextPoll(s, consumed, now);
                }
                // Commits are read from Iggy itself; often enough to time the end, not so often as to load it.
                boolean checkCommits = s.readAll != 0 && (idle || s.sigterm != 0 || now - lastCommitCheck > 250e6);
                if (checkCommits) {
                    lastCommitCheck = now;
                    if (covered(offsets, perPartition)) {
                        s.end = System.nanoTime();
                        if (s.sigterm == 0) readAudit(s, sink);
                        // A sink that already exited after its SIGTERM flush: its last reading, at most one loop
                        // (5 ms) before it ended.
                        long cpuEnd = sink.cpuTicks();
                        s.cpuEnd = cpuEnd >= 0 ? cpuEnd : s.cpuLast;
                        s.minioEnd = SinkChild.cpuTicksOf(minioPid);
                        s.selfEnd = SinkChild.ownCpuTicks();
                        s.stealEnd = SinkChild.stealTicks();
                        break;
                    }
                }
                if (idle && s.sigterm == 0) {
                    readAudit(s, sink);
                    s.sigterm = System.nanoTime();
                    sink.terminate();
                }
                if (!sink.alive() && s.sigterm == 0) {
                    out.printf("the sink exited early; see %s%n", runDir.resolve("sink.log"));
                    return null;
                }
                if (!sink.alive() && !covered(offsets, perPartition)) {
                    out.printf("the sink stopped before committing everything; see %s%n", runDir.resolve("sink.log"));
                    return null;
                }
                Thread.sleep(sleep);
            }
            long rss = sink.procKib("VmHWM");
            if (rss > 0) s.peakRssKib = Math.max(s.peakRssKib, rss);
            if (s.sigterm == 0) sink.terminate();
            s.exit = sink.waitFor(Duration.ofSeconds(60));
            s.heapMib = sink.heapMib();
        }
        s.requestsExit = StoreRequests.read(minio.endpoint());
        return s;
    }

    /**
     * The latency scenario: the sink runs on an empty topic; one record per partition is sent and waited for (the
     * group has joined, the path is warm); then records trickle in at {@code --trickle-rate}, round robin over the
     * partitions. A second thread reads the group's committed offsets from Iggy every {@value #LATENCY_POLL_MILLIS}
     * ms; a record counts as durable at the first read that covers its offset. The sink commits an offset only
     * after the object holding it was PUT, so this is an upper bound of the time to durable (by at most one poll
     * plus one offsets request), measured from the moment the broker acknowledged the send.
     */
    private int runLatency(Path jar, Path runDir) throws Exception {
        out.printf("== e2e %s: latency, %d x %s JSON at %d/s over %d partitions, rotate_schedule_interval %s,"
                        + " rotation %s:%s%n", o.name, o.messages, Sizes.human(o.size), o.trickleRate, o.partitions,
                o.rotateSchedule, o.rotationKind, o.rotationValue);
        try (IggyEndpoint iggy = IggyEndpoint.fromEnvOrEmbedded(); MinioServer minio = MinioServer.start()) {
            minio.createBucket(BUCKET);
            try (IggyProducer admin = IggyProducer.connect(iggy.host(), iggy.port())) {
                admin.deleteStream(STREAM);
                admin.createStreamIfMissing(STREAM);
                admin.createTopicIfMissing(STREAM, TOPIC, o.partitions);
            }
            Path config = runDir.resolve("connector.toml");
            int adminPort = freePort();
            Files.writeString(config, toml(iggy.address(), minio, adminPort), StandardCharsets.UTF_8);
            IggySettings settings = new IggySettings(iggy.host(), iggy.port(), "iggy", Secret.of("iggy"),
                    Optional.empty(), false, Optional.empty(), Optional.empty());
            int n = Math.toIntExact(o.messages);
            long[] sentAt = new long[n];
            long[] durableAt = new long[n];
            long[] offsetOf = new long[n];
            long[] nextOffset = new long[o.partitions];
            long peakRssKib = 0;
            long cpuStart;
            long cpuEnd;
            double trickleSeconds;
            try (SinkChild sink = SinkChild.start(o.sinkJava, jar, config, runDir.resolve("sink.log"),
                    runDir.resolve("gc.log"), o.sinkJavaOpts, null, adminPort);
                 IggyGroupOffsets offsets = new IggyGroupOffsets(settings, STREAM, TOPIC, GROUP, Duration.ofSeconds(5));
                 IggyGroupOffsets watch = new IggyGroupOffsets(settings, STREAM, TOPIC, GROUP, Duration.ofSeconds(5));
                 IggyProducer producer = IggyProducer.connect(iggy.host(), iggy.port())) {
                out.printf("sink pid %d, log %s%n", sink.pid(), runDir.resolve("sink.log"));
                for (int p = 0; p < o.partitions; p++) {
                    producer.send(STREAM, TOPIC, p, List.of(Payloads.json(-1 - p, o.size)));
                    nextOffset[p] = 1;
                }
                long warmDeadline = System.nanoTime() + Duration.ofSeconds(o.timeoutSeconds).toNanos();
                while (!covered(offsets, nextOffset)) {
                    if (System.nanoTime() > warmDeadline || !sink.alive()) {
                        out.printf("the sink did not commit the warm-up records; see %s%n", runDir.resolve("sink.log"));
                        return 1;
                    }
                    Thread.sleep(50);
                }
                cpuStart = sink.cpuTicks();
                ExecutorService poller = Executors.newSingleThreadExecutor();
                long start = System.nanoTime();
                try {
                    Future<Boolean> watched = poller.submit(() -> watchCommits(watch, sentAt, durableAt, offsetOf,
                            start + Duration.ofSeconds(o.trickleSeconds + 60L).toNanos()));
                    for (int i = 0; i < n; i++) {
                        long wait = start + (long) (i * 1e9 / o.trickleRate) - System.nanoTime();
                        if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                        int p = i % o.partitions;
                        long offset = nextOffset[p]++;
                        producer.send(STREAM, TOPIC, p, List.of(Payloads.json(i, o.size)));
                        long sent = System.nanoTime();
                        synchronized (sentAt) {
                            offsetOf[i] = offset;
                            sentAt[i] = sent;
                        }
                        long rss = sink.procKib("VmHWM");
                        if (rss > 0) peakRssKib = Math.max(peakRssKib, rss);
                    }
                    if (!watched.get()) {
                        out.printf("not every record was committed in time; see %s%n", runDir.resolve("sink.log"));
                        return 1;
                    }
                } finally {
                    poller.shutdownNow();
                }
                trickleSeconds = (System.nanoTime() - start) / 1e9;
                cpuEnd = sink.cpuTicks();
                long rss = sink.procKib("VmHWM");
                if (rss > 0) peakRssKib = Math.max(peakRssKib, rss);
                sink.terminate();
                sink.waitFor(Duration.ofSeconds(60));
            }
            double[] ms = new double[n];
            for (int i = 0; i < n; i++) ms[i] = (durableAt[i] - sentAt[i]) / 1e6;
            double last = ms[n - 1];
            double[] sorted = ms.clone();
            Arrays.sort(sorted);
            double p50 = sorted[n / 2];
            double p99 = sorted[Math.max(0, (int) Math.ceil(n * 0.99) - 1)];
            double max = sorted[n - 1];
            double tick = 1.0 / SinkChild.clockTicksPerSecond();
            double cpu = (cpuEnd - cpuStart) * tick;
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("name", o.name);
            r.put("at", Instant.now().toString());
            r.put("scenario", "latency");
            r.put("messages", o.messages);
            r.put("size", o.size);
            r.put("partitions", o.partitions);
            r.put("trickle_per_s", o.trickleRate);
            r.put("rotate_schedule_interval", o.rotateSchedule);
            r.put("rotation", o.rotationKind + ":" + o.rotationValue);
            r.put("latency_last_ms", round(last));
            r.put("latency_p50_ms", round(p50));
            r.put("latency_p99_ms", round(p99));
            r.put("latency_max_ms", round(max));
            r.put("cpu_s", round(cpu));
            r.put("cpu_share_of_one_core", round(cpu / trickleSeconds));
            r.put("peak_rss_mib", peakRssKib / 1024);
            r.put("run_dir", runDir.toString());
            out.printf(Locale.ROOT, """
                    -- %s --
                      last record durable (committed) %.0f ms after it was sent; all %d: p50 %.0f ms, p99 %.0f ms, max %.0f ms
                      (goal: last record <= 2000 ms with rotate_schedule_interval = "1s")
                      cpu while trickling: %.2f s in %.1f s (%.0f %% of one core); peak RSS %d MiB
                    """, o.name, last, n, p50, p99, max, cpu, trickleSeconds, 100 * cpu / trickleSeconds,
                    peakRssKib / 1024);
            append(r);
            return 0;
        }
    }

    private static final long LATENCY_POLL_MILLIS = 10;

    /** Marks each sent record durable at the first committed-offset read that covers it; false on timeout. */
    private boolean watchCommits(IggyGroupOffsets offsets, long[] sentAt, long[] durableAt, long[] offsetOf,
                                 long deadline) throws Exception {
        int n = sentAt.length;
        long[] committed = new long[o.partitions];
        while (true) {
            if (System.nanoTime() > deadline) return false;
            for (int p = 0; p < o.partitions; p++) {
                OptionalLong c = offsets.committedOffset(new PartitionRef(STREAM, TOPIC, p));
                committed[p] = c.isPresent() ? c.getAsLong() : -1;
            }
            long now = System.nanoTime();
            int done = 0;
            synchronized (sentAt) {
                for (int i = 0; i < n; i++) {
                    if (durableAt[i] == 0 && sentAt[i] != 0 && offsetOf[i] <= committed[i % o.partitions]) {
                        durableAt[i] = now;
                    }
                    if (durableAt[i] != 0) done++;
                }
            }
            if (done == n) return true;
            Thread.sleep(LATENCY_POLL_MILLIS);
        }
    }

    /**
     * The wait before the next {@code /status} read: {@value #POLL_MILLIS_BETWEEN} ms while the rate so far says the
     * reading of half the records or of the last one is more than two such waits away, else {@value #POLL_MILLIS}.
     */
    private long untilNextPoll(Sample s, long consumed, long now) {
        if (s.first == 0 || s.readAll != 0 || consumed <= 0 || now <= s.first) return POLL_MILLIS;
        double perMilli = consumed / ((now - s.first) / 1e6);
        long next = consumed * 2 < o.messages ? (o.messages + 1) / 2 : o.messages;
        double millisAway = (next - consumed) / perMilli;
        return millisAway > 2 * POLL_MILLIS_BETWEEN ? POLL_MILLIS_BETWEEN : POLL_MILLIS;
    }

    private boolean covered(IggyGroupOffsets offsets, long[] perPartition) throws Exception {
        for (int p = 0; p < perPartition.length; p++) {
            if (perPartition[p] == 0) continue;
            OptionalLong c = offsets.committedOffset(new PartitionRef(STREAM, TOPIC, p));
            if (c.isEmpty() || c.getAsLong() < perPartition[p] - 1) return false;
        }
        return true;
    }

    private double producerRate;

    /** Sends every message (round robin over partitions) on two connections; returns the count per partition. */
    private long[] produce(IggyEndpoint iggy) throws Exception {
        try (IggyProducer admin = IggyProducer.connect(iggy.host(), iggy.port())) {
            admin.deleteStream(STREAM);
            admin.createStreamIfMissing(STREAM);
            admin.createTopicIfMissing(STREAM, TOPIC, o.partitions);
        }
        long[] perPartition = new long[o.partitions];
        for (int p = 0; p < o.partitions; p++) {
            perPartition[p] = o.messages / o.partitions + (p < o.messages % o.partitions ? 1 : 0);
        }
        int batch = Math.max(1, Math.min(1000, (1 << 20) / o.size));
        int threads = Math.min(2, o.partitions);
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                done.add(pool.submit(() -> {
                    try (IggyProducer producer = IggyProducer.connect(iggy.host(), iggy.port())) {
                        for (int p = first; p < o.partitions; p += threads) {
                            List<byte[]> payloads = new ArrayList<>(batch);
                            for (long i = 0; i < perPartition[p]; i++) {
                                payloads.add(Payloads.json(i * o.partitions + p, o.size, o.shape));
                                if (payloads.size() == batch) {
                                    producer.send(STREAM, TOPIC, p, payloads);
                                    payloads = new ArrayList<>(batch);
                                }
                            }
                            if (!payloads.isEmpty()) producer.send(STREAM, TOPIC, p, payloads);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) f.get();
        } finally {
            pool.shutdown();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        producerRate = o.messages / seconds;
        out.printf("produced %,d messages in %.1f s (%,.0f msg/s)%n", o.messages, seconds, producerRate);
        return perPartition;
    }

    /**
     * Reads every partition once through the in-JVM broker, then waits for this JVM's JIT to go quiet, so that the
     * compilations of the broker's poll path happen before the sink starts and not on the cores the sink's run
     * shares: the broker stands in for an Iggy server, which compiles nothing while it serves. Unwarmed, this JVM's
     * compiler threads took 0.72-0.75 s of CPU while the sink ran (7-8 s, 1 KiB, 8 partitions, 1M records), warmed
     * 0.47 s (what is left compiles the bench's own status reads). Returns the seconds it took.
     */
    private double warmBroker(IggyEndpoint iggy, long[] perPartition) throws InterruptedException {
        long start = System.nanoTime();
        long read = 0;
        StreamId stream = StreamId.of(STREAM);
        TopicId topic = TopicId.of(TOPIC);
        try (IggyProducer reader = IggyProducer.connect(iggy.host(), iggy.port())) {
            // Polls as the sink's: as a member of a group, a partition and an offset given, no auto-commit, each
            // followed by storing the group's offset. A reader of another kind left the broker's compiled poll
            // path to be thrown away and compiled again once the sink's first polls took its other branches.
            ConsumerGroupsClient groups = reader.client().consumerGroups();
            groups.createConsumerGroup(stream, topic, WARMUP_GROUP);
            ConsumerId group = ConsumerId.of(WARMUP_GROUP);
            groups.joinConsumerGroup(stream, topic, group);
            Consumer member = Consumer.group(group);
            for (int p = 0; p < perPartition.length; p++) {
                long offset = 0;
                while (offset < perPartition[p]) {
                    PolledMessages polled = reader.client().messages().pollMessages(stream, topic,
                            Optional.of((long) p), member, PollingStrategy.offset(BigInteger.valueOf(offset)),
                            WARMUP_POLL, false);
                    if (polled.messages().isEmpty()) break;
                    offset += polled.messages().size();
                    read += polled.messages().size();
                    reader.client().consumerOffsets().storeConsumerOffset(stream, topic, Optional.of((long) p),
                            member, BigInteger.valueOf(offset - 1));
                }
            }
            groups.deleteConsumerGroup(stream, topic, group);
        }
        double quietAfter = JitQuiet.await(Duration.ofMillis(300), Duration.ofSeconds(20));
        double seconds = (System.nanoTime() - start) / 1e9;
        out.printf("broker warmed up: read %,d messages, JIT quiet %.1f s later (%.1f s in all)%n", read, quietAfter,
                seconds);
        return seconds;
    }

    /** Frees the broker's copy of the messages before the baseline allocates its bodies. */
    private static void deleteStream(IggyEndpoint iggy) {
        try (IggyProducer admin = IggyProducer.connect(iggy.host(), iggy.port())) {
            admin.deleteStream(STREAM);
        }
    }

    private String toml(String iggyAddress, MinioServer minio, int adminPort) {
        StringBuilder plugin = new StringBuilder();
        if (o.rotationKind.equals("size")) {
            plugin.append("file_rotation = \"size\"\nmax_file_size = \"").append(o.rotationValue).append("\"\n");
        } else {
            plugin.append("file_rotation = \"messages\"\nmax_messages_per_file = ").append(Sizes.parse(o.rotationValue))
                    .append('\n');
        }
        plugin.append("output_format = \"").append(o.format).append("\"\n");
        if (o.rotateSchedule != null) {
            plugin.append("rotate_schedule_interval = \"").append(o.rotateSchedule).append("\"\n");
        }
        plugin.append("compression = \"").append(o.compression).append("\"\n");
        plugin.append("upload_concurrency = ").append(o.uploadConcurrency).append('\n');
        if (o.bufferDirectory != null) {
            plugin.append("buffer_directory = \"").append(o.bufferDirectory.replace("\\", "\\\\")).append("\"\n");
        }
        if (o.selfAudit != null) plugin.append("self_audit_requests_per_minute = ").append(o.selfAudit).append('\n');
        if (o.keyLayout != null) plugin.append("key_layout = \"").append(o.keyLayout).append("\"\n");
        if (o.maxBufferedBytes != null) {
            plugin.append("max_buffered_bytes = \"").append(o.maxBufferedBytes).append("\"\n");
        }
        if (o.format.equals("avro") || o.format.equals("parquet")) {
            plugin.append("avro_schema_json = '''").append(Payloads.AVRO_SCHEMA).append("'''\n");
        }
        String schema = o.format.equals("raw") ? "raw" : "json";
        return """
                type = "sink"
                key = "s3bench"
                enabled = true
                version = 0
                name = "S3 sink bench"
                path = "target/release/libiggy_connector_s3_sink"
                plugin_config_format = "toml"

                [iggy]
                address = "%s"
                username = "iggy"
                password = "iggy"

                [[streams]]
                stream = "%s"
                topics = ["%s"]
                schema = "%s"
                batch_length = %d
                poll_interval = "5ms"
                consumer_group = "%s"

                [plugin_config]
                bucket = "%s"
                prefix = "%s"
                region = "%s"
                endpoint = "%s"
                access_key_id = "%s"
                secret_access_key = "%s"
                path_style = true
                path_template = "{stream}/{topic}/{date}/{hour}"
                %s
                [admin]
                address = "127.0.0.1:%d"
                """.formatted(iggyAddress, STREAM, TOPIC, schema, o.batchLength, GROUP, BUCKET, PREFIX,
                minio.region(), minio.endpoint(), minio.accessKey(), minio.secretKey(), plugin, adminPort);
    }

    /** A MinIO of the bench's own publishes its request counters ({@link StoreRequests}); an external one may not. */
    private static MinioServer startMinio() {
        String external = System.getenv("S3_TEST_ENDPOINT");
        return external != null && !external.isBlank() ? MinioServer.start()
                : MinioServer.startWith(StoreRequests.MINIO_ENV);
    }

    /**
     * The store's requests per file the sink wrote: from the first consumed record to the sink's exit (steady state:
     * the start-up's probes and lookups left out) and from before its launch; per API from launch. The claims
     * written, refused and deleted come from the same counters with the start-up's own requests taken out: the bucket
     * probe (a PUT and a DELETE) and one round of the conditional-write probe (a key created, created again, which a
     * store honouring the condition refuses, and deleted); the claims deleted are those written less those still in
     * the bucket, however they were deleted (one request each or many a request). -1 where the store publishes no
     * counters.
     */
    private static void putRequests(Map<String, Object> r, Sample s, int files, int claimsLeft) {
        boolean known = s.requestsLaunch.isPresent() && s.requestsExit.isPresent();
        StoreRequests all = known ? s.requestsExit.get().since(s.requestsLaunch.get()) : null;
        StoreRequests steady = s.requestsFirst.isPresent() && s.requestsExit.isPresent()
                ? s.requestsExit.get().since(s.requestsFirst.get()) : null;
        r.put("store_requests", steady != null ? steady.all() : -1L);
        r.put("store_requests_per_file", steady != null && files > 0 ? round((double) steady.all() / files) : -1.0);
        r.put("store_requests_from_launch", all != null ? all.all() : -1L);
        r.put("store_requests_per_file_from_launch", all != null && files > 0 ? round((double) all.all() / files)
                : -1.0);
        r.put("store_requests_by_api", all != null ? all.breakdown() : "-");
        boolean on = "on".equals(r.get("claims"));
        long puts = all == null ? 0 : all.of("PutObject") - all.refusedOf("PutObject");
        long written = puts - files - 1 - (on ? 1 : 2);
        r.put("claims_written", all == null ? -1L : written);
        r.put("claims_refused", all == null ? -1L : all.refusedOf("PutObject") - (on ? 1 : 0));
        r.put("claims_deleted", all == null ? -1L : written - claimsLeft);
    }

    private static void readAudit(Sample s, SinkChild sink) {
        String metrics = sink.metrics();
        s.cpuAtAudit = sink.cpuTicks();
        s.auditCpuSeconds = SinkChild.metric(metrics, "iggysink_audit_cpu_seconds_total");
        s.auditRequests = SinkChild.metric(metrics, "iggysink_audit_requests_total");
    }

    /**
     * What the self-audit cost the run: its thread's CPU time as a share of the sink's CPU time (both from launch to
     * the moment everything was uploaded), and its store requests as a share of all the store served from launch to
     * exit. -1 where not known (the self-audit off: no meter).
     */
    private static void putAudit(Map<String, Object> r, Sample s) {
        double tick = 1.0 / SinkChild.clockTicksPerSecond();
        boolean cpu = s.auditCpuSeconds >= 0 && s.cpuAtAudit > 0;
        r.put("audit_cpu_s", cpu ? round(s.auditCpuSeconds) : -1.0);
        r.put("audit_cpu_share_pct", cpu ? round4(100 * s.auditCpuSeconds / (s.cpuAtAudit * tick)) : -1.0);
        boolean steady = cpu && s.auditCpuFirst >= 0 && s.cpuFirst >= 0 && s.cpuAtAudit > s.cpuFirst;
        r.put("audit_cpu_share_steady_pct", steady ? round4(100 * (s.auditCpuSeconds - s.auditCpuFirst)
                / ((s.cpuAtAudit - s.cpuFirst) * tick)) : -1.0);
        long all = ((Number) r.get("store_requests_from_launch")).longValue();
        r.put("audit_requests", s.auditRequests >= 0 ? (long) s.auditRequests : -1L);
        r.put("audit_request_share_pct", s.auditRequests >= 0 && all > 0 ? round4(100 * s.auditRequests / all)
                : -1.0);
    }

    private static double round4(double v) {
        return Math.round(v * 10_000) / 10_000.0;
    }

    private StorageSettings storage(MinioServer minio) {
        StorageSettings basic = StorageSettings.basic(BUCKET, minio.region(), Optional.of(minio.endpoint().toString()),
                Optional.of(minio.accessKey()), Optional.of(Secret.of(minio.secretKey())));
        return new StorageSettings(basic.bucket(), basic.region(), basic.endpoint(), true, basic.accessKeyId(),
                basic.secretAccessKey(), basic.client(), basic.multipartThreshold(), basic.multipartPartSize(),
                o.uploadConcurrency, basic.sse(), basic.sseKmsKeyId(), basic.storageClass(), basic.cannedAcl(),
                basic.objectTags(), basic.requestTimeout());
    }

    private Path sinkJar() {
        if (o.sinkJar != null) return Path.of(o.sinkJar);
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            Path candidate = d.resolve("bootstrap/target/iggy-s3-sink.jar");
            if (Files.isRegularFile(candidate)) return candidate;
        }
        throw new IllegalStateException("bootstrap/target/iggy-s3-sink.jar not found from " + dir
                + ": build it (mvn -B -q -DskipTests package) or pass --sink-jar");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private void print(Map<String, Object> r) {
        out.printf(Locale.ROOT, """
                -- %s --
                  sink:      %,.0f records/s   %.1f MB/s payload   %.1f MB/s objects   %.1f objects/s   (%d objects, %.1f MB, %.2f s; start-up %.2f s before)
                  raw PUT:   %s objects/s   %s MB/s   (%s s)   sink/raw-PUT = %s
                  2nd half:  %,.0f records/s   sink/raw-PUT = %s   (from the reading with half the records read to the last commit)
                  cpu:       %s us/record (%s s user+system from the first record to the last commit); with start-up %s us/record (%s s); second half %s us/record
                  last record: durable and committed %s ms after the sink had read it (SIGTERM flush: %s)
                  memory:    peak RSS %d MiB; heap used peak %d MiB, live max %d MiB, committed max %d MiB; buffered peak %s MiB, paused: %s
                  cores:     sink %s + MinIO %s + broker (bench JVM) %s busy of %s; held back by the hypervisor (steal) %s
                  cpu bound: raw PUT kept MinIO %s + client %s cores busy (steal %s); MinIO used %s ms of CPU per object MB here, %s in raw PUT
                             this run's CPU allows at most %s of raw PUT (%s of that reached); a sink using no CPU: %s; 0.8 needs the sink at <= %s us/record
                  producer:  %,.0f msg/s; sink exit %s; %s reads of the sink's /status
                  requests:  %s per file from the first record to the exit, %s from launch (%s); claims %s: %s written, %s refused, %s deleted
                  self-audit: budget %s requests/min; its thread %s s CPU = %s%% of the sink's (%s%% from the first record); %s store requests = %s%% of all
                """, r.get("name"), (double) r.get("records_per_s"), (double) r.get("payload_mb_per_s"),
                (double) r.get("object_mb_per_s"), (double) r.get("objects_per_s"), (int) r.get("objects"),
                (double) r.get("object_mb"), (double) r.get("sink_seconds"), (double) r.get("sink_startup_s"),
                r.getOrDefault("raw_put_objects_per_s", "-"), r.getOrDefault("raw_put_mb_per_s", "-"),
                r.getOrDefault("raw_put_seconds", "-"), r.getOrDefault("sink_vs_raw_put", "-"),
                (double) r.get("records_per_s_second_half"), r.getOrDefault("sink_vs_raw_put_second_half", "-"),
                r.get("cpu_us_per_record"), r.get("cpu_s"), r.get("cpu_total_us_per_record"), r.get("cpu_total_s"),
                r.get("cpu_second_half_us_per_record"), r.get("time_to_durable_last_ms"), r.get("sigterm_needed"), (long) r.get("peak_rss_mib"),
                (long) r.get("heap_used_peak_mib"), (long) r.get("heap_live_max_mib"),
                (long) r.get("heap_committed_max_mib"), r.get("buffered_peak_mib"), r.get("paused_seen"),
                r.getOrDefault("cores_sink", "-"), r.getOrDefault("cores_minio", "-"),
                r.getOrDefault("cores_bench_jvm", "-"), r.getOrDefault("cores_machine", "-"),
                r.getOrDefault("cores_steal", "-"),
                r.getOrDefault("raw_put_cores_minio", "-"), r.getOrDefault("raw_put_cores_client", "-"),
                r.getOrDefault("raw_put_cores_steal", "-"),
                r.getOrDefault("minio_cpu_ms_per_mb_sink", "-"), r.getOrDefault("minio_cpu_ms_per_mb_raw_put", "-"),
                r.getOrDefault("cpu_bound_ratio", "-"), r.getOrDefault("sink_vs_cpu_bound", "-"),
                r.getOrDefault("cpu_bound_ratio_without_sink", "-"),
                r.getOrDefault("sink_cpu_us_per_record_for_0_8", "-"),
                (double) r.get("producer_records_per_s"), r.get("sink_exit"), r.get("status_polls"),
                r.get("store_requests_per_file"), r.get("store_requests_per_file_from_launch"),
                r.get("store_requests_by_api"), r.get("claims"), r.get("claims_written"), r.get("claims_refused"),
                r.get("claims_deleted"), r.get("self_audit_requests_per_minute"), r.get("audit_cpu_s"),
                r.get("audit_cpu_share_pct"), r.get("audit_cpu_share_steady_pct"), r.get("audit_requests"),
                r.get("audit_request_share_pct"));
    }

    private void append(Map<String, Object> r) throws IOException {
        StringBuilder json = new StringBuilder("{");
        for (Map.Entry<String, Object> e : r.entrySet()) {
            if (json.length() > 1) json.append(',');
            json.append('"').append(e.getKey()).append("\":");
            Object v = e.getValue();
            if (v instanceof Number || v instanceof Boolean) json.append(v);
            else json.append('"').append(String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        json.append("}\n");
        Path file = Path.of(o.results);
        if (file.getParent() != null) Files.createDirectories(file.getParent());
        Files.writeString(file, json, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        out.println("appended to " + file);
    }

    /**
     * CPU per record from the child's {@code /proc/<pid>/stat}: from the first consumed record to the commit that
     * covered everything (start-up excluded), and from process start (start-up included).
     */
    /**
     * CPU per record over the run's second half (from the first reading with half the records read to the end):
     * what a long-running sink spends once its code is compiled, without the first half's compiler work.
     */
    private void putWarmCpu(Map<String, Object> r, Sample s) {
        long records = o.messages - s.halfConsumed;
        boolean known = s.halfConsumed >= 0 && s.cpuHalf >= 0 && s.cpuEnd >= s.cpuHalf && records > 0;
        double tick = 1.0 / SinkChild.clockTicksPerSecond();
        r.put("cpu_second_half_us_per_record", known ? round((s.cpuEnd - s.cpuHalf) * tick * 1e6 / records) : -1.0);
    }

    /**
     * Records per second from the first reading with half the records read to the last commit, -1 when not seen:
     * the rate of a sink whose code is compiled. A lower bound of it: that window also makes durable the records
     * still buffered in open files at its start.
     */
    static double warmRate(long messages, long halfConsumed, long halfAtNanos, long endNanos) {
        long records = messages - halfConsumed;
        if (halfConsumed < 0 || records <= 0 || endNanos <= halfAtNanos) return -1;
        return records / ((endNanos - halfAtNanos) / 1e9);
    }

    private static void putCpu(Map<String, Object> r, long first, long end, long records) {
        double tick = 1.0 / SinkChild.clockTicksPerSecond();
        boolean known = first >= 0 && end >= first;
        r.put("cpu_s", known ? round((end - first) * tick) : -1.0);
        r.put("cpu_us_per_record", known ? round((end - first) * tick * 1e6 / records) : -1.0);
        r.put("cpu_total_s", end >= 0 ? round(end * tick) : -1.0);
        r.put("cpu_total_us_per_record", end >= 0 ? round(end * tick * 1e6 / records) : -1.0);
    }

    /**
     * How many cores each process kept busy from the first record to the last commit: the sink, MinIO, and this JVM
     * (the in-JVM broker serving the polls, plus the bench's own status reads), against the cores there are. When
     * their sum is the machine, the sink's records/s are bound by the machine, not by waiting. On a virtual machine,
     * also the cores' worth the hypervisor held back (steal): a noisy neighbour makes every figure of the run slower.
     */
    private static void putCores(Map<String, Object> r, Sample s, double seconds) {
        double tick = 1.0 / SinkChild.clockTicksPerSecond();
        r.put("cores_sink", s.cpuFirst >= 0 && s.cpuEnd >= s.cpuFirst
                ? round((s.cpuEnd - s.cpuFirst) * tick / seconds) : -1.0);
        r.put("cores_minio", s.minioFirst >= 0 && s.minioEnd >= s.minioFirst
                ? round((s.minioEnd - s.minioFirst) * tick / seconds) : -1.0);
        r.put("cores_bench_jvm", s.selfFirst >= 0 && s.selfEnd >= s.selfFirst
                ? round((s.selfEnd - s.selfFirst) * tick / seconds) : -1.0);
        r.put("cores_machine", Runtime.getRuntime().availableProcessors());
        long steal = RawPutBaseline.difference(s.stealFirst, s.stealEnd);
        r.put("cores_steal", steal >= 0 ? round(steal * tick / seconds) : -1.0);
    }

    /**
     * The CPU the run's processes used, against what two (or N) cores give in the raw-PUT baseline's time: MinIO's
     * cores in the baseline and its CPU per MB in both runs, the best ratio this run's CPU (sink + MinIO + the bench
     * JVM's broker) allows, the best a sink using no CPU at all could get with this MinIO and broker, and the sink CPU
     * per record that would leave room for 0.8. The CPU the hypervisor held back in the sink's window counts as used:
     * the run could not have it. Upper bounds: they leave out the kernel's own threads, and with
     * {@code IGGY_TCP_ADDRESS} the server's CPU (this JVM then serves no polls).
     */
    private void putCpuBound(Map<String, Object> r, Sample s, RawPutBaseline.Result b, double sinkSeconds,
                             long objectBytes) {
        double tick = 1.0 / SinkChild.clockTicksPerSecond();
        double objectMb = objectBytes / 1e6;
        boolean baselineKnown = b.minioTicks() >= 0 && b.clientTicks() >= 0;
        r.put("raw_put_cores_minio", baselineKnown ? round(b.minioTicks() * tick / b.seconds()) : -1.0);
        r.put("raw_put_cores_client", baselineKnown ? round(b.clientTicks() * tick / b.seconds()) : -1.0);
        r.put("raw_put_cores_steal", b.stealTicks() >= 0 ? round(b.stealTicks() * tick / b.seconds()) : -1.0);
        r.put("minio_cpu_ms_per_mb_raw_put", baselineKnown ? round(b.minioTicks() * tick * 1e3 / objectMb) : -1.0);
        boolean sinkKnown = s.cpuFirst >= 0 && s.cpuEnd >= s.cpuFirst && s.minioFirst >= 0
                && s.minioEnd >= s.minioFirst && s.selfFirst >= 0 && s.selfEnd >= s.selfFirst;
        double minioCpu = sinkKnown ? (s.minioEnd - s.minioFirst) * tick : -1;
        r.put("minio_cpu_ms_per_mb_sink", sinkKnown ? round(minioCpu * 1e3 / objectMb) : -1.0);
        double steal = Math.max(0, RawPutBaseline.difference(s.stealFirst, s.stealEnd)) * tick;
        CpuBound bound = sinkKnown ? new CpuBound(b.seconds(), (s.cpuEnd - s.cpuFirst) * tick, minioCpu,
                (s.selfEnd - s.selfFirst) * tick, steal, Runtime.getRuntime().availableProcessors(), o.messages)
                : null;
        r.put("cpu_bound_ratio", bound != null ? round(bound.ratio()) : -1.0);
        r.put("cpu_bound_ratio_without_sink", bound != null ? round(bound.ratioWithoutSink()) : -1.0);
        r.put("sink_cpu_us_per_record_for_0_8", bound != null ? round(bound.sinkUsPerRecordFor(0.8)) : -1.0);
        r.put("sink_vs_cpu_bound", bound != null && bound.ratio() > 0
                ? round(b.seconds() / sinkSeconds / bound.ratio()) : -1.0);
    }

    /**
     * What a run's CPU allows, as raw-PUT ratios: the run cannot take less wall time than its processes' CPU seconds
     * over the cores (nothing waits and every core is busy), so its ratio is at most {@code baselineSeconds} over
     * that time. {@code stealCpu}: what the hypervisor held back meanwhile, which no process could use.
     */
    record CpuBound(double baselineSeconds, double sinkCpu, double minioCpu, double brokerCpu, double stealCpu,
                    int cores, long records) {
        /** The best ratio the run's CPU (sink + MinIO + broker + steal) allows. */
        double ratio() {
            return baselineSeconds / ((sinkCpu + minioCpu + brokerCpu + stealCpu) / cores);
        }

        /** The best ratio with this MinIO and broker CPU (and steal) and a sink that used none. */
        double ratioWithoutSink() {
            return baselineSeconds / ((minioCpu + brokerCpu + stealCpu) / cores);
        }

        /** The most sink CPU per record (us) that leaves room for {@code ratio}; negative when none does. */
        double sinkUsPerRecordFor(double ratio) {
            double wall = baselineSeconds / ratio;
            return (wall * cores - minioCpu - brokerCpu - stealCpu) * 1e6 / records;
        }
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
