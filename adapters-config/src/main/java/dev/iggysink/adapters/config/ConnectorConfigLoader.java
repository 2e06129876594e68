package dev.iggysink.adapters.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.toml.TomlMapper;

/**
 * Entry point of the config adapter. {@link #load} accepts either a single connector file (it has a top-level
 * {@code type}) or a runtime config (it has {@code [connectors]}, whose {@code config_dir} holds one file per
 * connector version, the active one named by {@code .active_versions.toml}, else the highest). It returns every
 * enabled S3 sink and (from a connector directory) every enabled Iceberg table sink, or every problem found.
 */
public final class ConnectorConfigLoader {
    static final String ACTIVE_VERSIONS = ".active_versions.toml";
    private static final List<String> RUNTIME_SECTIONS = List.of("http", "iggy", "state", "connectors", "logging",
            "telemetry");
    private static final TomlMapper TOML = TomlMapper.builder().build();

    private ConnectorConfigLoader() {
    }

    /**
     * @param file a connector file or a runtime config
     * @param env  the environment (overrides win over the file); pass {@code System.getenv()} in production
     */
    public static ConfigResult load(Path file, Map<String, String> env) {
        return load(file, env, Path.of("").toAbsolutePath());
    }

    /**
     * As {@link #load(Path, Map)}, with the working directory a relative {@code config_dir} is first looked up in.
     * Both {@code validate} and {@code run} decide on this result alone: no errors means there is at least one
     * enabled sink to run.
     */
    public static ConfigResult load(Path file, Map<String, String> env, Path workingDir) {
        Problems problems = new Problems();
        List<ConnectorConfig> sinks = new ArrayList<>();
        List<TableConnectorConfig> tableSinks = new ArrayList<>();
        String label = String.valueOf(file.getFileName());
        Optional<ObjectNode> root = parse(file, label, problems);
        if (root.isPresent()) {
            if (root.get().has("type")) {
                single(file, root.get(), env, problems, sinks);
            } else if (root.get().has("connectors")) {
                runtime(file, root.get(), env, workingDir, problems, sinks, tableSinks);
            } else {
                problems.error(label, "neither a connector file (no top-level type) nor a runtime config "
                        + "(no [connectors] table)");
            }
        }
        Optional<String> logFormat = root.flatMap(r -> logFormat(r, env, problems));
        if (problems.errorCount() == 0 && sinks.isEmpty() && tableSinks.isEmpty()) {
            // run refuses this; validate must say so too, not "OK: 0 sink(s)".
            problems.error(label, root.isPresent() && root.get().has("type") ? "no enabled S3 sink to run"
                    : "no enabled sink to run");
        }
        boolean ok = problems.errorCount() == 0;
        return new ConfigResult(ok ? sinks : List.of(), problems.errors(), problems.warnings(), problems.notices(),
                logFormat, ok ? tableSinks : List.of());
    }

    /** {@code [logging] format} of the Iggy runtime config (also accepted in a connector file); env wins. */
    private static Optional<String> logFormat(ObjectNode root, Map<String, String> env, Problems problems) {
        String fromEnv = env.get("IGGY_CONNECTORS_LOGGING_FORMAT");
        JsonNode node = root.path("logging").path("format");
        String value = fromEnv != null ? fromEnv : node.isString() ? node.asString() : null;
        if (value == null) {
            if (!node.isMissingNode()) problems.error("logging.format", "expected a string: text or json");
            return Optional.empty();
        }
        String v = value.trim().toLowerCase(java.util.Locale.ROOT);
        if (!v.equals("text") && !v.equals("json")) {
            problems.error(fromEnv != null ? "IGGY_CONNECTORS_LOGGING_FORMAT" : "logging.format",
                    "\"" + value + "\" is not one of text, json");
            return Optional.empty();
        }
        return Optional.of(v);
    }

    private static void single(Path file, ObjectNode root, Map<String, String> env, Problems problems,
                               List<ConnectorConfig> sinks) {
        Map<String, String> origins = new HashMap<>();
        ObjectNode tree = withEnv(root, env, origins);
        ConnectorReader.read(tree, baseDir(file), problems, origins, false, Optional.empty(), env)
                .ifPresent(s -> {
                    if (s.sink().enabled()) {
                        sinks.add(s);
                    } else {
                        problems.notice("sink " + s.key() + " is disabled (enabled = false): nothing to run");
                    }
                });
    }

