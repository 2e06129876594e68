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
 * gracefully, restart it on failure, probe it, let Prometheus scrape it, and run replicas in one group; the manifest
 * validates against the Kubernetes API's schemas and passes Pod Security "restricted"; the Dockerfile makes its image
 * from the tarball.
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

    /**
     * Readiness is "healthy" ({@code /health}, 503 while Iggy or the store fails or a partition is halted): it holds a
     * rolling update. Liveness is only "the process is stuck" ({@code /live}): restarting cures neither a halted
     * partition (the bad record is read again) nor a store outage (every replica would restart at once, and again).
     */
    @Test
    void readiness_means_healthy_and_liveness_only_that_the_process_is_stuck() throws IOException {
        JsonNode container = k8s("Deployment").at("/spec/template/spec/containers/0");
        int adminPort = adminPort(container);
        JsonNode readiness = container.at("/readinessProbe/httpGet");
        assertThat(readiness.path("path").asString()).isEqualTo("/health");
        assertThat(port(container, readiness.path("port"))).isEqualTo(adminPort);
        JsonNode liveness = container.at("/livenessProbe/httpGet");
        assertThat(liveness.path("path").asString()).as("liveness path")
                .isIn(LIVENESS_PATHS).isNotEqualTo("/health");
        assertThat(port(container, liveness.path("port"))).isEqualTo(adminPort);
        // A slow start (first connection to Iggy, a JIT warming up) is the startup probe's, not a reason to restart.
        JsonNode startup = container.at("/startupProbe/httpGet");
        assertThat(startup.path("path").asString()).as("startup probe path").isIn(LIVENESS_PATHS);
        // The admin server really routes the path the probes use.
        assertThat(Files.readString(Paths.get("..", "bootstrap", "src", "main", "java", "dev", "iggysink",
                "bootstrap", "admin", "AdminHttpServer.java"))).contains("case \"" + liveness.path("path").asString()
                + "\" ->");
    }

    /**
     * The Pod Security Standards' "restricted" profile as the admission controller applies it: its own checks
     * (k8s.io/pod-security-admission, built by scripts/ensure-kubeconform.sh into .tools/pod-security-check; env
     * {@code POD_SECURITY_CHECK} names another build) on the Deployment's pod template.
     */
    @Test
    void the_pods_pass_pod_security_restricted_by_the_admission_controllers_checks() throws Exception {
        Analysis check = run(tool("POD_SECURITY_CHECK", "pod-security-check").toString(), "-level", "restricted",
                MANIFEST.toAbsolutePath().toString());
        assertThat(check.output()).as(check.output())
                .contains("Deployment/iggy-s3-sink: restricted: allowed").doesNotContain("forbidden");
        assertThat(check.exitCode()).as(check.output()).isZero();
    }

    /**
     * The same profile control by control (so a failure names the field), plus what "restricted" leaves out but a
     * security review asks for: a read-only root file system, every path the process writes an emptyDir.
     */
    @Test
    void the_security_context_is_restricted_and_the_root_file_system_read_only() throws IOException {
        JsonNode spec = k8s("Deployment").at("/spec/template/spec");
        JsonNode pod = spec.path("securityContext");
        assertThat(pod.path("runAsNonRoot").asBoolean(false)).as("runAsNonRoot").isTrue();
        assertThat(pod.path("runAsUser").asInt(0)).as("runAsUser").isPositive();
        assertThat(pod.at("/seccompProfile/type").asString()).as("seccompProfile").isEqualTo("RuntimeDefault");
        assertThat(spec.path("hostNetwork").asBoolean(false)).isFalse();
        assertThat(spec.path("hostPID").asBoolean(false)).isFalse();
        assertThat(spec.path("hostIPC").asBoolean(false)).isFalse();
        for (JsonNode volume : spec.path("volumes")) {
            assertThat(volume.has("configMap") || volume.has("emptyDir") || volume.has("secret")
                    || volume.has("projected")).as("volume %s", volume).isTrue();
        }
        for (JsonNode container : spec.path("containers")) {
            JsonNode sc = container.path("securityContext");
            String name = container.path("name").asString();
            assertThat(sc.path("allowPrivilegeEscalation").asBoolean(true)).as("%s allowPrivilegeEscalation", name)
                    .isFalse();
            assertThat(sc.path("privileged").asBoolean(false)).as("%s privileged", name).isFalse();
            List<String> dropped = new ArrayList<>();
            sc.at("/capabilities/drop").forEach(c -> dropped.add(c.asString()));
            assertThat(dropped).as("%s capabilities.drop", name).containsExactly("ALL");
            assertThat(sc.at("/capabilities/add").isMissingNode()).as("%s capabilities.add", name).isTrue();
            assertThat(sc.path("readOnlyRootFilesystem").asBoolean(false)).as("%s readOnlyRootFilesystem", name)
                    .isTrue();
            assertThat(container.path("ports").findValues("hostPort")).as("%s hostPort", name).isEmpty();
        }
        // The JVM and libraries it loads write below java.io.tmpdir (/tmp); the sink writes buffer_directory.
        String buffers = new TomlMapper().readTree(connectorFile()).at("/plugin_config/buffer_directory").asString();
        for (String writable : List.of(buffers, "/tmp")) {
            assertThat(emptyDirMountedAt(spec, writable)).as("an emptyDir mounted at %s", writable).isTrue();
        }
    }

    /**
     * A node drain or a cluster upgrade takes at most one replica at a time; an unready pod (the store is down, so
     * every pod is) may still be evicted, or a drain during an outage would wait for the outage to end.
     */
    @Test
    void a_pod_disruption_budget_lets_one_replica_go_at_a_time() throws IOException {
        JsonNode budget = k8s("PodDisruptionBudget");
        JsonNode deployment = k8s("Deployment");
        assertThat(budget.path("apiVersion").asString()).isEqualTo("policy/v1");
        JsonNode selector = budget.at("/spec/selector/matchLabels");
        JsonNode podLabels = deployment.at("/spec/template/metadata/labels");
        assertThat(selector.isObject() && !selector.isEmpty()).as("matchLabels").isTrue();
        selector.properties().forEach(e -> assertThat(podLabels.path(e.getKey()).asString())
                .as("pod label %s", e.getKey()).isEqualTo(e.getValue().asString()));
        assertThat(budget.at("/spec/maxUnavailable").asInt()).isEqualTo(1);
        assertThat(budget.at("/spec/unhealthyPodEvictionPolicy").asString()).isEqualTo("AlwaysAllow");
    }

    /**
     * kubeconform (scripts/ensure-kubeconform.sh installs it, env {@code KUBECONFORM} names another) validates every
     * object against the JSON schemas of the Kubernetes API (made from its OpenAPI documents; env
     * {@code KUBERNETES_SCHEMAS} names another directory), strictly: an unknown or misplaced field is an error, as is
     * a kind it has no schema for.
     */
    @Test
    void kubeconform_validates_every_object_against_the_kubernetes_schemas() throws Exception {
        Analysis result = kubeconform(MANIFEST);
        assertThat(result.exitCode()).as(result.output()).isZero();
        assertThat(result.output()).as(result.output())
                .containsPattern("Summary: (\\d+) resources found in 1 file - Valid: \\1, Invalid: 0, Errors: 0,"
                        + " Skipped: 0");
    }

    /** The validator is not vacuous: a misspelt field, a wrong type and an unknown kind each fail. */
    @Test
    void kubeconform_rejects_a_misspelt_field_a_wrong_type_and_an_unknown_kind(@TempDir Path dir) throws Exception {
        String manifest = Files.readString(MANIFEST);
        Map<String, String> broken = Map.of(
                "misspelt", manifest.replaceFirst("terminationGracePeriodSeconds:", "terminationGracePeriodSecond:"),
                "wrong-type", manifest.replaceFirst("replicas: \\d+", "replicas: three"),
                "unknown-kind", manifest.replaceFirst("kind: PodDisruptionBudget", "kind: PodDisruptionBudgett"));
        for (Map.Entry<String, String> e : broken.entrySet()) {
            assertThat(e.getValue()).as(e.getKey()).isNotEqualTo(manifest);
            Path file = dir.resolve(e.getKey() + ".yaml");
            Files.writeString(file, e.getValue(), StandardCharsets.UTF_8);
            Analysis result = kubeconform(file);
            assertThat(result.exitCode()).as("%s: %s", e.getKey(), result.output()).isEqualTo(1);
        }
    }

    /**
     * deploy/container/Dockerfile makes the image the manifest names from the tarball: unpacked into
     * /opt/iggy-s3-sink, run by the launcher as the non-root user the pod's securityContext names.
     */
    @Test
    void the_dockerfile_builds_from_the_tarball_and_runs_the_launcher_as_the_pods_user() throws IOException {
        List<String> lines = dockerfile();
        assertThat(lines).anyMatch(l -> l.matches("FROM eclipse-temurin:(17|21|25)-jre\\S*"));
        assertThat(lines).as("the tarball is what goes in")
                .anyMatch(l -> l.matches("(ADD|COPY) iggy-s3-sink-\\$\\{VERSION}\\.tar\\.gz \\S+"));
        List<String> users = lines.stream().filter(l -> l.startsWith("USER ")).toList();
        assertThat(users).as("USER").isNotEmpty();
        String user = users.get(users.size() - 1).substring(5).strip();
        assertThat(user).as("a numeric user (runAsNonRoot can check only a number)").matches("\\d+(:\\d+)?");
        JsonNode pod = k8s("Deployment").at("/spec/template/spec/securityContext");
        assertThat(user).isEqualTo(pod.path("runAsUser").asInt() + ":" + pod.path("runAsGroup").asInt());
        assertThat(lines).contains("ENTRYPOINT [\"/opt/iggy-s3-sink/bin/iggy-s3-sink\"]");
        assertThat(Paths.get("src", "dist", "bin", "iggy-s3-sink")).as("the launcher the tarball ships").exists();
        String image = k8s("Deployment").at("/spec/template/spec/containers/0/image").asString();
        assertThat(Files.readString(DEPLOY.resolve("container/Dockerfile")))
                .as("the build command in the Dockerfile tags the image the manifest runs").contains("-t " + image);
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

    private static final Path MANIFEST = DEPLOY.resolve("kubernetes/iggy-s3-sink.yaml");
    /**
     * The admin server's liveness answer: 503 only when a consumer loop has stopped coming round (a stuck process),
     * 200 through outages, halted partitions and pauses.
     */
    private static final List<String> LIVENESS_PATHS = List.of("/live");

    private static boolean emptyDirMountedAt(JsonNode podSpec, String path) {
        for (JsonNode m : podSpec.at("/containers/0/volumeMounts")) {
            if (!m.path("mountPath").asString().equals(path)) continue;
            for (JsonNode v : podSpec.path("volumes")) {
                if (v.path("name").asString().equals(m.path("name").asString())) return v.has("emptyDir");
            }
        }
        return false;
    }

    /** A checker scripts/ensure-kubeconform.sh puts under .tools, or the one the environment variable names. */
    private static Path tool(String env, String name) {
        String fromEnv = System.getenv(env);
        Path path = fromEnv != null && !fromEnv.isBlank() ? Paths.get(fromEnv) : Paths.get("..", ".tools", name);
        assertThat(path).as("%s is missing (run scripts/ensure-kubeconform.sh, or set %s)", path, env).exists();
        return path;
    }

    private static Analysis kubeconform(Path manifest) throws IOException, InterruptedException {
        Path schemas = tool("KUBERNETES_SCHEMAS", "kubernetes-json-schema/" + KUBERNETES_VERSION);
        return run(tool("KUBECONFORM", "kubeconform").toString(), "-strict", "-summary",
                "-schema-location", schemas.toAbsolutePath() + "/{{.ResourceKind}}{{.KindSuffix}}.json",
                manifest.toAbsolutePath().toString());
    }

    /** The Kubernetes release scripts/ensure-kubeconform.sh makes the schemas of (its KUBERNETES_VERSION). */
    private static final String KUBERNETES_VERSION = kubernetesVersion();

    private static String kubernetesVersion() {
        try {
            Matcher m = Pattern.compile("(?m)^KUBERNETES_VERSION=\"(v[0-9.]+)\"")
                    .matcher(Files.readString(Paths.get("..", "scripts", "ensure-kubeconform.sh")));
            if (!m.find()) throw new AssertionError("no KUBERNETES_VERSION in scripts/ensure-kubeconform.sh");
            return m.group(1);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The Dockerfile's instructions, one per element, continuation lines joined and comments dropped. */
    private static List<String> dockerfile() throws IOException {
        List<String> instructions = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : Files.readAllLines(DEPLOY.resolve("container/Dockerfile"), StandardCharsets.UTF_8)) {
            String line = raw.strip();
            if (line.startsWith("#") || line.isEmpty() && current.length() == 0) continue;
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            current.append(line);
            instructions.add(current.toString().replaceAll("\\s+", " ").strip());
            current.setLength(0);
        }
        return instructions;
    }

    /** Runs a command; its exit code and output (stdout and stderr together). */
    private static Analysis run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return new Analysis(p.exitValue(), output);
    }

    private static JsonNode k8s(String kind) throws IOException {
        try (MappingIterator<JsonNode> docs = new YAMLMapper().readerFor(JsonNode.class)
                .readValues(MANIFEST.toFile())) {
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
