package dev.iggysink.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.dataformat.toml.TomlMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The files under deploy/ (shipped in the tarball too): the systemd unit and the Kubernetes manifest stop the sink
 * gracefully, restart it on failure, probe {@code /health}, let Prometheus scrape it, and run replicas in one group.
 */
class DeployFilesTest {
    /** Relative to the distribution module, where surefire runs. */
    private static final Path DEPLOY = Paths.get("..", "deploy");
    /** The sink's default {@code shutdown_timeout}: a stop may take that long before anything is killed. */
    private static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

    // ---- systemd ----

    @Test
    void the_systemd_unit_runs_the_launcher_and_restarts_it_on_failure() throws IOException {
        Map<String, Map<String, List<String>>> unit = ini(DEPLOY.resolve("systemd/iggy-s3-sink.service"));
        Map<String, List<String>> service = unit.get("Service");
        assertThat(service.get("ExecStart")).singleElement().asString()
                .matches("/opt/iggy-s3-sink/bin/iggy-s3-sink run --config /\\S+\\.toml");
        assertThat(service.get("Restart")).containsExactly("on-failure");
        assertThat(service.get("RestartPreventExitStatus")).as("a bad config is not retried").containsExactly("2");
        assertThat(unit.get("Install").get("WantedBy")).containsExactly("multi-user.target");
    }

    @Test
    void the_systemd_unit_stops_with_sigterm_and_waits_longer_than_the_shutdown_timeout() throws IOException {
        Map<String, List<String>> service = ini(DEPLOY.resolve("systemd/iggy-s3-sink.service")).get("Service");
        assertThat(service.get("KillSignal")).containsExactly("SIGTERM");
        assertThat(systemdSeconds(service.get("TimeoutStopSec").get(0))).isGreaterThan(DEFAULT_SHUTDOWN_TIMEOUT);
    }

    /**
     * systemd's own judgement of the unit, with systemd-analyze (Debian's package {@code systemd}; scripts/test.sh
     * installs it through scripts/ensure-systemd.sh, {@code SYSTEMD_ANALYZE} names another binary): its sandbox
     * rates below 3 ("OK") on systemd's exposure scale.
     */
    @Test
    void the_systemd_unit_is_sandboxed_to_an_exposure_below_3() throws Exception {
        Analysis security = systemdAnalyze("security", "--offline=yes", UNIT.toAbsolutePath().toString());
        assertThat(security.exitCode()).as(security.output()).isZero();
        Matcher m = Pattern.compile("Overall exposure level for iggy-s3-sink\\.service: (\\d+\\.\\d+)")
                .matcher(security.output());
        assertThat(m.find()).as(security.output()).isTrue();
        assertThat(Double.parseDouble(m.group(1))).as(security.output()).isLessThan(3.0);
    }

    /**
     * {@code systemd-analyze verify} reads the unit as systemd would load it, here under a root that holds the
     * launcher where ExecStart names it and the system's own units: no error and no warning (an unknown key or a
     * value systemd cannot parse is only a warning, and would be ignored when it runs).
     */
    @Test
    void systemd_analyze_verify_accepts_the_unit_without_a_warning(@TempDir Path root) throws Exception {
        Path units = root.resolve("etc/systemd/system");
        Files.createDirectories(units);
        Files.copy(UNIT, units.resolve("iggy-s3-sink.service"));
        Path launcher = root.resolve("opt/iggy-s3-sink/bin/iggy-s3-sink");
        Files.createDirectories(launcher.getParent());
        Files.copy(Paths.get("src", "dist", "bin", "iggy-s3-sink"), launcher);
        assertThat(launcher.toFile().setExecutable(true)).isTrue();
        copyTree(systemUnits(), root.resolve("usr/lib/systemd/system"));

        Analysis verify = systemdAnalyze("verify", "--root=" + root, "iggy-s3-sink.service");

        assertThat(verify.output()).as("systemd-analyze verify").isEmpty();
        assertThat(verify.exitCode()).isZero();
    }