    /** A copy of the connector tree with {@code IGGY_CONNECTORS_SINK_<KEY>_*} applied (when it has a key). */
    private static ObjectNode withEnv(ObjectNode root, Map<String, String> env, Map<String, String> origins) {
        ObjectNode tree = root.deepCopy();
        JsonNode key = root.get("key");
        if (key != null && key.isString() && !key.stringValue().isBlank()) {
            EnvOverrides.applyToConnector(tree, key.stringValue(), env, origins);
        }
        return tree;
    }

    private record Candidate(String fileName, Path path, ObjectNode tree, Map<String, String> origins, long version,
                             Problems problems) {
    }

    private static void runtime(Path file, ObjectNode root, Map<String, String> env, Path workingDir,
                                Problems problems, List<ConnectorConfig> sinks,
                                List<TableConnectorConfig> tableSinks) {
        Map<String, String> origins = new HashMap<>();
        new Table(root, "", problems, origins).warnUnknown(RUNTIME_SECTIONS);
        Table connectors = new Table(EnvOverrides.applyToSection(root.get("connectors"), "connectors", List.of(),
                env, origins), "connectors", problems, origins);
        connectors.warnUnknown(List.of("config_type", "config_dir"));
        connectors.choice("config_type", Map.of("local", "local"), false,
                "local (the http provider is not supported)");
        Optional<String> configDir = connectors.requiredNonEmpty("config_dir");
        Optional<IggyConfig> iggy = ConnectionReader.iggy(new Table(
                EnvOverrides.applyToSection(root.get("iggy"), "iggy", List.of("tls"), env, origins), "iggy",
                problems, origins));
        if (configDir.isEmpty()) {
            return;
        }
        Optional<Path> located = connectorDirectory(configDir.get(), file, workingDir, connectors);
        if (located.isEmpty()) {
            return;
        }
        Path dir = located.get();
        Map<String, Long> active = activeVersions(dir, problems);
        Map<String, List<Candidate>> byKey = new TreeMap<>();
        for (Path path : connectorFiles(dir, connectors)) {
            addCandidate(path, env, problems, byKey);
        }
        for (Map.Entry<String, List<Candidate>> entry : byKey.entrySet()) {
            String key = entry.getKey();
            List<Candidate> versions = entry.getValue();
            String found = versions.stream().map(c -> String.valueOf(c.version())).collect(Collectors.joining(", "));
            Candidate chosen;
            if (active.containsKey(key)) {
                long wanted = active.get(key);
                chosen = versions.stream().filter(c -> c.version() == wanted).findFirst().orElse(null);
                if (chosen == null) {
                    if (versions.stream().anyMatch(ConnectorConfigLoader::runsHere)) {
                        problems.forFile(ACTIVE_VERSIONS).error("sinks." + key, "version " + wanted
                                + " is not in the connector directory (found " + found + ")");
                    } else {
                        problems.notice("sink " + key + " skipped: active version " + wanted + " not found");
                    }
                    continue;
                }
                if (versions.size() > 1) {
                    problems.notice("sink " + key + ": running version " + wanted + " (named by " + ACTIVE_VERSIONS
                            + "; found " + found + ")");
                }
            } else {
                chosen = versions.stream().max(Comparator.comparingLong(Candidate::version)).orElseThrow();
                if (versions.size() > 1) {
                    problems.notice("sink " + key + ": running the highest version, " + chosen.version()
                            + " (found " + found + ")");
                }
            }
            if (!runsHere(chosen)) {
                chosen.problems().notice("sink " + key + " skipped: neither an S3 nor an Iceberg sink (its path names"
                        + " neither, and its [plugin_config] has no bucket, directory, catalog_type or tables)");
                continue;
            }
            for (Candidate other : versions) {
                if (other != chosen && runsHere(other)) {
                    idleVersion(other, key, iggy, env);
                }
            }
            if (isTableSink(chosen)) {
                TableConnectorReader.read(chosen.tree(), baseDir(chosen.path()), chosen.problems(), chosen.origins(),
                        env, true, iggy).ifPresent(t -> {
                            if (t.enabled()) {
                                tableSinks.add(t);
                            } else {
                                chosen.problems().notice("sink " + key + " is disabled (enabled = false): skipped");
                            }
                        });
                continue;
            }
            ConnectorReader.read(chosen.tree(), baseDir(chosen.path()), chosen.problems(), chosen.origins(), true,
                    iggy, env).ifPresent(s -> {
                        if (s.sink().enabled()) {
                            sinks.add(s);
                        } else {
                            chosen.problems().notice("sink " + key + " is disabled (enabled = false): skipped");
                        }
                    });
        }
    }

