package dev.iggysink.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball {@code package} builds, as an operator gets it: its entries and modes, config files the sink accepts,
 * and a launcher that runs from the unpacked directory with overridable JVM defaults.
 */
class TarballIT {
    private static final String VERSION = System.getProperty("dist.version", "0.1.0-SNAPSHOT");
    private static final String ROOT = "iggy-s3-sink-" + VERSION + "/";
    private static Map<String, Tarball.Entry> entries;

    @TempDir
    static Path unpacked;

    @BeforeAll
    static void readAndUnpack() throws IOException {
        Path tarball = Paths.get("target", "iggy-s3-sink-" + VERSION + ".tar.gz");
        assertThat(tarball).as("tarball; run `mvn package` first").exists();
        entries = Tarball.read(tarball);
        Tarball.unpack(entries, unpacked);
    }

    @Test
    void ships_launcher_jar_configs_deploy_files_and_licences_under_one_versioned_directory() {
        assertThat(Tarball.names(entries)).allMatch(n -> n.startsWith(ROOT)).contains(
                ROOT + "bin/iggy-s3-sink",
                ROOT + "lib/iggy-s3-sink.jar",
                ROOT + "config/s3_sink.toml",
                ROOT + "config/s3_sink.full.toml",
                ROOT + "config/iceberg_sink.sqlite.toml",
                ROOT + "config/iceberg_sink.rest.toml",
                ROOT + "deploy/systemd/iggy-s3-sink.service",
                ROOT + "deploy/kubernetes/iggy-s3-sink.yaml",
                ROOT + "deploy/container/Dockerfile",
                ROOT + "LICENSE",
                ROOT + "NOTICE");
        assertThat(Tarball.string(entries.get(ROOT + "LICENSE"))).contains("Apache License", "Version 2.0");
    }

    @Test
    void the_launcher_is_executable_and_nothing_else_is() {
        assertThat(entries.get(ROOT + "bin/iggy-s3-sink").mode() & 0777).isEqualTo(0755);
        entries.values().stream().filter(e -> !e.directory() && !e.name().startsWith(ROOT + "bin/"))
                .forEach(e -> assertThat(e.mode() & 0111).as("mode of %s", e.name()).isZero());
        assertThat(Tarball.string(entries.get(ROOT + "bin/iggy-s3-sink"))).startsWith("#!/bin/sh\n")
                .doesNotContain("\r");
    }

    @Test
    void the_example_connector_file_is_read_by_the_sink_without_errors_or_warnings() {
        ConfigResult result = ConnectorConfigLoader.load(unpacked.resolve(ROOT + "config/s3_sink.toml"), Map.of());
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        assertThat(result.sinks()).hasSize(1);
    }

    @Test
    void the_full_connector_file_is_read_by_the_sink_without_errors_or_warnings() {
        ConfigResult result = ConnectorConfigLoader.load(unpacked.resolve(ROOT + "config/s3_sink.full.toml"),
                Map.of());
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        assertThat(result.sinks()).hasSize(1);
    }

    @Test
    void the_full_connector_file_shows_every_key_the_sink_reads() throws IOException {
        String full = Files.readString(unpacked.resolve(ROOT + "config/s3_sink.full.toml"), StandardCharsets.UTF_8);
        for (String key : List.of("bucket", "region", "prefix", "endpoint", "access_key_id", "secret_access_key",
                "profile", "credentials_file", "role_arn", "external_id", "session_name", "assume_role_duration",
                "sts_endpoint",
                "path_template", "file_rotation", "max_file_size", "max_messages_per_file", "output_format",
                "include_metadata", "include_headers", "max_attempts", "retry_delay", "retry_max_delay", "path_style",
                "rotate_interval",
                "rotate_schedule_interval", "timezone", "max_open_files_per_partition", "missing_field_placeholder",
                "compression", "parquet_codec", "avro_codec", "multipart_threshold", "multipart_part_size",
                "upload_concurrency", "max_buffered_bytes", "buffer_directory", "errors_tolerance", "dlq_prefix", "sse",
                "sse_kms_key_id", "storage_class", "canned_acl", "[plugin_config.object_tags]", "storage_client",
                "request_timeout",
                "shutdown_timeout", "batch_length", "poll_interval", "consumer_group", "avro_schema_json",
                "avro_schema_path", "[iggy]", "address", "username", "password", "token", "[iggy.tls]", "enabled",
                "ca_file", "domain", "[admin]", "[logging]", "format", "[transforms.add_fields]",
                "[transforms.delete_fields]", "[transforms.update_fields]", "[transforms.filter_fields]",
                "[transforms.unwrap_envelope]")) {
            String line = key.startsWith("[") ? "\\Q" + key + "\\E$" : "\\Q" + key + "\\E\\s*=";
            assertThat(full).as("key %s", key).containsPattern("(?m)^(# )?" + line);
        }
    }