    /**
     * Under ProtectSystem=strict the whole file system is read-only to the sink but for the directories the unit
     * names: the buffer_directory the full example file suggests must be one of them (its StateDirectory, made by
     * systemd for the service's user, mode 0700), and so must the AOT cache directory the README suggests.
     */
    @Test
    void the_documented_buffer_directory_is_writable_under_protect_system_strict() throws IOException {
        Map<String, List<String>> service = ini(UNIT).get("Service");
        assertThat(service.get("ProtectSystem")).containsExactly("strict");
        Matcher m = Pattern.compile("(?m)^#?\\s*buffer_directory = \"(/[^\"]+)\"")
                .matcher(Files.readString(Paths.get("src", "dist", "config", "s3_sink.full.toml")));
        assertThat(m.find()).as("buffer_directory in s3_sink.full.toml").isTrue();
        Path documented = Paths.get(m.group(1));
        assertThat(service.get("StateDirectory")).as("StateDirectory").isNotNull();
        assertThat(service.get("StateDirectory").stream().flatMap(v -> List.of(v.split("\\s+")).stream())
                .map(d -> Paths.get("/var/lib", d)))
                .as("a StateDirectory holding %s", documented).anyMatch(documented::startsWith);
        assertThat(service.get("StateDirectoryMode")).containsExactly("0700");
        assertThat(service.get("CacheDirectory")).containsExactly("iggy-s3-sink");
    }

    // ---- Kubernetes ----

    @Test
    void the_deployment_runs_several_replicas_of_one_consumer_group() throws IOException {
        JsonNode deployment = k8s("Deployment");
        assertThat(deployment.at("/spec/replicas").asInt()).isGreaterThanOrEqualTo(2);
        String config = connectorFile();
        assertThat(config).containsPattern("(?m)^consumer_group = \"\\S+\"");
    }

    @Test
    void the_deployment_probes_health_on_the_admin_port() throws IOException {
        JsonNode container = k8s("Deployment").at("/spec/template/spec/containers/0");
        int adminPort = adminPort(container);
        for (String probe : List.of("livenessProbe", "readinessProbe")) {
            JsonNode get = container.path(probe).path("httpGet");
            assertThat(get.path("path").asString()).as(probe).isEqualTo("/health");
            assertThat(port(container, get.path("port"))).as(probe).isEqualTo(adminPort);
        }
    }

    @Test
    void the_grace_period_is_longer_than_the_shutdown_timeout() throws IOException {
        long grace = k8s("Deployment").at("/spec/template/spec/terminationGracePeriodSeconds").asLong();
        assertThat(Duration.ofSeconds(grace)).isGreaterThan(shutdownTimeout(connectorFile()));
    }

    @Test
    void prometheus_scrapes_metrics_on_the_admin_port() throws IOException {
        JsonNode template = k8s("Deployment").at("/spec/template");
        JsonNode annotations = template.at("/metadata/annotations");
        assertThat(annotations.path("prometheus.io/scrape").asString()).isEqualTo("true");
        assertThat(annotations.path("prometheus.io/path").asString()).isEqualTo("/metrics");
        assertThat(Integer.parseInt(annotations.path("prometheus.io/port").asString()))
                .isEqualTo(adminPort(template.at("/spec/containers/0")));
    }

    @Test
    void the_admin_server_listens_on_all_interfaces_with_a_token_from_a_secret() throws IOException {
        assertThat(connectorFile()).containsPattern("(?m)^address = \"0\\.0\\.0\\.0:8098\"");
        JsonNode container = k8s("Deployment").at("/spec/template/spec/containers/0");
        JsonNode token = null;
        for (JsonNode env : container.path("env")) {
            if (env.path("name").asString().equals("IGGY_CONNECTORS_SINK_S3_ADMIN_TOKEN")) token = env;
        }
        assertThat(token).as("admin token variable").isNotNull();
        assertThat(token.at("/valueFrom/secretKeyRef/name").asString()).isNotEmpty();
        assertThat(token.at("/valueFrom/secretKeyRef/optional").asBoolean(false)).isFalse();
    }

