package dev.iggysink.benchmarks.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real sink jar as a child process ({@code java -jar iggy-s3-sink.jar run --config F}), its log in a file, its
 * GC log for the heap figures, its {@code /proc} memory counters and its admin {@code /status}.
 */
final class SinkChild implements AutoCloseable {
    private static final Pattern GC_PAUSE = Pattern.compile("(\\d+)([KMG])->(\\d+)([KMG])\\((\\d+)([KMG])\\)");

    private final Process process;
    private final Path gcLog;
    private final URI status;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private SinkChild(Process process, Path gcLog, URI status) {
        this.process = process;
        this.gcLog = gcLog;
        this.status = status;
    }

    static SinkChild start(String java, Path jar, Path config, Path log, Path gcLog, List<String> javaOpts, Path jfr,
                           int adminPort) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(java != null ? java : Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(javaOpts);
        cmd.add("-Xlog:gc:file=" + gcLog);
        if (jfr != null) cmd.add("-XX:StartFlightRecording=duration=60s,settings=profile,filename=" + jfr);
        cmd.addAll(List.of("-jar", jar.toString(), "run", "--config", config.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        return new SinkChild(pb.start(), gcLog, URI.create("http://127.0.0.1:" + adminPort + "/status"));
    }

    /**
     * The sink as a user starts it: the distribution's launcher script ({@code bin/iggy-s3-sink}, which picks the JVM
     * options and execs java, so the child's pid is the JVM's), laid out in {@code home} beside the jar as the tarball
     * has it. {@code javaOpts} go to the launcher's {@code JAVA_OPTS}: they come after its defaults and a heap option
     * in them replaces its heap.
     */
    static SinkChild startLauncher(Path launcher, Path home, Path jar, Path config, Path log, Path gcLog,
                                   String javaOpts, int adminPort) throws IOException {
        Path bin = Files.createDirectories(home.resolve("bin")).resolve("iggy-s3-sink");
        Path lib = Files.createDirectories(home.resolve("lib")).resolve("iggy-s3-sink.jar");
        Files.copy(launcher, bin, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.deleteIfExists(lib);
        Files.createSymbolicLink(lib, jar.toAbsolutePath());
        ProcessBuilder pb = new ProcessBuilder("sh", bin.toString(), "run", "--config", config.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("JAVA_OPTS", ("-Xlog:gc:file=" + gcLog + " " + javaOpts).trim());
        // The launcher's class-data archive would make the first run of a bench record it and later runs start from
        // it: off, so that runs compare, unless the bench's own environment names a directory for it.
        pb.environment().putIfAbsent("IGGY_S3_SINK_AOT_DIR", "");
        return new SinkChild(pb.start(), gcLog, URI.create("http://127.0.0.1:" + adminPort + "/status"));
    }

    /** The child's command line as the kernel has it ({@code /proc/<pid>/cmdline}), words joined by spaces. */
    String commandLine() {
        try {
            return Files.readString(Path.of("/proc", Long.toString(process.pid()), "cmdline"),
                    StandardCharsets.UTF_8).replace('\0', ' ').trim();
        } catch (IOException e) {
            return "";
        }
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** The admin {@code /status} body, or null while the server is not up (or after it stopped). */
    String status() {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(status).timeout(Duration.ofSeconds(2)).GET()
                    .build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The admin {@code /metrics} body (Prometheus text), or null while the server is not up. */
    String metrics() {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(status.resolve("/metrics"))
                    .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The sum of every sample of the Prometheus metric {@code name} in {@code text}; -1 when there is none. */
    static double metric(String text, String name) {
        if (text == null) return -1;
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? ([-+0-9.eE]+)$").matcher(text);
        double total = -1;
        while (m.find()) total = Math.max(total, 0) + Double.parseDouble(m.group(1));
        return total;
    }

    /** The first {@code "name":<number>} of a JSON text (the totals come before the partitions). */
    static OptionalLong number(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*(-?\\d+)").matcher(json);
        return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    /** The sum of every {@code "name":<number>} of a JSON text (one per partition). */
    static long sum(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*(-?\\d+)").matcher(json);
        long total = 0;
        while (m.find()) total += Long.parseLong(m.group(1));
        return total;
    }

    /** {@code /proc/<pid>/status} field in KiB (VmHWM = peak RSS, VmRSS = now); −1 when gone. */
    long procKib(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(line.substring(field.length() + 1).replace("kB", "").trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /**
     * CPU time the child has used so far, user + system, in clock ticks ({@code utime + stime} of
     * {@code /proc/<pid>/stat}); −1 when gone or not Linux.
     */
    long cpuTicks() {
        return cpuTicksOf(process.pid());
    }

    /** As {@link #cpuTicksOf(long)} for a process that may be unknown (−1 then), e.g. MinIO. */
    static long cpuTicksOf(OptionalLong pid) {
        return pid.isPresent() ? cpuTicksOf(pid.getAsLong()) : -1;
    }

    /** As {@link #cpuTicks()} for this JVM (the in-JVM broker, the raw-PUT client). */
    static long ownCpuTicks() {
        return cpuTicksOf(ProcessHandle.current().pid());
    }

    /** As {@link #cpuTicks()} for any process, e.g. MinIO or this JVM (the in-JVM broker). */
    static long cpuTicksOf(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // Fields after the command name (which may hold spaces) start at "state", field 3; utime is 14.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * CPU time the hypervisor held back from this machine so far, over all its cores, in clock ticks (the steal
     * field of {@code /proc/stat}): time a core had work but was running another guest. −1 when not known.
     */
    static long stealTicks() {
        try (BufferedReader in = Files.newBufferedReader(Path.of("/proc/stat"), StandardCharsets.US_ASCII)) {
            return stealTicks(in.readLine());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The steal field of the first ({@code cpu}, all cores) line of {@code /proc/stat}; −1 when it has none. */
    static long stealTicks(String allCoresLine) {
        if (allCoresLine == null || !allCoresLine.startsWith("cpu ")) return -1;
        // cpu user nice system idle iowait irq softirq steal ...
        String[] f = allCoresLine.trim().split("\\s+");
        return f.length > 8 ? Long.parseLong(f[8]) : -1;
    }

    private static long clockTicks;

    /** Clock ticks per second ({@code getconf CLK_TCK}); 100, the Linux value, when getconf is missing. */
    static synchronized long clockTicksPerSecond() {
        if (clockTicks > 0) return clockTicks;
        clockTicks = 100;
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0) clockTicks = Long.parseLong(out);
        } catch (IOException | RuntimeException e) {
            // keep 100
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return clockTicks;
    }

    /** SIGTERM: the graceful stop (seal, upload, commit). */
    void terminate() {
        process.destroy();
    }

    /** Exit code, or −1 if it did not exit in time (then it is killed). */
    int waitFor(Duration timeout) throws InterruptedException {
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) return process.exitValue();
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        return -1;
    }

    /**
     * From the GC log: {@code [0]} the largest heap in use before a collection, {@code [1]} the largest live heap
     * after one, {@code [2]} the largest committed heap, all in MiB; −1 when no collection happened.
     */
    long[] heapMib() {
        long before = -1;
        long after = -1;
        long committed = -1;
        try {
            for (String line : Files.readAllLines(gcLog, StandardCharsets.UTF_8)) {
                if (!line.contains("Pause")) continue;
                Matcher m = GC_PAUSE.matcher(line);
                if (!m.find()) continue;
                before = Math.max(before, mib(m.group(1), m.group(2)));
                after = Math.max(after, mib(m.group(3), m.group(4)));
                committed = Math.max(committed, mib(m.group(5), m.group(6)));
            }
        } catch (IOException e) {
            return new long[] {-1, -1, -1};
        }
        return new long[] {before, after, committed};
    }

    private static long mib(String n, String unit) {
        long v = Long.parseLong(n);
        return switch (unit) {
            case "K" -> v / 1024;
            case "G" -> v * 1024;
            default -> v;
        };
    }

    @Override
    public void close() {
        if (process.isAlive()) process.destroyForcibly();
    }
}
