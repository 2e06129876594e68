package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The key tables ({@link ConfigKeys}) are what the readers, the printer and the docs say: a key added, renamed or
 * given another default in one place and not the others fails here.
 */
class ConfigKeysTest {
    /** docs/ of the repository; surefire runs in the module's directory. */
    private static final Path DOCS = Path.of("..", "docs", "configuration-keys.md");
    private static final Path FULL_EXAMPLE = Path.of("..", "distribution", "src", "dist", "config",
            "s3_sink.full.toml");
    private static final Path SOURCES = Path.of("src", "main", "java", "dev", "iggysink", "adapters", "config");
    private static final Pattern PRINTED = Pattern.compile("(?<=^| )([a-z_]+)=");
    /** Printer lines whose names are [plugin_config] keys (the others are [[streams]], [iggy] and [admin]). */
    private static final Set<String> PLUGIN_SECTIONS = Set.of("storage", "credentials", "upload", "objects",
            "output", "encoding", "rotation", "retry", "delivery");

    @Test
    void docs_configuration_keys_md_is_the_table() throws IOException {
        String expected = ConfigKeys.markdown();
        if (Boolean.getBoolean("config.docs.write")) {
            Files.writeString(DOCS, expected, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(DOCS, StandardCharsets.UTF_8))
                .as("docs/configuration-keys.md is generated from ConfigKeys; rerun this test with"
                        + " -Dconfig.docs.write=true and commit the file")
                .isEqualTo(expected);
    }

    @Test
    void the_full_example_file_names_every_key_and_no_other() throws IOException {
        String text = Files.readString(FULL_EXAMPLE, StandardCharsets.UTF_8);
        int start = text.indexOf("[plugin_config]");
        // up to the next table: [admin], or the (commented) [plugin_config.object_tags], whose keys are tags
        int end = Math.min(text.indexOf("\n[", start), text.indexOf("[plugin_config.", start));
        String plugin = text.substring(start, end);
        Set<String> named = new LinkedHashSet<>();
        Matcher m = Pattern.compile("(?m)^#? ?([a-z_]+) = ").matcher(plugin);
        while (m.find()) named.add(m.group(1));
        if (text.contains("[plugin_config.object_tags]")) named.add("object_tags");
        assertThat(named).as("keys of s3_sink.full.toml's [plugin_config]").isSubsetOf(ObjectSinkKeys.NAMES);
        // An alias (max_retries), the second way of giving a schema and the filesystem store's directory are
        // mentioned in comments rather than set: every key must at least be named.
        List<String> unnamed = ObjectSinkKeys.NAMES.stream()
                .filter(k -> !Pattern.compile("(?<![a-z_])" + k + "(?![a-z_])").matcher(text).find()).toList();
        assertThat(unnamed).as("keys of the table that s3_sink.full.toml does not name").isEmpty();
    }

    @Test
    void a_file_that_sets_nothing_optional_gets_the_tables_defaults(@TempDir Path dir) {
        Path file = TestFiles.write(dir, "s3.toml", TestFiles.read("seed/s3.toml")
                .replaceAll("(?m)^(prefix|path_template|file_rotation|max_file_size|output_format) = .*\n", "")
                // the role's keys print only with a role
                .replace("[plugin_config]\n", "[plugin_config]\nrole_arn = \"arn:aws:iam::123456789012:role/sink\"\n"));
        ConnectorConfig config = ConnectorConfigLoader.load(file, Map.of()).sinks().get(0);
        Map<String, String> printed = printed(SettingsPrinter.redacted(config));
        for (ConfigKey key : ObjectSinkKeys.ALL) {
            if (key.defaultValue() == null) continue;
            String shown = key.shownDefault().replace("`", "");
            if (key.name().equals("prefix")) shown = "-";
            assertThat(printed).as("effective %s of a file without it", key.name())
                    .containsEntry(key.name(), shown.equals("\"\"") ? "" : shown);
        }
    }

    @Test
    void the_printer_prints_only_keys_of_the_table_and_every_key_a_full_file_sets() {
        ConnectorConfig full = ConnectorConfigLoader.load(TestFiles.resource("full.toml"), Map.of()).sinks().get(0);
        Map<String, String> printed = printed(SettingsPrinter.redacted(full));
        Set<String> names = new LinkedHashSet<>(printed.keySet());
        names.remove("avro_schema"); // avro_schema_json and avro_schema_path print as the schema's size
        assertThat(names).isSubsetOf(ObjectSinkKeys.NAMES);
        List<String> unprinted = new ArrayList<>(ObjectSinkKeys.NAMES);
        unprinted.removeAll(names);
        // full.toml uses the MinIO client with a key pair and no role: the filesystem, role and profile keys, and
        // the alias of max_attempts, do not apply to it; the schema keys print as avro_schema.
        assertThat(unprinted).containsExactlyInAnyOrder("max_retries", "avro_schema_json", "avro_schema_path",
                "directory", "role_arn", "external_id", "session_name", "assume_role_duration", "sts_endpoint",
                "profile", "credentials_file");
    }

    @Test
    void every_s3_only_key_is_warned_about_with_the_filesystem_store() {
        assertThat(ObjectSinkKeys.S3_ONLY).contains("bucket", "region", "multipart_part_size", "role_arn")
                .doesNotContain("prefix", "directory", "buffer_directory").isSubsetOf(ObjectSinkKeys.NAMES);
        assertThat(ObjectSinkKeys.NAMES).doesNotHaveDuplicates().hasSize(ObjectSinkKeys.ALL.size());
    }

    @Test
    void an_object_sink_file_setting_every_key_of_its_tables_has_no_unknown_key(@TempDir Path dir) {
        Problems problems = new Problems();
        ConnectorReader.read(everyKey(ConnectorKeys.TOP_LEVEL, ObjectSinkKeys.SECTION, k -> true), dir, problems,
                new HashMap<>(), false, Optional.empty(), Map.of());
        assertThat(problems.warnings()).noneMatch(w -> w.startsWith("unknown key"));
    }

    @Test
    void a_table_sink_file_setting_every_key_of_its_tables_has_no_unknown_key(@TempDir Path dir) {
        Problems problems = new Problems();
        TableConnectorReader.read(everyKey(ConnectorKeys.TOP_LEVEL, TableSinkKeys.SECTION,
                k -> k.scope() != ConfigKey.Scope.OBJECT_SINK), dir, problems, new HashMap<>(), Map.of());
        assertThat(problems.warnings()).noneMatch(w -> w.startsWith("unknown key"));
    }

    @Test
    void a_key_of_no_table_is_warned_of_in_every_section_of_the_object_sink(@TempDir Path dir) {
        Problems problems = new Problems();
        ConnectorReader.read(withTypos(everyKey(ConnectorKeys.TOP_LEVEL, ObjectSinkKeys.SECTION, k -> true)), dir,
                problems, new HashMap<>(), false, Optional.empty(), Map.of());
        assertThat(problems.warnings()).filteredOn(w -> w.startsWith("unknown key"))
                .containsExactlyInAnyOrderElementsOf(typoWarnings(
                        "unknown key plugin_config.bucketx (did you mean plugin_config.bucket?)"));
    }

    @Test
    void a_key_of_no_table_is_warned_of_in_every_section_of_the_table_sink(@TempDir Path dir) {
        Problems problems = new Problems();
        TableConnectorReader.read(withTypos(everyKey(ConnectorKeys.TOP_LEVEL, TableSinkKeys.SECTION,
                k -> k.scope() != ConfigKey.Scope.OBJECT_SINK)), dir, problems, new HashMap<>(), Map.of());
        assertThat(problems.warnings()).filteredOn(w -> w.startsWith("unknown key"))
                .containsExactlyInAnyOrderElementsOf(typoWarnings(
                        "unknown key plugin_config.tablesx (did you mean plugin_config.tables?)"));
    }

    @Test
    void logging_is_the_object_sinks_top_level_key_only(@TempDir Path dir) {
        ObjectNode root = everyKey(ConnectorKeys.TOP_LEVEL, TableSinkKeys.SECTION, k -> true);
        Problems problems = new Problems();
        TableConnectorReader.read(root, dir, problems, new HashMap<>(), Map.of());
        assertThat(problems.warnings()).filteredOn(w -> w.startsWith("unknown key"))
                .containsExactly("unknown key logging");
    }

    @Test
    void the_example_connector_files_use_only_known_keys() {
        List<Path> objectSinks = List.of(FULL_EXAMPLE, FULL_EXAMPLE.resolveSibling("s3_sink.toml"),
                TestFiles.resource("full.toml"), TestFiles.resource("seed/s3.toml"),
                TestFiles.resource("seed/s3_minio.toml"), TestFiles.resource("runtime/config.toml"));
        for (Path file : objectSinks) {
            assertThat(ConnectorConfigLoader.load(file, Map.of()).warnings()).as("warnings of %s", file)
                    .noneMatch(w -> w.contains("unknown key"));
        }
        TableConnectorReader.Result iceberg = TableConnectorReader.load(
                TestFiles.resource("iceberg/rust_iceberg_sink.toml"), Map.of());
        assertThat(iceberg.errors()).isEmpty();
        assertThat(iceberg.warnings()).noneMatch(w -> w.contains("unknown key"));
        // the shipped table-sink examples: clean (bootstrap's ExampleTableSinksTest runs validate on them)
        for (String example : List.of("iceberg_sink.sqlite.toml", "iceberg_sink.rest.toml")) {
            TableConnectorReader.Result shipped = TableConnectorReader.load(FULL_EXAMPLE.resolveSibling(example),
                    Map.of());
            assertThat(shipped.errors()).as("errors of %s", example).isEmpty();
            assertThat(shipped.warnings()).as("warnings of %s", example).isEmpty();
        }
    }

    /**
     * The other way round from the tests above: a key a reader reads but no table declares would be warned of as
     * unknown in a valid file. Every key literal handed to a {@link Table} method in a reader's source is in one of
     * the tables that reader checks.
     */
    @Test
    void every_key_a_reader_reads_is_in_a_table_it_checks() throws IOException {
        List<String> common = new ArrayList<>(ConnectorKeys.TOP_LEVEL.names());
        common.addAll(ConnectorKeys.STREAM.names());
        List<String> objectSink = new ArrayList<>(common);
        objectSink.addAll(ObjectSinkKeys.NAMES);
        List<String> tableSink = new ArrayList<>(common);
        tableSink.addAll(TableSinkKeys.NAMES);
        List<String> connection = new ArrayList<>(ConnectorKeys.IGGY_SECTION.names());
        connection.addAll(ConnectorKeys.TLS.names());
        connection.addAll(ConnectorKeys.ADMIN_SECTION.names());
        connection.add(ConnectorKeys.IGGY.name()); // whether a file of a connector directory has its own [iggy]
        Map<String, List<String>> readers = Map.of("ConnectorReader", objectSink,
                "CredentialsReader", ObjectSinkKeys.NAMES, "TableConnectorReader", tableSink,
                "ConnectionReader", connection);
        // the readers' names of their Tables; isTableSink's JsonNode (plugin) is not one
        Pattern read = Pattern.compile("\\b(?:top|s|p|t|iggy|tls|admin)\\.(?:string|bool|has|integer|intAtLeast"
                + "|size|sizeAtLeast|duration|choice|requiredChoice|requiredNonEmpty|requiredString|requiredBool"
                + "|secret|stringList|table|tables|raw|error|path|missing)\\(\"([a-z_0-9]+)\"");
        for (Map.Entry<String, List<String>> reader : readers.entrySet()) {
            String source = Files.readString(SOURCES.resolve(reader.getKey() + ".java"), StandardCharsets.UTF_8);
            Set<String> keys = new LinkedHashSet<>();
            Matcher m = read.matcher(source);
            while (m.find()) keys.add(m.group(1));
            assertThat(keys).as("keys %s reads", reader.getKey()).isNotEmpty().isSubsetOf(reader.getValue());
        }
    }

    @Test
    void every_section_has_its_own_docs_heading_and_no_key_twice() {
        List<String> headings = ConfigKeys.SECTIONS.stream().map(KeySection::heading).toList();
        assertThat(headings).doesNotHaveDuplicates();
        String docs = ConfigKeys.markdown();
        for (KeySection section : ConfigKeys.SECTIONS) {
            assertThat(section.names()).as(section.heading()).isNotEmpty().doesNotHaveDuplicates();
            for (ConfigKey key : section.keys()) {
                assertThat(docs).contains("| `" + key.name() + "`" + key.scope().mark + " | " + key.type().label);
            }
        }
    }

    /** A file that sets every key of {@code top} (those {@code filter} keeps), each table filled in the same way. */
    private static ObjectNode everyKey(KeySection top, KeySection plugin, Predicate<ConfigKey> filter) {
        Map<String, KeySection> tables = Map.of("streams", ConnectorKeys.STREAM, "plugin_config", plugin,
                "iggy", ConnectorKeys.IGGY_SECTION, "tls", ConnectorKeys.TLS, "admin", ConnectorKeys.ADMIN_SECTION);
        return fill(top, filter, tables);
    }

    private static ObjectNode fill(KeySection section, Predicate<ConfigKey> filter, Map<String, KeySection> tables) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        for (ConfigKey key : section.keys()) {
            if (!filter.test(key)) continue;
            KeySection inner = tables.get(key.name());
            switch (key.type()) {
                case TABLE -> node.set(key.name(), inner == null ? node.objectNode()
                        : fill(inner, filter, tables));
                case TABLES -> node.putArray(key.name()).add(inner == null ? node.objectNode()
                        : fill(inner, filter, tables));
                case STRINGS -> node.putArray(key.name()).add("x");
                case BOOLEAN -> node.put(key.name(), true);
                case INTEGER -> node.put(key.name(), 1);
                case SIZE -> node.put(key.name(), "1MiB");
                case DURATION -> node.put(key.name(), "1s");
                default -> node.put(key.name(), "x");
            }
        }
        return node;
    }