    @Test
    void the_config_comes_from_the_config_map_mounted_where_the_container_reads_it() throws IOException {
        JsonNode spec = k8s("Deployment").at("/spec/template/spec");
        JsonNode container = spec.at("/containers/0");
        List<String> args = new ArrayList<>();
        container.path("args").forEach(a -> args.add(a.asString()));
        assertThat(args).startsWith("run", "--config");
        Path configPath = Paths.get(args.get(2));
        JsonNode mount = container.at("/volumeMounts/0");
        assertThat(configPath.getParent().toString()).isEqualTo(mount.path("mountPath").asString());
        JsonNode volume = spec.at("/volumes/0");
        assertThat(volume.path("name").asString()).isEqualTo(mount.path("name").asString());
        assertThat(volume.at("/configMap/name").asString()).isEqualTo(k8s("ConfigMap").at("/metadata/name").asString());
        assertThat(k8s("ConfigMap").path("data").has(configPath.getFileName().toString())).isTrue();
    }

    @Test
    void open_files_grow_in_an_empty_dir_volume_larger_than_the_budget() throws IOException {
        JsonNode spec = k8s("Deployment").at("/spec/template/spec");
        JsonNode toml = new TomlMapper().readTree(connectorFile());
        String buffers = toml.at("/plugin_config/buffer_directory").asString();
        assertThat(buffers).startsWith("/");
        String volumeName = null;
        for (JsonNode m : spec.at("/containers/0/volumeMounts")) {
            if (m.path("mountPath").asString().equals(buffers)) volumeName = m.path("name").asString();
        }
        assertThat(volumeName).as("a volume mounted at %s", buffers).isNotNull();
        JsonNode volume = null;
        for (JsonNode v : spec.path("volumes")) {
            if (v.path("name").asString().equals(volumeName)) volume = v;
        }
        assertThat(volume).isNotNull();
        assertThat(volume.has("emptyDir")).isTrue();
        String limit = volume.at("/emptyDir/sizeLimit").asString();
        assertThat(limit).endsWith("Mi");
        long budgetMib = Long.parseLong(toml.at("/plugin_config/max_buffered_bytes").asString().replace("MiB", ""));
        assertThat(Long.parseLong(limit.replace("Mi", ""))).isGreaterThan(budgetMib);
    }

    @Test
    void the_config_map_holds_a_connector_file_the_sink_accepts(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("s3_sink.toml");
        Files.writeString(file, connectorFile(), StandardCharsets.UTF_8);
        ConfigResult result = ConnectorConfigLoader.load(file,
                Map.of("IGGY_CONNECTORS_SINK_S3_ADMIN_TOKEN", "t0ken", "IGGY_CONNECTORS_IGGY_PASSWORD", "pw"));
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        assertThat(result.sinks()).hasSize(1);
    }

    // ---- helpers ----

    private static final Path UNIT = DEPLOY.resolve("systemd/iggy-s3-sink.service");

    record Analysis(int exitCode, String output) {
    }

    /** systemd-analyze from {@code SYSTEMD_ANALYZE}, else the one on the usual path; it must be there. */
    static Path systemdAnalyzeBinary() {
        String fromEnv = System.getenv("SYSTEMD_ANALYZE");
        Path binary = Paths.get(fromEnv != null && !fromEnv.isBlank() ? fromEnv : "/usr/bin/systemd-analyze");
        assertThat(Files.isExecutable(binary))
                .as("%s is missing (run scripts/ensure-systemd.sh as root, or set SYSTEMD_ANALYZE)", binary).isTrue();
        return binary;
    }