    /**
     * A version that does not run is still checked: its errors do not stop the sink (the runtime ignores it too), but
     * they are shown, so switching versions later holds no surprise.
     */
    private static void idleVersion(Candidate c, String key, Optional<IggyConfig> iggy, Map<String, String> env) {
        Problems scratch = new Problems();
        if (isTableSink(c)) {
            TableConnectorReader.read(c.tree(), baseDir(c.path()), scratch, c.origins(), env, true, iggy);
        } else {
            ConnectorReader.read(c.tree(), baseDir(c.path()), scratch, c.origins(), true, iggy, env);
        }
        for (ConfigError e : scratch.errors()) {
            c.problems().warning("sink " + key + " version " + c.version() + " (not the one that runs): " + e);
        }
    }

    /**
     * Where {@code config_dir} points. The Iggy runtime takes it as given, i.e. relative to the working directory, so
     * that is tried first; then, for a config moved elsewhere, relative to the config file. Which one was used is a
     * notice.
     */
    private static Optional<Path> connectorDirectory(String configDir, Path file, Path workingDir, Table connectors) {
        Path given;
        try {
            given = Path.of(configDir);
        } catch (java.nio.file.InvalidPathException e) {
            connectors.error("config_dir", StoreRules.quote(configDir) + " is not a path: " + e.getReason());
            return Optional.empty();
        }
        String shown = StoreRules.quote(configDir);
        if (given.isAbsolute()) {
            if (!Files.isDirectory(given)) {
                connectors.error("config_dir", shown + " is not a directory");
                return Optional.empty();
            }
            connectors.problems().notice("connector directory: " + given);
            return Optional.of(given);
        }
        Path fromWork = workingDir.toAbsolutePath().resolve(given).normalize();
        Path fromFile = baseDir(file).resolve(given).normalize();
        if (Files.isDirectory(fromWork)) {
            connectors.problems().notice("connector directory: " + fromWork + " (config_dir " + shown
                    + " relative to the working directory)");
            if (!fromFile.equals(fromWork) && Files.isDirectory(fromFile)) {
                connectors.problems().warning("connectors.config_dir: " + fromFile + " is not used; "
                        + fromWork + " in the working directory comes first, as in the Iggy runtime");
            }
            return Optional.of(fromWork);
        }
        if (Files.isDirectory(fromFile)) {
            connectors.problems().notice("connector directory: " + fromFile + " (config_dir " + shown
                    + " relative to the directory of " + file.getFileName() + ")");
            return Optional.of(fromFile);
        }
        connectors.error("config_dir", shown + " is not a directory (looked in " + fromWork
                + (fromFile.equals(fromWork) ? "" : " and " + fromFile) + ")");
        return Optional.empty();
    }

    /** Files one directory entry under its key, or skips it (with a notice or an error recorded). */
    private static void addCandidate(Path path, Map<String, String> env, Problems problems,
                                     Map<String, List<Candidate>> byKey) {
        String name = String.valueOf(path.getFileName());
        Problems fp = problems.forFile(name);
        Optional<ObjectNode> root = parse(path, name, problems);
        if (root.isEmpty()) {
            return;
        }
        Table top = new Table(root.get(), "", fp, Map.of());
        Optional<String> type = top.requiredChoice("type", Map.of("sink", "sink", "source", "source"), false,
                "sink, source");
        Optional<String> key = top.requiredNonEmpty("key");
        if (type.isEmpty() || key.isEmpty()) {
            return;
        }
        if (type.get().equals("source")) {
            fp.notice("source connector " + key.get() + " skipped: only S3 and Iceberg sinks run here");
            return;
        }
        Map<String, String> origins = new HashMap<>();
        ObjectNode tree = withEnv(root.get(), env, origins);
        Table withOverrides = new Table(tree, "", fp, origins);
        Optional<Long> version = withOverrides.has("version") ? withOverrides.integer("version")
                : Optional.empty();
        if (version.isEmpty()) {
            if (!withOverrides.has("version")) {
                withOverrides.missing("version");
            }
            return;
        }
        List<Candidate> versions = byKey.computeIfAbsent(key.get(), k -> new ArrayList<>());
        Optional<Candidate> twin = versions.stream().filter(c -> c.version() == version.get()).findFirst();
        if (twin.isPresent()) {
            fp.error("version", "sink " + key.get() + " version " + version.get() + " is also defined in "
                    + twin.get().fileName());
            return;
        }
        versions.add(new Candidate(name, path, tree, origins, version.get(), fp));
    }