    /** Adds, to every table of {@code root}, its first key's name with an {@code x} appended. */
    private static ObjectNode withTypos(ObjectNode root) {
        root.put("typex", "sink");
        ((ObjectNode) root.get("streams").get(0)).put("streamx", "s");
        ((ObjectNode) root.get("iggy")).put("addressx", "a");
        ((ObjectNode) root.get("iggy").get("tls")).put("enabledx", true);
        ((ObjectNode) root.get("admin")).put("addressx", "a");
        ObjectNode plugin = (ObjectNode) root.get("plugin_config");
        String first = plugin.propertyNames().iterator().next();
        plugin.put(first + "x", "a");
        return root;
    }

    /** The unknown-key warnings of {@link #withTypos}: those of the sections both sinks share, then {@code plugin}. */
    private static List<String> typoWarnings(String plugin) {
        return List.of(
                "unknown key typex (did you mean type?)",
                "unknown key streams[0].streamx (did you mean streams[0].stream?)",
                "unknown key iggy.addressx (did you mean iggy.address?)",
                "unknown key iggy.tls.enabledx (did you mean iggy.tls.enabled?)",
                "unknown key admin.addressx (did you mean admin.address?)",
                plugin);
    }

    /** name → value of every {@code name=value} on the [plugin_config] lines of the printer's output. */
    private static Map<String, String> printed(String text) {
        Map<String, String> values = new java.util.LinkedHashMap<>();
        for (String line : text.lines().toList()) {
            String stripped = line.strip();
            int colon = stripped.indexOf(": ");
            if (colon < 0 || !PLUGIN_SECTIONS.contains(stripped.substring(0, colon))) continue;
            // object_tags={a=1, b=2}: the tags are not keys
            String body = stripped.substring(colon + 2).replaceAll("object_tags=\\{[^}]*}", "object_tags={}");
            Matcher m = PRINTED.matcher(body);
            List<int[]> at = new ArrayList<>();
            while (m.find()) at.add(new int[] {m.start(1), m.end()});
            for (int i = 0; i < at.size(); i++) {
                String name = body.substring(at.get(i)[0], at.get(i)[1] - 1);
                int end = i + 1 < at.size() ? at.get(i + 1)[0] - 1 : body.length();
                values.put(name, body.substring(at.get(i)[1], end));
            }
        }
        return values;
    }
}
