package dev.iggysink.benchmarks.micro;

import java.io.File;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.inmemory.InMemoryOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;

/**
 * {@code table-writer}: Iceberg's Parquet writer alone, as the table sink drives it (8 writers, one per Iggy
 * partition, rows of the table bench's schema, the write properties of the tables the sink creates), each variant in
 * a child JVM with the launcher's heap and collector options, so the collections counted are the ones a sink would
 * see from its writers. Variants: where a file is written while open (memory, as the sink's {@code IcebergTables.Part}
 * today, whose bytes are then copied out; or a local file) and Parquet's row-group size (the default 128 MiB holds a
 * whole data file in Parquet's buffers until it is closed). Prints per variant: full and young collections and their
 * time, the writing thread's CPU per row and the process's, the heap in use at its peak (before a collection) and
 * the old generation after one, and the bytes written.
 */
public final class TableWriterHeap {
    /** The launcher's heap and collector options (distribution's {@code bin/iggy-s3-sink}, default heap). */
    static final List<String> LAUNCHER_HEAP = List.of("-XX:+UseSerialGC", "-XX:PretenureSizeThreshold=60k",
            "-XX:MinHeapFreeRatio=20", "-Xmx256m", "-Xms48m", "-Xmn24m");
    static final Map<String, String> SINK_PROPERTIES = dev.iggysink.adapters.iceberg.TableTemplate.WRITE_PROPERTIES;
    static final Schema SCHEMA = dev.iggysink.benchmarks.BenchTable.SCHEMA;
    private static final String[] LEVELS = {"info", "warn", "error", "debug"};
    private static final String FILLER = "The quick brown fox jumps over the lazy dog; lorem ipsum dolor sit amet. ";
    private static final int WRITERS = 8;
    /** The bench's {@code max_file_size}: a writer is closed once it reports this many bytes. */
    private static final long MAX_FILE = 8L << 20;

    /** Where a variant's files go while open, and Parquet's row-group size (0: Iceberg's default). */
    record Variant(String name, boolean onDisk, long rowGroup) {
        static Variant parse(String s) {
            String[] p = s.split("-", 2);
            boolean disk = switch (p[0]) {
                case "heap" -> false;
                case "file" -> true;
                default -> throw new IllegalArgumentException("variant " + s + ": heap[-<MiB>m] or file[-<MiB>m]");
            };
            long group = p.length == 1 ? 0 : Long.parseLong(p[1].replace("m", "")) << 20;
            return new Variant(s, disk, group);
        }
    }

    /** What one run measured. */
    record Figures(long rows, long fullGcs, long fullGcMillis, long youngGcs, long youngGcMillis, double threadUs,
                   double processUs, long peakHeap, long oldAfterGc, long bytes, int files) {
    }

