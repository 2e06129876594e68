package dev.iggysink.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.config.ConfigError;
import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command the README shows is run or checked against this build, so that the README cannot rot: the demo
 * commands run to a clean stop; the install block runs (into a temporary directory for {@code /opt}, without
 * {@code sudo}); each sink command's options are in its {@code --help} and its exit codes are the ones {@code --help}
 * lists; each script exists, parses and takes the options shown; {@code curl} and the Operations table's endpoints
 * answer on a running demo, whose {@code /metrics} carries the metrics named; each config key named in the
 * Configuration section is read by the config loader {@code validate} uses; each TOML block validates; each repo
 * path and link exists. A command of a kind the test does not know fails it, so a new one gets a check. Not run:
 * {@code scripts/test.sh} (it runs this test) and the commands of tools outside the repo (systemd, the MinIO client).
 */
class ReadmeCommandsIT {
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final String SINK_JAR = "bootstrap/target/iggy-s3-sink.jar";
    private static final String DEMO_JAR = "demo/target/iggy-s3-sink-demo.jar";
    private static final Set<String> LAUNCHERS = Set.of("bin/iggy-s3-sink", "/opt/iggy-s3-sink/bin/iggy-s3-sink");
    private static final Set<String> SINK_COMMANDS = Set.of("run", "validate", "audit", "redrive", "maintain");
    private static final Set<String> MAVEN_PHASES = Set.of("clean", "validate", "compile", "test", "package",
            "verify", "install");
    private static final Pattern OPTION = Pattern.compile("--[a-z][a-z0-9-]*");
    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9_]*");
    private static final Pattern TABLE = Pattern.compile("\\[\\[?([a-z_.]+)]]?");
    /** Registered at the first retried upload, which a demo run never has. */
    private static final Set<String> METRICS_ON_FIRST_EVENT = Set.of("iggysink_upload_retries_total");

    private static Readme readme;
    private static final Map<String, String> HELP = new HashMap<>();

    @TempDir
    static Path tmp;

    @BeforeAll
    static void read() throws IOException {
        readme = new Readme(Files.readString(REPO.resolve("README.md")));
        assertThat(REPO.resolve(SINK_JAR)).as("run `mvn package` first").exists();
        assertThat(REPO.resolve(DEMO_JAR)).as("run `mvn package` first").exists();
    }

    @Test
    void every_command_is_of_a_kind_this_test_checks() {
        List<String> unknown = new ArrayList<>();
        for (Readme.Command c : readme.commands()) {
            if (kind(c).equals("unknown")) unknown.add(c.toString());
        }
        assertThat(unknown).as("README commands no check covers").isEmpty();
        assertThat(readme.commands()).as("the README's commands").hasSizeGreaterThan(10);
    }

    /** The two commands at the top: the demo runs; test.sh is checked like every script (it runs this test). */
    @Test
    void the_commands_at_the_top_are_the_demo_and_the_test_script() throws IOException {
        List<Readme.Command> top = readme.commands().stream().filter(Readme.Command::fenced).limit(3).toList();
        assertThat(top).extracting(Readme.Command::text).containsExactly(
                "mvn -B -q -DskipTests package", "java -jar " + DEMO_JAR, "bash scripts/test.sh");
        // CI runs exactly the README's test command.
        List<String> ci = Files.readAllLines(REPO.resolve(".ci/run")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#") && !l.startsWith("set ") && !l.startsWith("cd ")).toList();
        assertThat(ci).containsExactly(top.get(2).text());
    }

    @Test
    void sink_commands_take_the_options_shown_and_exit_with_the_codes_documented() throws Exception {
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (Readme.Command c : ofKind("sink")) {
            List<String> words = sinkWords(c);
            String command = words.stream().filter(SINK_COMMANDS::contains).findFirst().orElse("");
            String help = help(SINK_JAR, command);
            for (String option : options(c.text())) {
                if (!mentions(help, option)) failures.add(c + ": `" + option + "` is not in `" + command + " --help`");
            }
            checked++;
        }
        for (List<String> row : Readme.tableRows(readme.section("Commands"))) {
            String first = row.get(0).replace("`", "");
            String command = first.split(" ")[0];
            if (!SINK_COMMANDS.contains(command) || row.size() < 3) continue;
            Set<Integer> documented = codes(row.get(2));
            Set<Integer> listed = helpCodes(help(SINK_JAR, command));
            if (!documented.equals(listed)) {
                failures.add("Commands table, `" + command + "`: exit codes " + documented + ", --help lists " + listed);
            }
        }
        assertThat(failures).isEmpty();
        assertThat(checked).isGreaterThanOrEqualTo(4);
    }

    @Test
    void demo_commands_run_to_a_clean_stop_with_the_options_shown() throws Exception {
        List<String> failures = new ArrayList<>();
        int ran = 0;
        for (Readme.Command c : ofKind("demo")) {
            String help = help(DEMO_JAR, "");
            for (String option : options(c.text())) {
                if (!mentions(help, option)) failures.add(c + ": `" + option + "` is not in the demo's --help");
            }
            if (!concrete(c.text()) || c.text().contains("--keep-running")) continue;
            Run run = run(List.of("bash", "-c", c.text()), Duration.ofMinutes(3));
            if (run.exit() != 0 || !run.output().contains("Sink stopped cleanly")) {
                failures.add(c + ": exit " + run.exit() + "\n" + tail(run.output()));
            }
            ran++;
        }
        assertThat(failures).isEmpty();
        assertThat(ran).as("demo commands run").isGreaterThanOrEqualTo(2);
    }

    /** The install block, as an operator types it, with /opt in a temporary directory and without sudo. */
    @Test
    void the_install_block_runs() throws Exception {
        List<Readme.Command> install = readme.commands().stream()
                .filter(c -> c.fenced() && (c.text().startsWith("sudo ") || c.text().startsWith("/opt/"))).toList();
        assertThat(install).extracting(Readme.Command::text).anyMatch(t -> t.startsWith("sudo tar "))
                .anyMatch(t -> t.endsWith("--version")).anyMatch(t -> t.contains(" validate --config "));
        Path opt = Files.createDirectories(tmp.resolve("opt"));
        StringBuilder script = new StringBuilder("set -e\n");
        for (Readme.Command c : install) {
            script.append(c.text().replaceFirst("^sudo ", "").replace("/opt", opt.toString())).append('\n');
        }
        Run run = run(List.of("bash", "-c", script.toString()), Duration.ofMinutes(1));
        assertThat(run.exit()).as("%s\n%s", install, run.output()).isZero();
        assertThat(run.output()).contains("iggy-s3-sink " + System.getProperty("dist.version", "0.1.0-SNAPSHOT"))
                .contains("OK: 1 sink(s)");
    }

    @Test
    void scripts_exist_parse_and_take_the_options_shown() throws Exception {
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (Readme.Command c : ofKind("script")) {
            Path script = REPO.resolve(c.words().get(1));
            if (!Files.isRegularFile(script)) {
                failures.add(c + ": no file " + c.words().get(1));
                continue;
            }
            Run syntax = run(List.of("bash", "-n", script.toString()), Duration.ofSeconds(30));
            if (syntax.exit() != 0) failures.add(c + ": bash -n: " + syntax.output());
            String text = Files.readString(script);
            for (String option : options(c.text())) {
                if (!text.contains(option + ")")) failures.add(c + ": " + c.words().get(1) + " has no case for " + option);
            }
            checked++;
        }
        assertThat(failures).isEmpty();
        assertThat(checked).isGreaterThanOrEqualTo(2);
    }

    /** Maven is not run from inside its own build; what it is asked for must be phases that build the jars used. */
    @Test
    void maven_commands_name_lifecycle_phases_up_to_package() {
        List<String> failures = new ArrayList<>();
        for (Readme.Command c : ofKind("maven")) {
            List<String> phases = c.words().subList(1, c.words().size()).stream().filter(w -> !w.startsWith("-"))
                    .toList();
            if (phases.isEmpty() || !MAVEN_PHASES.containsAll(phases)) failures.add(c + ": phases " + phases);
        }
        assertThat(failures).isEmpty();
    }

    /** systemctl, journalctl and mc are not run; the unit they name must be the one deploy/ ships. */
    @Test
    void service_commands_name_the_shipped_unit() {
        List<String> failures = new ArrayList<>();
        for (Readme.Command c : ofKind("external")) {
            List<String> words = c.words();
            String tool = words.get(words.get(0).equals("sudo") ? 1 : 0);
            if (!tool.equals("systemctl") && !tool.equals("journalctl")) continue;
            String unit = words.stream().filter(w -> w.startsWith("iggy-s3-sink")).findFirst().orElse("?");
            if (!Files.isRegularFile(REPO.resolve("deploy/systemd/" + unit + ".service"))) {
                failures.add(c + ": no deploy/systemd/" + unit + ".service");
            }
        }
        assertThat(failures).isEmpty();
    }

    /**
     * A demo kept running answers every endpoint of the Operations table and the README's curl commands, and its
     * /metrics has every metric the README names.
     */
    @Test
    void operations_endpoints_curl_commands_and_metrics_answer_on_a_running_demo() throws Exception {
        Process demo = new ProcessBuilder("java", "-jar", DEMO_JAR, "--keep-running").directory(REPO.toFile())
                .redirectErrorStream(true).start();
        try {
            String admin = adminAddress(demo);
            HttpClient http = HttpClient.newHttpClient();
            List<String> failures = new ArrayList<>();
            Pattern endpoint = Pattern.compile("`(GET|POST) (/[a-z]*)`");
            for (List<String> row : Readme.tableRows(readme.section("Operations"))) {
                Matcher m = endpoint.matcher(row.get(0));
                while (m.find()) {
                    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + admin + m.group(2)));
                    request = m.group(1).equals("GET") ? request.GET() : request.POST(HttpRequest.BodyPublishers.noBody());
                    int status = http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
                    if (status / 100 != 2) failures.add(m.group() + " answered " + status);
                }
            }
            int curls = 0;
            for (Readme.Command c : ofKind("curl")) {
                String command = c.text().replace("127.0.0.1:8098", admin) + " -o /dev/null -w '%{http_code}'";
                Run run = run(List.of("bash", "-c", "TOKEN= " + command), Duration.ofSeconds(30));
                if (run.exit() != 0 || !run.output().strip().startsWith("2")) {
                    failures.add(c + ": exit " + run.exit() + ", answer " + run.output());
                }
                curls++;
            }
            String metrics = http.send(HttpRequest.newBuilder(URI.create("http://" + admin + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Matcher named = Pattern.compile("iggysink_[a-z_]+").matcher(String.join("\n", readme.section("Operations")));
            Set<String> names = new TreeSet<>();
            // The demo runs the S3 sink; the table sink's series (iggysink_table_*) are checked by TableAdminIT.
            while (named.find()) if (!named.group().startsWith("iggysink_table_")) names.add(named.group());
            for (String name : names) {
                if (!METRICS_ON_FIRST_EVENT.contains(name) && !Pattern.compile("(?m)^" + name + "(_|\\{| )")
                        .matcher(metrics).find()) {
                    failures.add("metric " + name + " is not in /metrics");
                }
            }
            assertThat(failures).isEmpty();
            assertThat(curls).isPositive();
            assertThat(names).hasSizeGreaterThan(10);
        } finally {
            demo.destroy();
            if (!demo.waitFor(60, TimeUnit.SECONDS)) demo.destroyForcibly();
        }
    }

    /**
     * Each key the Configuration section names (the Rust sink's keys, the Iggy connection's, and our additions) is read by the loader {@code validate} uses: given a value of the wrong type in the table the
     * README puts it in, the loader reports that key's value, not an unknown key.
     */
    @Test
    void config_keys_named_in_the_readme_are_read_by_validate() throws Exception {
        Map<String, String> keys = configKeys();
        assertThat(keys).containsKeys("plugin_config.bucket", "streams.topics", "iggy.address", "admin.token",
                "plugin_config.rotate_schedule_interval");
        List<String> failures = new ArrayList<>();
        for (Map.Entry<String, String> k : keys.entrySet()) {
            String table = k.getValue();
            String key = k.getKey().substring(k.getKey().lastIndexOf('.') + 1);
            Path file = tmp.resolve("key-" + k.getKey().replace('.', '-') + ".toml");
            Files.writeString(file, withKey(table, key));
            ConfigResult result = ConnectorConfigLoader.load(file, Map.of());
            String path = (table.isEmpty() ? "" : table.equals("streams") ? "streams[0]." : table + ".") + key;
            // A table-valued key (a transform) answers for what the value lacks, under its own path.
            List<ConfigError> about = result.errors().stream()
                    .filter(e -> e.path().equals(path) || e.path().startsWith(path + ".")).toList();
            boolean read = !about.isEmpty() && about.stream().noneMatch(e -> e.message().contains("unknown"));
            boolean unknown = result.warnings().stream().anyMatch(w -> w.startsWith("unknown key " + path));
            if (!read || unknown) failures.add("`" + path + "`: " + result.errors() + " " + result.warnings());
        }
        assertThat(failures).as("keys the README names that validate does not read").isEmpty();
    }

    /** A TOML block completes the example connector file (its tables replace the example's) and validates. */
    @Test
    void toml_blocks_validate() throws Exception {
        List<Readme.Block> blocks = readme.blocks("toml");
        assertThat(blocks).isNotEmpty();
        for (Readme.Block b : blocks) {
            Map<String, List<String>> sections = sections(exampleFile());
            Map<String, List<String>> block = sections(b.lines());
            sections.get("").addAll(block.remove(""));
            sections.putAll(block);
            Path file = tmp.resolve("block-" + b.line() + ".toml");
            Files.writeString(file, join(sections));
            Run run = run(List.of("java", "-jar", REPO.resolve(SINK_JAR).toString(), "validate", "--config",
                    file.toString()), Duration.ofMinutes(1));
            assertThat(run.exit()).as("TOML block at README line %d:\n%s", b.line(), run.output()).isZero();
            assertThat(run.output()).as("TOML block at README line %d", b.line()).doesNotContain("warning");
        }
    }

    @Test
    void repo_paths_and_links_exist() throws IOException {
        List<String> failures = new ArrayList<>();
        Pattern repoPath = Pattern.compile("(scripts|deploy|docs|\\.ci|distribution/src)/[^\\s`]*");
        for (Readme.Span s : readme.spans()) {
            Matcher m = repoPath.matcher(s.text());
            if (m.lookingAt() && m.end() == s.text().length() && !Files.exists(REPO.resolve(s.text()))) {
                failures.add("README line " + s.line() + ": no " + s.text());
            }
        }
        for (Readme.Link l : readme.links()) {
            if (l.target().matches("[a-z]+:.*")) continue;
            String[] parts = l.target().split("#", 2);
            Path target = parts[0].isEmpty() ? REPO.resolve("README.md") : REPO.resolve(parts[0]);
            if (!Files.exists(target)) {
                failures.add("README line " + l.line() + ": link to missing " + parts[0]);
            } else if (parts.length == 2 && !Readme.anchors(Files.readString(target)).containsKey(parts[1])) {
                failures.add("README line " + l.line() + ": no heading #" + parts[1] + " in " + target.getFileName());
            }
        }
        assertThat(failures).isEmpty();
    }

    private static List<Readme.Command> ofKind(String kind) {
        return readme.commands().stream().filter(c -> kind(c).equals(kind)).toList();
    }

    private static String kind(Readme.Command c) {
        List<String> w = c.words();
        String first = w.get(0);
        if (first.equals("java") && w.size() > 2 && w.get(1).equals("-jar")) {
            if (w.get(2).equals(SINK_JAR)) return "sink";
            if (w.get(2).equals(DEMO_JAR)) return "demo";
            return "unknown";
        }
        if (LAUNCHERS.contains(first) || SINK_COMMANDS.contains(first)) return "sink";
        if (first.equals("bash") && w.size() > 1 && w.get(1).startsWith("scripts/")) return "script";
        if (first.equals("mvn")) return "maven";
        if (first.equals("curl")) return "curl";
        if (first.equals("sudo") && w.size() > 1 && Set.of("tar", "ln").contains(w.get(1))) return "install";
        if (first.equals("mc") || first.equals("journalctl") || first.equals("systemctl")
                || first.equals("sudo") && w.size() > 1 && w.get(1).equals("systemctl")) {
            return "external";
        }
        return "unknown";
    }

    /** The words of a sink command after the jar or launcher. */
    private static List<String> sinkWords(Readme.Command c) {
        List<String> w = c.words();
        if (w.get(0).equals("java")) return w.subList(3, w.size());
        if (LAUNCHERS.contains(w.get(0))) return w.subList(1, w.size());
        return w;
    }

    private static List<String> options(String command) {
        List<String> options = new ArrayList<>();
        Matcher m = OPTION.matcher(command);
        while (m.find()) options.add(m.group());
        return options;
    }

    private static boolean mentions(String help, String option) {
        return Pattern.compile("(^|[\\s,\\[])" + Pattern.quote(option) + "(?![a-z0-9-])").matcher(help).find();
    }

    /** Without placeholders, alternatives or variables: a command to run as it stands. */
    private static boolean concrete(String command) {
        return !command.matches(".*[<>\\[\\]|$].*");
    }

    private static Set<Integer> codes(String cell) {
        Set<Integer> codes = new TreeSet<>();
        Matcher m = Pattern.compile("(?:^|;\\s*)(\\d)\\b").matcher(cell);
        while (m.find()) codes.add(Integer.parseInt(m.group(1)));
        return codes;
    }

    private static Set<Integer> helpCodes(String help) {
        Set<Integer> codes = new TreeSet<>();
        String after = help.substring(Math.max(0, help.indexOf("Exit codes:")));
        Matcher m = Pattern.compile("(?m)^\\s+(\\d)\\s{2,}").matcher(after);
        while (m.find()) codes.add(Integer.parseInt(m.group(1)));
        return codes;
    }

    private static String help(String jar, String command) throws Exception {
        String key = jar + " " + command;
        if (!HELP.containsKey(key)) {
            List<String> args = new ArrayList<>(List.of("java", "-jar", REPO.resolve(jar).toString()));
            if (!command.isEmpty()) args.add(command);
            args.add("--help");
            Run run = run(args, Duration.ofMinutes(1));
            assertThat(run.exit()).as("%s", args).isZero();
            HELP.put(key, run.output());
        }
        return HELP.get(key);
    }

    /**
     * Keys named in the Configuration section, each with the table it is in ("" for the top level): in the
     * paragraphs on the Rust sink's keys and the Iggy connection, names outside parentheses, in the table of the
     * last {@code [table]} named before them; in the additions table, the names of the first column.
     */
    private static Map<String, String> configKeys() {
        Map<String, String> keys = new LinkedHashMap<>();
        List<String> section = readme.section("Configuration");
        StringBuilder paragraph = new StringBuilder();
        for (String l : section) {
            if (l.isBlank()) {
                String p = paragraph.toString();
                if (p.startsWith("**The Rust sink's keys") || p.startsWith("**The Iggy connection")
                        || p.startsWith("**Our additions")) {
                    keysOutsideParentheses(p, p.startsWith("**The Iggy") ? "iggy" : "", keys);
                }
                paragraph.setLength(0);
            } else {
                paragraph.append(l).append(' ');
            }
        }
        for (List<String> row : Readme.tableRows(section)) {
            if (row.get(0).equals("key")) continue;
            for (String cell : row.get(0).split(",\\s*")) {
                String name = cell.replace("`", "").trim();
                Matcher table = Pattern.compile("\\[([a-z_.]+)] ([a-z_]+)").matcher(name);
                if (table.matches()) {
                    keys.put(table.group(1) + "." + table.group(2), table.group(1));
                } else if (KEY.matcher(name).matches()) {
                    keys.put("plugin_config." + name, "plugin_config");
                }
            }
        }
        return keys;
    }

    private static void keysOutsideParentheses(String paragraph, String table, Map<String, String> keys) {
        int depth = 0;
        String current = table;
        Matcher span = Pattern.compile("`([^`]+)`|[()]").matcher(paragraph);
        while (span.find()) {
            if (span.group().equals("(")) depth++;
            else if (span.group().equals(")")) depth = Math.max(0, depth - 1);
            else if (depth == 0) {
                String name = span.group(1);
                Matcher t = TABLE.matcher(name);
                if (t.matches()) current = t.group(1);
                else if (KEY.matcher(name).matches()) keys.put((current.isEmpty() ? "" : current + ".") + name, current);
            }
        }
    }

    /** The example connector file with {@code key} set to a value of no key's type in {@code table}. */
    private static String withKey(String table, String key) throws IOException {
        Map<String, List<String>> sections = sections(exampleFile());
        String header = table.isEmpty() ? "" : table.equals("streams") ? "[[streams]]" : "[" + table + "]";
        List<String> lines = new ArrayList<>(sections.getOrDefault(header, List.of()));
        lines.removeIf(l -> l.startsWith(key + " ") || l.startsWith(key + "="));
        lines.add(key + " = { not_a_value_of_any_key = 1 }");
        sections.put(header, lines);
        return join(sections);
    }

    private static List<String> exampleFile() throws IOException {
        return Files.readAllLines(REPO.resolve("distribution/src/dist/config/s3_sink.toml"));
    }

    /** A TOML file's lines by table header; "" holds the top-level keys. */
    private static Map<String, List<String>> sections(List<String> lines) {
        Map<String, List<String>> sections = new LinkedHashMap<>();
        String header = "";
        sections.put(header, new ArrayList<>());
        for (String l : lines) {
            if (l.startsWith("[")) {
                header = l.trim();
                sections.put(header, new ArrayList<>());
            } else {
                sections.get(header).add(l);
            }
        }
        return sections;
    }

    private static String join(Map<String, List<String>> sections) {
        StringBuilder out = new StringBuilder();
        sections.forEach((header, lines) -> {
            if (!header.isEmpty()) out.append(header).append('\n');
            lines.forEach(l -> out.append(l).append('\n'));
        });
        return out.toString();
    }

    private static String adminAddress(Process demo) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8));
        Pattern admin = Pattern.compile("^Admin server: http://([0-9.]+:[0-9]+)");
        StringBuilder seen = new StringBuilder();
        for (String line; (line = out.readLine()) != null; ) {
            seen.append(line).append('\n');
            Matcher m = admin.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> {
                    try {
                        while (out.readLine() != null) {
                            // the demo's log, read so that it never blocks on a full pipe
                        }
                    } catch (IOException closedAtTheEnd) {
                        // the demo was stopped
                    }
                }, "demo-output");
                drain.setDaemon(true);
                drain.start();
                return m.group(1);
            }
        }
        throw new AssertionError("the demo printed no admin address:\n" + seen);
    }

    record Run(int exit, String output) {
    }

    private static Run run(List<String> command, Duration limit) throws Exception {
        Process p = new ProcessBuilder(command).directory(REPO.toFile()).redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        Thread reader = new Thread(() -> {
            try {
                output.append(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                output.append(e);
            }
        });
        reader.start();
        if (!p.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not end within " + limit);
        }
        reader.join();
        return new Run(p.exitValue(), output.toString());
    }

    private static String tail(String output) {
        List<String> lines = output.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }
}
