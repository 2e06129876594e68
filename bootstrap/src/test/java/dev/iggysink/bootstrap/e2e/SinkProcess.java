package dev.iggysink.bootstrap.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The real sink as a child process from the fat jar, its output in a log file. */
final class SinkProcess implements AutoCloseable {
    private final Process process;
    private final Path log;

    private SinkProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    static Path jar() {
        Path jar = Paths.get("target", "iggy-s3-sink.jar");
        if (!Files.exists(jar)) throw new IllegalStateException("build the fat jar first (mvn package): " + jar);
        return jar;
    }

    static SinkProcess run(Path config, Path log, Map<String, String> env) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(javaBinary(), "-Xmx512m", "-jar", jar().toString(), "run",
                "--config", config.toString(), "--status-interval", "2s"));
        return start(cmd, log, env);
    }

    static SinkProcess start(List<String> cmd, Path log, Map<String, String> env) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        return new SinkProcess(pb.start(), log);
    }

    static String javaBinary() {
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Sends {@code signal} (e.g. {@code HUP}) to the process with {@code kill}. */
    void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) throw new IllegalStateException("kill -" + signal + " failed");
    }

    /** SIGTERM: a graceful stop. */
    void terminate() {
        process.destroy();
    }

    /** Exit code, or throws if the process is still running after the timeout. */
    int waitFor(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("sink did not exit within " + timeout + "; log:\n" + logText());
        }
        return process.exitValue();
    }

    boolean alive() {
        return process.isAlive();
    }

    String logText() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Kills the process if it still runs; an interrupt while waiting for it to go stays set for the caller. */
    @Override
    public void close() {
        if (!process.isAlive()) return;
        try {
            kill9();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