    private TableWriterHeap() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    public static int run(String[] args) throws Exception {
        Map<String, String> o;
        try {
            o = options(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        long rows = Long.parseLong(o.getOrDefault("--rows", "600000"));
        int size = Integer.parseInt(o.getOrDefault("--size", "1024"));
        boolean random = "random".equals(o.getOrDefault("--text", "repeated"));
        long closeEvery = Long.parseLong(o.getOrDefault("--close-every", "0"));
        if (o.containsKey("--child")) {
            Figures f = measure(Variant.parse(o.get("--child")), rows, size, random, closeEvery,
                    Path.of(o.get("--dir")));
            System.out.println("FIGURES " + f.rows() + " " + f.fullGcs() + " " + f.fullGcMillis() + " " + f.youngGcs()
                    + " " + f.youngGcMillis() + " " + f.threadUs() + " " + f.processUs() + " " + f.peakHeap() + " "
                    + f.oldAfterGc() + " " + f.bytes() + " " + f.files());
            return 0;
        }
        List<String> variants = List.of(o.getOrDefault("--variants", "heap,file-1m,file-4m,heap-1m").split(","));
        List<String> jvm = o.containsKey("--jvm") ? List.of(o.get("--jvm").trim().split("\\s+")) : LAUNCHER_HEAP;
        int rounds = Integer.parseInt(o.getOrDefault("--rounds", "1"));
        System.out.printf(Locale.ROOT, "table-writer: %d rows of %d B (%s text), %d writers, files closed at %s, "
                        + "JVM %s, load %s%n", rows, size, random ? "random" : "repeated", WRITERS,
                closeEvery > 0 ? closeEvery + " rows a writer or 8 MiB" : "8 MiB", String.join(" ", jvm),
                load());
        System.out.printf("%-10s %5s %12s %13s %11s %12s %10s %10s %10s %6s%n", "variant", "round", "full (ms)",
                "young (ms)", "thread us/row", "proc us/row", "peak MiB", "live MiB", "bytes MiB", "files");
        Path dir = Files.createTempDirectory("table-writer");
        try {
            for (int r = 1; r <= rounds; r++) {
                for (String v : variants) {
                    Figures f = child(jvm, v, rows, size, random, closeEvery, dir);
                    System.out.printf(Locale.ROOT, "%-10s %5d %4d (%5d) %5d (%5d) %13.2f %12.2f %10.1f %10.1f %10.2f"
                                    + " %6d%n", v, r, f.fullGcs(), f.fullGcMillis(), f.youngGcs(), f.youngGcMillis(),
                            f.threadUs(), f.processUs(), mib(f.peakHeap()), mib(f.oldAfterGc()), mib(f.bytes()),
                            f.files());
                }
            }
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
        System.out.println("load after: " + load());
        return 0;
    }

    private static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }

    private static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean()
                    .getSystemLoadAverage());
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 == args.length) {
                throw new IllegalArgumentException("usage: table-writer [--rows N] [--size B] [--text repeated|random]"
                        + " [--close-every ROWS] [--variants heap,file-1m,...] [--rounds R] [--jvm \"OPTIONS\"]; at " + args[i]);
            }
            o.put(args[i], args[++i]);
        }
        return o;
    }

    private static Figures child(List<String> jvm, String variant, long rows, int size, boolean random, long closeEvery, Path dir)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvm);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), TableWriterHeap.class.getName(),
                "--child", variant, "--rows", Long.toString(rows), "--size", Integer.toString(size), "--text",
                random ? "random" : "repeated", "--close-every", Long.toString(closeEvery), "--dir", dir.toString()));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException("child " + variant + " failed: " + out);
        }
        String line = out.lines().filter(l -> l.startsWith("FIGURES ")).findFirst()
                .orElseThrow(() -> new IOException("child " + variant + " printed no figures: " + out));
        String[] v = line.substring(8).split(" ");
        return new Figures(Long.parseLong(v[0]), Long.parseLong(v[1]), Long.parseLong(v[2]), Long.parseLong(v[3]),
                Long.parseLong(v[4]), Double.parseDouble(v[5]), Double.parseDouble(v[6]), Long.parseLong(v[7]),
                Long.parseLong(v[8]), Long.parseLong(v[9]), Integer.parseInt(v[10]));
    }

    /** One open data file of one writer. */
    private static final class Open {
        final OutputFile output;
        final File local;
        final DataWriter<Record> writer;
        long rows;

        Open(Variant variant, Path dir, int writer, int seq) {
            if (variant.onDisk()) {
                local = dir.resolve(variant.name() + "-" + writer + "-" + seq + ".parquet").toFile();
                output = org.apache.iceberg.Files.localOutput(local);
            } else {
                local = null;
                output = new InMemoryOutputFile();
            }
            Map<String, String> props = new HashMap<>(SINK_PROPERTIES);
            if (variant.rowGroup() > 0) props.put("write.parquet.row-group-size-bytes", Long.toString(variant.rowGroup()));
            this.writer = writerOf(output, props);
        }

        /** Closes the file and hands its bytes on as staging would (today's copy out of memory); its size. */
        long close() throws IOException {
            writer.close();
            if (local == null) return ((InMemoryOutputFile) output).toByteArray().length;
            long n = local.length();
            Files.delete(local.toPath());
            return n;
        }
    }

    private static final ClassLoader WITHOUT_HADOOP_DEFAULTS = new ClassLoader(TableWriterHeap.class.getClassLoader()) {
        @Override
        public java.net.URL getResource(String name) {
            return name.equals("core-default.xml") || name.equals("core-site.xml") ? null : super.getResource(name);
        }
    };

    /** Built as the sink builds its writers (without Hadoop's default resources, see {@code IcebergTables}). */
    private static DataWriter<Record> writerOf(OutputFile output, Map<String, String> props) {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(WITHOUT_HADOOP_DEFAULTS);
        try {
            return Parquet.writeData(output).schema(SCHEMA).withSpec(PartitionSpec.unpartitioned()).setAll(props)
                    .createWriterFunc(GenericParquetWriter::create).overwrite().build();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    /**
     * Heap in use just before each collection (its peak since the one before), and the old generation after a full
     * one (what the writers hold then; after a young one it holds promoted garbage too).
     */
    private static final class HeapWatch {
        volatile long peak;
        volatile long oldAfter;

        void start() {
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                ((NotificationEmitter) gc).addNotificationListener((n, h) -> {
                    var info = com.sun.management.GarbageCollectionNotificationInfo
                            .from((CompositeData) n.getUserData()).getGcInfo();
                    long before = 0;
                    for (MemoryUsage u : info.getMemoryUsageBeforeGc().values()) before += u.getUsed();
                    long old = 0;
                    boolean full = gc.getName().contains("MarkSweep") || gc.getName().contains("Old");
                    for (var e : info.getMemoryUsageAfterGc().entrySet()) {
                        if (!full) break;
                        if (e.getKey().contains("Tenured") || e.getKey().contains("Old")) old += e.getValue().getUsed();
                    }
                    synchronized (this) {
                        peak = Math.max(peak, before);
                        oldAfter = Math.max(oldAfter, old);
                    }
                }, n -> n.getType().equals(
                        com.sun.management.GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION), null);
            }
        }
    }

    /** Writes {@code rows} rows round-robin into 8 writers, after a warm-up of a quarter as many; its figures. */
    static Figures measure(Variant variant, long rows, int size, boolean random, long closeEvery, Path dir)
            throws IOException {
        pass(variant, rows / 4, size, random, closeEvery, dir, new long[2]);
        System.gc();
        HeapWatch watch = new HeapWatch();
        watch.start();
        long[] full = gcs(true);
        long[] young = gcs(false);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long proc0 = os.getProcessCpuTime();
        long[] written = new long[2];
        pass(variant, rows, size, random, closeEvery, dir, written);
        long cpu = threads.getCurrentThreadCpuTime() - cpu0;
        long proc = os.getProcessCpuTime() - proc0;
        long[] full1 = gcs(true);
        long[] young1 = gcs(false);
        // the heap in use at the end counts as a peak too (no collection may have come after the last rise)
        long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        return new Figures(rows, full1[0] - full[0], full1[1] - full[1], young1[0] - young[0], young1[1] - young[1],
                cpu / 1000.0 / rows, proc / 1000.0 / rows, Math.max(watch.peak, now), watch.oldAfter, written[0],
                (int) written[1]);
    }

    /** Collections of the serial collector's old generation ({@code MarkSweepCompact}) or its young one. */
    private static long[] gcs(boolean full) {
        long n = 0;
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            boolean old = gc.getName().contains("MarkSweep") || gc.getName().contains("Old");
            if (old == full) {
                n += gc.getCollectionCount();
                ms += gc.getCollectionTime();
            }
        }
        return new long[] {n, ms};
    }

    private static void pass(Variant variant, long rows, int size, boolean random, long closeEvery, Path dir,
                             long[] written) throws IOException {
        Open[] open = new Open[WRITERS];
        int seq = 0;
        long seed = 0x9E3779B97F4A7C15L;
        StringBuilder msg = new StringBuilder(size);
        Instant start = Instant.parse("2026-12-05T12:00:00Z");
        for (long i = 0; i < rows; i++) {
            int w = (int) (i % WRITERS);
            if (open[w] == null) open[w] = new Open(variant, dir, w, seq++);
            msg.setLength(0);
            // the payload's fixed fields take about 80 of its bytes, as in the table bench's JSON
            int pad = Math.max(0, size - 80);
            if (random) {
                for (int k = 0; k < pad; k++) {
                    seed ^= seed << 13;
                    seed ^= seed >>> 7;
                    seed ^= seed << 17;
                    msg.append((char) ('a' + (int) ((seed >>> 33) % 26)));
                }
            } else {
                while (msg.length() < pad) msg.append(FILLER, 0, Math.min(FILLER.length(), pad - msg.length()));
            }
            GenericRecord row = GenericRecord.create(SCHEMA);
            row.set(0, i / WRITERS);
            row.set(1, w);
            row.set(2, OffsetDateTime.ofInstant(start.plusMillis(i / 100), ZoneOffset.UTC));
            row.set(3, i);
            row.set(4, LEVELS[(int) (i & 3)]);
            row.set(5, "user-" + (i % 9973));
            row.set(6, (i % 1000) / 10.0);
            row.set(7, msg.toString());
            Open o = open[w];
            o.writer.write(row);
            o.rows++;
            if ((closeEvery > 0 && o.rows >= closeEvery) || o.writer.length() >= MAX_FILE) {
                written[0] += o.close();
                written[1]++;
                open[w] = null;
            }
        }
        for (Open o : open) {
            if (o == null) continue;
            written[0] += o.close();
            written[1]++;
        }
    }
}