    /**
     * A sink is ours when its {@code path} names the S3 sink plugin or its {@code [plugin_config]} has a bucket (or a
     * {@code directory}, for the filesystem store); the path decides first, so a misspelt {@code bucket} is an error,
     * not a silently skipped connector.
     */
    private static boolean isS3Sink(Candidate c) {
        JsonNode path = c.tree().get("path");
        if (path != null && path.isString()) {
            String name = path.stringValue().substring(path.stringValue().lastIndexOf('/') + 1);
            if (name.contains("s3_sink")) {
                return true;
            }
        }
        JsonNode plugin = c.tree().get("plugin_config");
        return plugin != null && plugin.isObject() && (plugin.has("bucket") || plugin.has("directory"));
    }

    /** An S3 sink, or an Iceberg table sink ({@link TableConnectorReader#isTableSink}); an S3 sink's path wins. */
    private static boolean runsHere(Candidate c) {
        return isS3Sink(c) || isTableSink(c);
    }

    private static boolean isTableSink(Candidate c) {
        return !isS3Sink(c) && TableConnectorReader.isTableSink(c.tree());
    }

    /** Every {@code *.toml} directly in the directory, except dot-files and {@code Cargo.toml}, by name. */
    private static List<Path> connectorFiles(Path dir, Table connectors) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> {
                        String n = String.valueOf(p.getFileName());
                        return n.endsWith(".toml") && !n.startsWith(".") && !n.equals("Cargo.toml");
                    })
                    .sorted()
                    .toList();
        } catch (IOException e) {
            connectors.error("config_dir", "cannot list " + dir + ": " + reason(e));
            return List.of();
        }
    }

    /** {@code [sinks] key = version}; like the runtime, an unreadable file is a warning and means "highest". */
    private static Map<String, Long> activeVersions(Path dir, Problems problems) {
        Path file = dir.resolve(ACTIVE_VERSIONS);
        Map<String, Long> result = new LinkedHashMap<>();
        if (!Files.isRegularFile(file)) {
            return result;
        }
        Problems scratch = new Problems();
        Optional<ObjectNode> root = parse(file, ACTIVE_VERSIONS, scratch);
        if (root.isEmpty()) {
            scratch.errors().forEach(e -> problems.warning(e + "; using the highest version of each sink"));
            return result;
        }
        JsonNode sinks = root.get().get("sinks");
        if (sinks != null && sinks.isObject()) {
            sinks.forEachEntry((key, value) -> {
                if (value.isIntegralNumber() && value.canConvertToLong()) {
                    result.put(key, value.longValue());
                } else {
                    problems.warning(ACTIVE_VERSIONS + " sinks." + key + ": expected an integer version, got "
                            + Table.describe(value) + "; using the highest version");
                }
            });
        }
        return result;
    }

    /** Reads and parses a TOML file; a syntax error is reported with its line and column. */
    private static Optional<ObjectNode> parse(Path file, String label, Problems problems) {
        String text;
        if (Files.isDirectory(file)) {
            problems.error(label, "cannot read " + file.toAbsolutePath() + ": it is a directory");
            return Optional.empty();
        }
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            problems.error(label, "cannot read " + file.toAbsolutePath() + ": " + reason(e));
            return Optional.empty();
        }
        try {
            JsonNode node = TOML.readTree(text);
            if (node instanceof ObjectNode object) {
                return Optional.of(object);
            }
            return Optional.of(TOML.createObjectNode());
        } catch (JacksonException e) {
            TokenStreamLocation where = e.getLocation();
            String at = where == null ? "" : " at line " + where.getLineNr() + ", column " + where.getColumnNr();
            problems.error(label, "TOML syntax error" + at + ": " + e.getOriginalMessage());
            return Optional.empty();
        }
    }

    /** Why a file could not be read, in words (the exception class alone tells an operator little). */
    static String reason(IOException e) {
        if (e instanceof java.nio.file.AccessDeniedException) return "permission denied";
        if (e instanceof java.nio.file.NoSuchFileException) return "no such file";
        if (e instanceof java.nio.charset.CharacterCodingException) return "not UTF-8 text";
        if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) return fs.getReason();
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    private static Path baseDir(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        return parent == null ? Path.of("") : parent;
    }
}