    @Test
    void the_launcher_runs_the_jar_from_the_unpacked_directory() throws Exception {
        Run run = launcher(Map.of(), "--version");
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output().strip()).isEqualTo("iggy-s3-sink " + VERSION);
    }

    @Test
    void the_launcher_sets_the_serial_collector_and_exit_on_out_of_memory_by_default() throws Exception {
        Run run = launcher(Map.of("JAVA_OPTS", "-XX:+PrintCommandLineFlags"), "--version");
        assertThat(run.exit()).as(run.output()).isZero();
        // Out of memory: SIGUSR1, on which the sink halts with exit 1 (OutOfMemoryIT in bootstrap); not
        // ExitOnOutOfMemoryError, whose exit 3 means "could not start".
        assertThat(run.output()).contains("-XX:+UseSerialGC", "-XX:OnOutOfMemoryError=kill -USR1 %p;")
                .doesNotContain("ExitOnOutOfMemoryError")
                .contains("-XX:PretenureSizeThreshold=61440") // 60 KiB: file-buffer chunks start in the old generation
                .contains("-XX:MinHeapFreeRatio=20") // the table sink's old generation grows less past what it holds
                .contains("-XX:MaxHeapSize=268435456") // 256 MiB: every machine running the tests has more memory
                // it starts small and grows only as far as needed (open files are in buffer_directory)
                .contains("-XX:InitialHeapSize=50331648", "-XX:NewSize=25165824", "-XX:MaxNewSize=25165824");
    }

    @Test
    void the_launcher_has_netty_allocate_each_poll_answer_unpooled() throws Exception {
        Run run = launcher(Map.of("JAVA_OPTS", "-XshowSettings:properties"), "--version");
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("io.netty.allocator.type = unpooled");
    }

    @Test
    void the_launcher_leaves_lukewarm_methods_to_the_quick_compiler_unless_java_opts_say_otherwise() throws Exception {
        Run byDefault = launcher(Map.of("JAVA_OPTS", "-XX:+PrintFlagsFinal"), "--version");
        assertThat(byDefault.exit()).as(byDefault.output()).isZero();
        assertThat(flag(byDefault.output(), "Tier4InvocationThreshold")).isEqualTo("50000");
        assertThat(flag(byDefault.output(), "Tier4MinInvocationThreshold")).isEqualTo("6000");
        assertThat(flag(byDefault.output(), "Tier4CompileThreshold")).isEqualTo("150000");
        assertThat(flag(byDefault.output(), "Tier4BackEdgeThreshold")).isEqualTo("400000");
        assertThat(flag(byDefault.output(), "FreqInlineSize")).isEqualTo("200");
        assertThat(flag(byDefault.output(), "InlineSmallCode")).isEqualTo("1000");
        assertThat(flag(byDefault.output(), "C1MaxInlineSize")).isEqualTo("20");
        assertThat(flag(byDefault.output(), "C1InlineStackLimit")).isEqualTo("5");
        assertThat(flag(byDefault.output(), "Tier3InvocationThreshold")).isEqualTo("400");
        assertThat(flag(byDefault.output(), "Tier3MinInvocationThreshold")).isEqualTo("200");
        assertThat(flag(byDefault.output(), "Tier3CompileThreshold")).isEqualTo("4000");
        assertThat(flag(byDefault.output(), "TypeProfileLevel")).isEqualTo("0");

        Run own = launcher(Map.of("JAVA_OPTS",
                "-XX:Tier4InvocationThreshold=5000 -XX:InlineSmallCode=2500 -XX:Tier3InvocationThreshold=200"
                        + " -XX:+PrintFlagsFinal"), "--version");
        assertThat(own.exit()).as(own.output()).isZero();
        assertThat(flag(own.output(), "Tier4InvocationThreshold")).isEqualTo("5000");
        assertThat(flag(own.output(), "InlineSmallCode")).isEqualTo("2500");
        assertThat(flag(own.output(), "Tier3InvocationThreshold")).isEqualTo("200");
    }

    /** The value -XX:+PrintFlagsFinal printed for {@code name}. */
    private static String flag(String printed, String name) {
        return printed.lines().map(String::strip).filter(l -> l.matches("\\S+ +" + name + " += .*"))
                .map(l -> l.replaceAll(".*= +(\\S+).*", "$1")).findFirst().orElse("(not printed)");
    }

    @Test
    void java_opts_replace_the_collector_and_the_heap() throws Exception {
        Run run = launcher(Map.of("JAVA_OPTS", "-XX:+UseG1GC -Xmx300m -XX:+PrintCommandLineFlags"),
                "--version");
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("-XX:+UseG1GC", "-XX:MaxHeapSize=314572800")
                .doesNotContain("-XX:+UseSerialGC").doesNotContain("PretenureSizeThreshold")
                .doesNotContain("-XX:NewSize=25165824");
    }

    @Test
    void the_heap_variable_sets_the_heap() throws Exception {
        Run run = launcher(Map.of("IGGY_S3_SINK_HEAP", "700m", "JAVA_OPTS", "-XX:+PrintCommandLineFlags"),
                "--version");
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("-XX:MaxHeapSize=734003200");
    }

    @Test
    void the_launcher_trims_the_native_heap_where_the_jvm_can_unless_java_opts_say_otherwise() throws Exception {
        Run byDefault = launcher(Map.of("JAVA_OPTS", "-XX:+PrintCommandLineFlags"), "--version");
        assertThat(byDefault.exit()).as(byDefault.output()).isZero();
        if (!jvmTrims()) {
            // A JDK 17 or 21 before the option: the launcher must not pass it, or the JVM would refuse to start.
            assertThat(byDefault.output()).doesNotContain("TrimNativeHeapInterval");
            return;
        }
        assertThat(byDefault.output()).contains("-XX:TrimNativeHeapInterval=2000");

        Run off = launcher(Map.of("JAVA_OPTS", "-XX:TrimNativeHeapInterval=0 -XX:+PrintCommandLineFlags"),
                "--version");
        assertThat(off.exit()).as(off.output()).isZero();
        assertThat(off.output()).contains("-XX:TrimNativeHeapInterval=0").doesNotContain("Interval=2000");
    }

    /** Whether the JVM running the tests (the launcher's JAVA_HOME here) accepts TrimNativeHeapInterval. */
    private static boolean jvmTrims() throws Exception {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-XX:TrimNativeHeapInterval=2000", "-version")
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return p.exitValue() == 0;
    }

    /** A stand-in java that prints what it is started with, and refuses the trim option like an older JVM. */
    @Test
    void the_launcher_limits_malloc_arenas_and_skips_the_trim_a_jvm_refuses(@TempDir Path home) throws Exception {
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, """
                #!/bin/sh
                for a in "$@"; do
                  case $a in -XX:TrimNativeHeapInterval=*) echo "Unrecognized VM option" >&2; exit 1 ;; esac
                done
                echo "MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-unset} args: $*"
                """, StandardCharsets.UTF_8);
        assertThat(java.toFile().setExecutable(true)).isTrue();

        Run old = launcher(Map.of("JAVA_HOME", home.toString()), "--version");
        assertThat(old.exit()).as(old.output()).isZero();
        assertThat(old.output()).contains("MALLOC_ARENA_MAX=2 args:", "-XX:+UseSerialGC", "--version")
                .doesNotContain("TrimNativeHeapInterval");

        Run own = launcher(Map.of("JAVA_HOME", home.toString(), "MALLOC_ARENA_MAX", "4"), "--version");
        assertThat(own.output()).contains("MALLOC_ARENA_MAX=4 args:");
    }

    /**
     * A stand-in java that prints its arguments, and the flags and version of a Java 25 when asked for them (or of a
     * Java without ahead-of-time caches): which cache option the launcher passes for IGGY_S3_SINK_AOT_DIR.
     */
    private static Path standInJava(Path home, boolean aot) throws IOException {
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, """
                #!/bin/sh
                case "$*" in
                  *-XX:+PrintFlagsFinal*)
                    echo '[Global flags]'
                    %s
                    echo 'openjdk version "25.0.3" 2026-04-21 LTS' >&2
                    exit 0 ;;
                esac
                echo "args: $*"
                """.formatted(aot ? "echo '    ccstr AOTCacheOutput                           =  {product} {default}'"
                : "echo '     bool UseSerialGC                              = false  {product} {default}'"),
                StandardCharsets.UTF_8);
        assertThat(java.toFile().setExecutable(true)).isTrue();
        return home;
    }

    @Test
    void with_an_aot_directory_the_first_run_records_a_cache_and_later_runs_start_from_it(@TempDir Path tmp)
            throws Exception {
        Path home = standInJava(tmp.resolve("jdk"), true);
        Path dir = tmp.resolve("aot");
        Map<String, String> env = Map.of("JAVA_HOME", home.toString(), "IGGY_S3_SINK_AOT_DIR", dir.toString());

        Run first = launcher(env, "run", "--config", "c.toml");
        assertThat(first.exit()).as(first.output()).isZero();
        Matcher recorded = Pattern.compile("-XX:AOTCacheOutput=(\\S+\\.aot)").matcher(first.output());
        assertThat(recorded.find()).as(first.output()).isTrue();
        Path cache = Path.of(recorded.group(1));
        assertThat(cache.getParent()).isEqualTo(dir);
        assertThat(first.output()).doesNotContain("-XX:AOTCache=")
                .contains("recording an ahead-of-time cache", "written when the sink stops");

        Files.writeString(cache, "a cache"); // what the JVM writes when the first run stops
        Path stale = Files.writeString(dir.resolve("iggy-s3-sink-1.aot"), "another jar's");
        Run later = launcher(env, "run", "--config", "c.toml");
        assertThat(later.output()).contains("-XX:AOTCache=" + cache, "args:").doesNotContain("AOTCacheOutput");
        assertThat(stale).exists();

        // Other JVM options need another cache (the JVM refuses one recorded with other flags); recording it
        // removes the directory's older ones, of other options, jars or Javas.
        Map<String, String> withOpts = new HashMap<>(env);
        withOpts.put("JAVA_OPTS", "-Xmx300m");
        Run other = launcher(withOpts, "run", "--config", "c.toml");
        assertThat(other.output()).contains("-XX:AOTCacheOutput=").doesNotContain("-XX:AOTCache=");
        assertThat(stale).doesNotExist();
        assertThat(cache).doesNotExist();
    }

    @Test
    void the_aot_directory_is_used_for_run_only_and_on_a_java_that_has_the_cache(@TempDir Path tmp)
            throws Exception {
        Path dir = tmp.resolve("aot");
        Path java25 = standInJava(tmp.resolve("jdk25"), true);
        Run version = launcher(Map.of("JAVA_HOME", java25.toString(), "IGGY_S3_SINK_AOT_DIR", dir.toString()),
                "--version");
        assertThat(version.output()).contains("args:").doesNotContain("AOTCache");

        Path java17 = standInJava(tmp.resolve("jdk17"), false);
        Map<String, String> env17 = Map.of("JAVA_HOME", java17.toString(), "IGGY_S3_SINK_AOT_DIR", dir.toString());
        Run old = launcher(env17, "run", "--config", "c.toml");
        assertThat(old.exit()).as(old.output()).isZero();
        Matcher archived = Pattern.compile("-XX:ArchiveClassesAtExit=(\\S+\\.jsa)").matcher(old.output());
        assertThat(archived.find()).as("before Java 25 a class-data archive: " + old.output()).isTrue();
        Path archive = Path.of(archived.group(1));
        assertThat(archive.getParent()).isEqualTo(dir);
        assertThat(old.output()).contains("recording a class-data archive").doesNotContain("-XX:AOT");
        Files.writeString(archive, "an archive"); // what the JVM writes when the first run stops
        Run oldLater = launcher(env17, "run", "--config", "c.toml");
        assertThat(oldLater.output()).contains("-XX:SharedArchiveFile=" + archive, "args:")
                .doesNotContain("ArchiveClassesAtExit");

        Run off = launcher(Map.of("JAVA_HOME", java25.toString(), "IGGY_S3_SINK_AOT_DIR", ""), "run", "--config",
                "c.toml");
        assertThat(off.output()).as("IGGY_S3_SINK_AOT_DIR empty: off").contains("args:").doesNotContain("AOT");
    }

    /** The archive's option in the stand-in java's output: the file the launcher passes, or null when none. */
    private static Path archiveOption(Run run) {
        Matcher m = Pattern.compile("-XX:(?:ArchiveClassesAtExit|SharedArchiveFile)=(\\S+)").matcher(run.output());
        return m.find() ? Path.of(m.group(1)) : null;
    }

    @Test
    void without_an_aot_directory_a_run_keeps_its_class_data_archive_in_the_users_cache(@TempDir Path tmp)
            throws Exception {
        Path java17 = standInJava(tmp.resolve("jdk17"), false);
        Path home = Files.createDirectories(tmp.resolve("home"));

        Run first = launcher(Map.of("JAVA_HOME", java17.toString(), "HOME", home.toString()), "run", "--config",
                "c.toml");
        assertThat(first.exit()).as(first.output()).isZero();
        assertThat(first.output()).contains("-XX:ArchiveClassesAtExit=", "recording a class-data archive");
        Path archive = archiveOption(first);
        assertThat(archive).as(first.output()).isNotNull();
        assertThat(archive.getParent()).isEqualTo(home.resolve(".cache/iggy-s3-sink"));

        Files.writeString(archive, "an archive"); // what the JVM writes when the first run stops
        Run later = launcher(Map.of("JAVA_HOME", java17.toString(), "HOME", home.toString()), "run", "--config",
                "c.toml");
        assertThat(later.output()).contains("-XX:SharedArchiveFile=" + archive).doesNotContain("ArchiveClassesAtExit");

        Path xdg = tmp.resolve("xdg");
        Run underXdg = launcher(Map.of("JAVA_HOME", java17.toString(), "HOME", home.toString(),
                "XDG_CACHE_HOME", xdg.toString()), "run", "--config", "c.toml");
        assertThat(archiveOption(underXdg)).as(underXdg.output()).isNotNull()
                .satisfies(a -> assertThat(a.getParent()).isEqualTo(xdg.resolve("iggy-s3-sink")));
    }

    @Test
    void the_default_archive_is_off_without_a_home_a_writable_cache_or_when_java_opts_choose_class_data_sharing(
            @TempDir Path tmp) throws Exception {
        Path java17 = standInJava(tmp.resolve("jdk17"), false);
        Map<String, String> noHome = new HashMap<>();
        noHome.put("JAVA_HOME", java17.toString());
        noHome.put("HOME", null);
        Run homeless = launcher(noHome, "run", "--config", "c.toml");
        assertThat(homeless.exit()).as(homeless.output()).isZero();
        assertThat(homeless.output()).as("HOME unset").contains("args:").doesNotContain("Archive");

        // A file where the cache directory would go: it cannot be made, whoever runs the tests.
        Path notADirectory = Files.writeString(tmp.resolve("file"), "x");
        Run unwritable = launcher(Map.of("JAVA_HOME", java17.toString(), "HOME", notADirectory.toString()), "run",
                "--config", "c.toml");
        assertThat(unwritable.exit()).as(unwritable.output()).isZero();
        assertThat(unwritable.output()).as("cache not writable").contains("args:").doesNotContain("Archive")
                .doesNotContain("iggy-s3-sink:");

        Path home = Files.createDirectories(tmp.resolve("home"));
        Run own = launcher(Map.of("JAVA_HOME", java17.toString(), "HOME", home.toString(), "JAVA_OPTS",
                "-Xshare:off"), "run", "--config", "c.toml");
        assertThat(own.output()).as("JAVA_OPTS with -Xshare").contains("-Xshare:off").doesNotContain("Archive");
    }

    /**
     * On the JDK that runs the tests, a first run records its archive at exit without a line of the JVM's about
     * classes it leaves out (on Java 17 some 200 "[warning][cds] Pre JDK 6 class not supported" lines at every first
     * run otherwise), and the next run starts from it.
     */
    @Test
    void a_real_first_run_records_its_archive_quietly_and_the_next_starts_from_it(@TempDir Path tmp) throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path missing = tmp.resolve("missing.toml");

        Run first = launcher(Map.of("HOME", home.toString()), "run", "--config", missing.toString());
        assertThat(first.exit()).as(first.output()).isEqualTo(2);
        assertThat(first.output()).contains("recording ", "missing.toml").doesNotContain("[warning]");
        try (var files = Files.list(home.resolve(".cache/iggy-s3-sink"))) {
            assertThat(files.toList()).as("the archive the JVM wrote at exit").singleElement()
                    .satisfies(f -> assertThat(Files.size(f)).isPositive());
        }

        Run second = launcher(Map.of("HOME", home.toString()), "run", "--config", missing.toString());
        assertThat(second.exit()).as(second.output()).isEqualTo(2);
        assertThat(second.output()).contains("missing.toml").doesNotContain("recording ", "[warning]", "[error]");
    }

    /**
     * An archive is named after the jar's content, not only its size and date: a jar replaced by another of the same
     * size and time (a rebuild within the minute, a copy that keeps times) never starts from the old jar's archive.
     */
    @Test
    void another_jar_of_the_same_size_and_time_gets_its_own_archive(@TempDir Path tmp) throws Exception {
        Path java17 = standInJava(tmp.resolve("jdk17"), false);
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path install = tmp.resolve("install");
        Path bin = Files.createDirectories(install.resolve("bin")).resolve("iggy-s3-sink");
        Files.copy(unpacked.resolve(ROOT + "bin/iggy-s3-sink"), bin);
        assertThat(bin.toFile().setExecutable(true)).isTrue();
        Path jar = Files.createDirectories(install.resolve("lib")).resolve("iggy-s3-sink.jar");
        java.nio.file.attribute.FileTime time = java.nio.file.attribute.FileTime.fromMillis(1_700_000_000_000L);
        Files.writeString(jar, "jar one");
        Files.setLastModifiedTime(jar, time);
        Map<String, String> env = Map.of("JAVA_HOME", java17.toString(), "HOME", home.toString());

        Path one = archiveOption(run(bin, env, "run", "--config", "c.toml"));
        Files.writeString(jar, "jar two");
        Files.setLastModifiedTime(jar, time);
        Path two = archiveOption(run(bin, env, "run", "--config", "c.toml"));

        assertThat(one).isNotNull();
        assertThat(two).isNotNull().isNotEqualTo(one);
    }

    @Test
    void the_launcher_passes_arguments_and_the_exit_code_through() throws Exception {
        Run run = launcher(Map.of(), "validate", "--config",
                unpacked.resolve(ROOT + "config/missing.toml").toString());
        assertThat(run.exit()).as(run.output()).isEqualTo(2);
        assertThat(run.output()).contains("missing.toml");
    }

    private record Run(int exit, String output) {
    }

    private static Run launcher(Map<String, String> env, String... args) throws Exception {
        return run(unpacked.resolve(ROOT + "bin/iggy-s3-sink"), env, args);
    }

    /** Runs {@code launcher}; a null value in {@code env} removes that variable. */
    private static Run run(Path launcher, Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(launcher.toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> environment = pb.environment();
        environment.remove("JAVA_OPTS");
        environment.remove("IGGY_S3_SINK_HEAP");
        environment.remove("MALLOC_ARENA_MAX");
        environment.remove("IGGY_S3_SINK_AOT_DIR");
        environment.remove("XDG_CACHE_HOME");
        // The default class-data archive goes under HOME: never the home of whoever runs the tests.
        environment.put("HOME", unpacked.resolve("home").toString());
        // The JDK that runs the tests, found as an operator's JAVA_HOME would be.
        environment.put("JAVA_HOME", System.getProperty("java.home"));
        env.forEach((name, value) -> {
            if (value == null) environment.remove(name);
            else environment.put(name, value);
        });
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), output);
    }
}
