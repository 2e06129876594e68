package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key table ({@link PluginKeys}) is what the reader, the printer and the docs say: a key added, renamed or given
 * another default in one place and not the others fails here.
 */
class PluginKeysTest {
    /** docs/ of the repository; surefire runs in the module's directory. */
    private static final Path DOCS = Path.of("..", "docs", "configuration-keys.md");
    private static final Path FULL_EXAMPLE = Path.of("..", "distribution", "src", "dist", "config",
            "s3_sink.full.toml");
    private static final Pattern PRINTED = Pattern.compile("(?<=^| )([a-z_]+)=");
    /** Printer lines whose names are [plugin_config] keys (the others are [[streams]], [iggy] and [admin]). */
    private static final Set<String> PLUGIN_SECTIONS = Set.of("storage", "credentials", "upload", "objects",
            "output", "encoding", "rotation", "retry", "delivery");

    @Test
    void docs_configuration_keys_md_is_the_table() throws IOException {
        String expected = PluginKeys.markdown();
        if (Boolean.getBoolean("config.docs.write")) {
            Files.writeString(DOCS, expected, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(DOCS, StandardCharsets.UTF_8))
                .as("docs/configuration-keys.md is generated from PluginKeys; rerun this test with"
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
        assertThat(named).as("keys of s3_sink.full.toml's [plugin_config]").isSubsetOf(PluginKeys.NAMES);
        // An alias (max_retries), the second way of giving a schema and the filesystem store's directory are
        // mentioned in comments rather than set: every key must at least be named.
        List<String> unnamed = PluginKeys.NAMES.stream()
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
        for (PluginKeys.Key key : PluginKeys.ALL) {
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
        assertThat(names).isSubsetOf(PluginKeys.NAMES);
        List<String> unprinted = new ArrayList<>(PluginKeys.NAMES);
        unprinted.removeAll(names);
        // full.toml uses the MinIO client with a key pair and no role: the filesystem, role and profile keys, and
        // the alias of max_attempts, do not apply to it; the schema keys print as avro_schema.
        assertThat(unprinted).containsExactlyInAnyOrder("max_retries", "avro_schema_json", "avro_schema_path",
                "directory", "role_arn", "external_id", "session_name", "assume_role_duration", "sts_endpoint",
                "profile", "credentials_file");
    }

    @Test
    void every_s3_only_key_is_warned_about_with_the_filesystem_store() {
        assertThat(ConnectorReader.S3_ONLY_KEYS).contains("bucket", "region", "multipart_part_size", "role_arn")
                .doesNotContain("prefix", "directory", "buffer_directory").isSubsetOf(PluginKeys.NAMES);
        assertThat(ConnectorReader.PLUGIN_KEYS).doesNotHaveDuplicates().hasSize(PluginKeys.ALL.size());
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