    /** Runs systemd-analyze with {@code args}; its exit code and output (stdout and stderr together). */
    static Analysis systemdAnalyze(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(systemdAnalyzeBinary().toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("SYSTEMD_COLORS", "0");
        pb.environment().put("SYSTEMD_PAGER", "");
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return new Analysis(p.exitValue(), output);
    }

    /** Where this system keeps its packaged units (sysinit.target, multi-user.target, ...). */
    private static Path systemUnits() {
        for (String dir : List.of("/usr/lib/systemd/system", "/lib/systemd/system")) {
            if (Files.isRegularFile(Paths.get(dir, "multi-user.target"))) return Paths.get(dir);
        }
        throw new AssertionError("no systemd units under /usr/lib/systemd/system (run scripts/ensure-systemd.sh)");
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (java.util.stream.Stream<Path> all = Files.walk(from)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isSymbolicLink(p)) {
                    Files.createDirectories(target.getParent());
                    Files.createSymbolicLink(target, Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    /** A systemd unit as section -> key -> values (a key may repeat); comments and blank lines skipped. */
    static Map<String, Map<String, List<String>>> ini(Path file) throws IOException {
        Map<String, Map<String, List<String>>> sections = new LinkedHashMap<>();
        Map<String, List<String>> current = null;
        for (String raw : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) continue;
            if (line.startsWith("[") && line.endsWith("]")) {
                current = sections.computeIfAbsent(line.substring(1, line.length() - 1), k -> new LinkedHashMap<>());
                continue;
            }
            int eq = line.indexOf('=');
            assertThat(current).as("key outside a section: %s", line).isNotNull();
            assertThat(eq).as("not key=value: %s", line).isPositive();
            current.computeIfAbsent(line.substring(0, eq).strip(), k -> new ArrayList<>())
                    .add(line.substring(eq + 1).strip());
        }
        return sections;
    }

    /** systemd time spans: "90", "90s", "1min 30s", "2min". */
    static Duration systemdSeconds(String span) {
        Matcher m = Pattern.compile("(\\d+)\\s*(min|s|)").matcher(span.strip());
        Duration total = Duration.ZERO;
        int end = 0;
        while (m.find()) {
            total = total.plusSeconds(Long.parseLong(m.group(1)) * (m.group(2).equals("min") ? 60 : 1));
            end = m.end();
        }
        assertThat(end).as("time span %s", span).isEqualTo(span.strip().length());
        return total;
    }

    private static JsonNode k8s(String kind) throws IOException {
        try (MappingIterator<JsonNode> docs = new YAMLMapper().readerFor(JsonNode.class)
                .readValues(DEPLOY.resolve("kubernetes/iggy-s3-sink.yaml").toFile())) {
            for (JsonNode doc : docs.readAll()) {
                if (doc.path("kind").asString().equals(kind)) return doc;
            }
        }
        throw new AssertionError("no " + kind + " in the manifest");
    }

    private static String connectorFile() throws IOException {
        return k8s("ConfigMap").at("/data/s3_sink.toml").asString();
    }

    /** The file's {@code shutdown_timeout} (simple "Ns"/"Nm" values), else the sink's default. */
    private static Duration shutdownTimeout(String connectorFile) {
        JsonNode value = new TomlMapper().readTree(connectorFile).at("/plugin_config/shutdown_timeout");
        if (value.isMissingNode()) return DEFAULT_SHUTDOWN_TIMEOUT;
        Matcher m = Pattern.compile("(\\d+)(s|m)").matcher(value.asString());
        assertThat(m.matches()).as("shutdown_timeout %s", value).isTrue();
        return Duration.ofSeconds(Long.parseLong(m.group(1)) * (m.group(2).equals("m") ? 60 : 1));
    }

    private static int adminPort(JsonNode container) {
        for (JsonNode p : container.path("ports")) {
            if (p.path("name").asString().equals("admin")) return p.path("containerPort").asInt();
        }
        throw new AssertionError("no port named admin");
    }

    private static int port(JsonNode container, JsonNode ref) {
        return ref.isNumber() ? ref.asInt() : ref.asString().equals("admin") ? adminPort(container) : -1;
    }
}
