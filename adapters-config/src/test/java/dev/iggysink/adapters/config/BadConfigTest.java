package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each file has exactly one mistake (or, in the last tests, several) and must give exactly these messages. */
class BadConfigTest {
    static final String VARIABLES = " (variables: {stream}, {topic}, {partition}, {date}, {hour}, {minute}, {year}, "
            + "{month}, {day}, {timestamp}, {field:dotted.path})";
    static final String BUCKET_RULE = " (S3 bucket names are 3 to 63 lowercase letters, digits, dots and hyphens, "
            + "begin and end with a letter or digit, and are not IP addresses)";
    @TempDir
    Path tmp;

    private static Arguments bad(String line, String replacement, String expected) {
        return Arguments.of(line, replacement, expected);
    }

    static Stream<Arguments> single_mistakes() {
        return Stream.of(
                bad("max_file_size = \"8MiB\"", "max_file_size = \"8 MiBs\"",
                        "plugin_config.max_file_size: \"8 MiBs\" is not a size (e.g. 8MiB, 10MB)"),
                bad("max_file_size = \"8MiB\"", "max_file_size = \"0\"",
                        "plugin_config.max_file_size: must be greater than 0"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nmax_open_files_per_partition = 4",
                        "plugin_config.max_open_files_per_partition: 4 open files per partition interleave, so a"
                                + " record may end up in two objects after a crash (at-least-once, see"
                                + " docs/delivery.md); set plugin_config.accept_at_least_once = true to accept that,"
                                + " or max_open_files_per_partition = 1 for exactly once"),
                bad("path_template = \"{stream}/{topic}/{date}/{hour}\"",
                        "path_template = \"{stream}/{topic}/{hour}\"\ncompletion_marker = \"_COMPLETE\"",
                        "plugin_config.completion_marker: needs a plugin_config.path_template whose folders are time"
                                + " windows: it has no {date} or {year}: its folders are no time window"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\ncompletion_marker = \"done/_SUCCESS\"",
                        "plugin_config.completion_marker: \"done/_SUCCESS\" is a file name, not a path (no /)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\ncompletion_marker = \"_SUCCESS\"\n"
                                + "max_open_files_per_partition = 2\naccept_at_least_once = true",
                        "plugin_config.completion_marker: needs plugin_config.max_open_files_per_partition = 1 (with"
                                + " several open files a file after a crash is not found again, so a folder's file"
                                + " list is not known)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\ncompletion_marker = \"_SUCCESS\"\n"
                                + "late_records = \"late\"",
                        "plugin_config.late_records: \"late\" is not one of rewrite_marker, late_path"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nlate_records = \"late_path\"",
                        "plugin_config.late_records: \"late_path\" needs plugin_config.completion_marker (without"
                                + " markers no record is late)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nkey_layout = \"first\"",
                        "plugin_config.key_layout: \"first\" is not one of offsets, first_offset"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nkey_layout = \"first_offset\"\n"
                                + "max_open_files_per_partition = 2\n"
                                + "accept_at_least_once = true",
                        "plugin_config.key_layout: \"first_offset\" needs plugin_config.max_open_files_per_partition"
                                + " = 1 (each file must start where the partition's previous file ended)"),
                bad("schema = \"json\"", "schema = \"jsn\"",
                        "streams[0].schema: \"jsn\" is not one of json, raw, text, proto, flat_buffer, avro"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\naccess_key_id = \"AKID\"",
                        "plugin_config.access_key_id: set without plugin_config.secret_access_key (both or neither)"),
                bad("bucket = \"my-data-lake\"", "", "plugin_config.bucket: required key is missing"),
                bad("region = \"us-east-1\"", "region = \"\"", "plugin_config.region: must not be empty"),
                bad("output_format = \"json_lines\"", "output_format = \"json\"",
                        "plugin_config.output_format: \"json\" is not one of json_lines (jsonl, jsonlines), "
                                + "json_array, raw, avro, parquet"),
                bad("file_rotation = \"size\"", "file_rotation = \"Size\"",
                        "plugin_config.file_rotation: \"Size\" is not one of size, messages (lower case)"),
                bad("file_rotation = \"size\"", "file_rotation = \"messages\"",
                        "plugin_config.max_messages_per_file: required when file_rotation = \"messages\""),
                bad("file_rotation = \"size\"", "max_messages_per_file = 0",
                        "plugin_config.max_messages_per_file: 0 must be greater than 0"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nretry_delay = \"soon\"",
                        "plugin_config.retry_delay: \"soon\" is not a duration (e.g. 100ms, 1s, 5m, 1h 30m)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nretry_max_delay = \"later\"",
                        "plugin_config.retry_max_delay: \"later\" is not a duration (e.g. 100ms, 1s, 5m, 1h 30m)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nretry_max_delay = \"0s\"",
                        "plugin_config.retry_max_delay: must be greater than 0"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nretry_delay = \"5s\"\nretry_max_delay = \"2s\"",
                        "plugin_config.retry_max_delay: 2s is shorter than plugin_config.retry_delay (5s)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nmax_attempts = 2\nmax_retries = 2",
                        "plugin_config.max_retries: is an alias of plugin_config.max_attempts; set only one"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nmax_attempts = -1",
                        "plugin_config.max_attempts: -1 is out of range (expected 0 to 2147483647)"),
                bad("path_template = \"{stream}/{topic}/{date}/{hour}\"", "path_template = \"\"",
                        "plugin_config.path_template: must not be empty"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nmultipart_part_size = \"1MiB\"",
                        "plugin_config.multipart_part_size: \"1MiB\" is too small (at least 5MiB)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\ntimezone = \"Mars/Olympus\"",
                        "plugin_config.timezone: \"Mars/Olympus\" is not a time zone (e.g. UTC, Europe/Berlin)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nsse_kms_key_id = \"k\"",
                        "plugin_config.sse_kms_key_id: set without plugin_config.sse = \"aws:kms\""),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\ncanned_acl = \"public\"",
                        "plugin_config.canned_acl: \"public\" is not one of authenticated-read, aws-exec-read, "
                                + "bucket-owner-full-control, bucket-owner-read, private, public-read, "
                                + "public-read-write"),
                bad("output_format = \"json_lines\"", "output_format = \"avro\"",
                        "plugin_config.avro_schema_json: required when output_format is avro or parquet "
                                + "(or set plugin_config.avro_schema_path)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\navro_schema_path = \"missing.avsc\"",
                        "plugin_config.avro_schema_path: cannot read \"missing.avsc\" (relative to the config "
                                + "file's directory): no such file"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\navro_schema_json = \"{nope\"",
                        "plugin_config.avro_schema_json: is not valid JSON: Unexpected character ('n' (code 110)): "
                                + "was expecting double-quote to start property name"),
                bad("enabled = true", "enabled = \"yes\"", "enabled: expected true or false, got \"yes\""),
                bad("enabled = true", "", "enabled: required key is missing"),
                bad("version = 0", "version = \"1\"", "version: expected an integer, got \"1\""),
                bad("type = \"sink\"", "type = \"source\"",
                        "type: \"source\" connectors are not supported: this program only runs S3 sinks"),
                bad("type = \"sink\"", "type = \"sinc\"", "type: \"sinc\" is not one of sink, source"),
                bad("key = \"s3\"", "key = \"\"", "key: must not be empty"),
                bad("path = \"target/release/libiggy_connector_s3_sink\"", "", "path: required key is missing"),
                bad("batch_length = 1000", "batch_length = 0",
                        "streams[0].batch_length: 0 is out of range (expected 1 to 2147483647)"),
                bad("poll_interval = \"100ms\"", "poll_interval = \"fast\"",
                        "streams[0].poll_interval: \"fast\" is not a duration (e.g. 100ms, 1s, 5m, 1h 30m)"),
                bad("topics = [\"api_requests\", \"errors\"]", "topics = []",
                        "streams[0].topics: must name at least one topic"),
                bad("topics = [\"api_requests\", \"errors\"]", "topics = [\"a\", 5]",
                        "streams[0].topics[1]: expected a string, got 5"),
                bad("stream = \"application_logs\"", "", "streams[0].stream: required key is missing"),
                bad("plugin_config_format = \"toml\"",
                        "plugin_config_format = \"toml\"\noffset_commit = \"sometimes\"",
                        "offset_commit: \"sometimes\" is not one of after_polling, after_consuming"),
                bad("output_format = \"json_lines\"", "output_format = \"json_lines\"\n[transforms.add_feilds]\n"
                                + "enabled = true",
                        "transforms.add_feilds: unknown transform type (expected one of add_fields, delete_fields, "
                                + "update_fields, filter_fields, unwrap_envelope, avro_convert, proto_convert, "
                                + "flat_buffer_convert; did you mean add_fields?)"),
                bad("output_format = \"json_lines\"", "output_format = \"json_lines\"\n[transforms.avro_convert]\n"
                                + "enabled = true",
                        "transforms.avro_convert: is not supported by this sink yet; set enabled = false or "
                                + "remove it"),
                bad("output_format = \"json_lines\"", "output_format = \"json_lines\"\n"
                                + "[transforms.unwrap_envelope]\nfield = \"data\"",
                        "transforms.unwrap_envelope.enabled: required key is missing"),
                bad("output_format = \"json_lines\"", "output_format = \"json_lines\"\n"
                                + "[[transforms.add_fields.fields]]\nkey = \"k\"\nvalue.computed = \"now\"\n"
                                + "[transforms.add_fields]\nenabled = true",
                        "transforms.add_fields.fields[0].value.computed: \"now\" is not one of date_time, "
                                + "timestamp_nanos, timestamp_micros, timestamp_millis, timestamp_seconds, uuid_v4, "
                                + "uuid_v7"),
                // Values that used to pass validate and then crash run or audit.
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nendpoint = \"ht!tp://::::\"",
                        "plugin_config.endpoint: \"ht!tp://::::\" is not a URL: illegal character in scheme name at "
                                + "index 2 (e.g. http://127.0.0.1:9000)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nendpoint = \"http://\"",
                        "plugin_config.endpoint: \"http://\" is not a URL: expected authority at index 7 "
                                + "(e.g. http://127.0.0.1:9000)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nendpoint = \"127.0.0.1:9000\"",
                        "plugin_config.endpoint: \"127.0.0.1:9000\" has no scheme (write http://127.0.0.1:9000, or "
                                + "https://127.0.0.1:9000 for TLS)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nendpoint = \"http://minio_1:9000\"",
                        "plugin_config.endpoint: \"http://minio_1:9000\" has no valid host name (letters, digits, "
                                + "dots and hyphens, or an IP address) (e.g. http://127.0.0.1:9000)"),
                bad("region = \"us-east-1\"", "region = \"us-east-1\"\nendpoint = \"ftp://store:21\"",
                        "plugin_config.endpoint: \"ftp://store:21\" is not an http:// or https:// URL"),
                bad("path_template = \"{stream}/{topic}/{date}/{hour}\"", "path_template = \"{stream}/{foo}/{date}\"",
                        "plugin_config.path_template: unknown variable {foo}" + VARIABLES),
                bad("path_template = \"{stream}/{topic}/{date}/{hour}\"", "path_template = \"{stream/{topic}\"",
                        "plugin_config.path_template: {stream is not closed (character 1)" + VARIABLES),
                bad("path_template = \"{stream}/{topic}/{date}/{hour}\"", "path_template = \"{topic}/{stream\"",
                        "plugin_config.path_template: {stream is not closed (character 9)" + VARIABLES),
                bad("path_template = \"{stream}/{topic}/{date}/{hour}\"",
                        "path_template = \"{stream}/{topic}/{field:}\"",
                        "plugin_config.path_template: {field:} names no field (e.g. {field:user.id})" + VARIABLES),
                bad("path_template = \"{stream}/{topic}/{date}/{hour}\"", "path_template = \"{stream}}/{topic}\"",
                        "plugin_config.path_template: } at character 9 closes no variable" + VARIABLES),
                bad("path_template = \"{stream}/{topic}/{date}/{hour}\"",
                        "path_template = \"{stream}/../{topic}\"",
                        "plugin_config.path_template: \"{stream}/../{topic}\" has a \"..\" segment (object keys "
                                + "must not have empty, . or .. segments)"),
                bad("bucket = \"my-data-lake\"", "bucket = \"Bad_Bucket!!\"",
                        "plugin_config.bucket: \"Bad_Bucket!!\" is not a valid bucket name: \"B\" is not allowed"
                                + BUCKET_RULE),
                bad("bucket = \"my-data-lake\"", "bucket = \"" + "a".repeat(5000) + "\"",
                        "plugin_config.bucket: \"" + "a".repeat(40) + "...\" (5000 characters) is not a valid bucket "
                                + "name: longer than 63 characters" + BUCKET_RULE),
                bad("bucket = \"my-data-lake\"", "bucket = \"ab\"",
                        "plugin_config.bucket: \"ab\" is not a valid bucket name: shorter than 3 characters"
                                + BUCKET_RULE),
                bad("bucket = \"my-data-lake\"", "bucket = \"192.168.1.10\"",
                        "plugin_config.bucket: \"192.168.1.10\" is not a valid bucket name: it is an IP address"
                                + BUCKET_RULE),
                bad("bucket = \"my-data-lake\"", "bucket = \"-lake\"",
                        "plugin_config.bucket: \"-lake\" is not a valid bucket name: it must begin and end with a "
                                + "letter or digit" + BUCKET_RULE),
                bad("bucket = \"my-data-lake\"", "bucket = \"my..lake\"",
                        "plugin_config.bucket: \"my..lake\" is not a valid bucket name: \"..\" is not allowed"
                                + BUCKET_RULE),
                bad("bucket = \"my-data-lake\"", "bucket = \"xn--lake\"",
                        "plugin_config.bucket: \"xn--lake\" is not a valid bucket name: the prefix \"xn--\" is "
                                + "reserved" + BUCKET_RULE),
                bad("prefix = \"iggy/raw\"", "prefix = \"iggy/\\u0000raw\"",
                        "plugin_config.prefix: \"iggy/\\u0000raw\" has a control character (U+0000); object keys "
                                + "must not have any"),
                bad("prefix = \"iggy/raw\"", "prefix = \"iggy/../raw\"",
                        "plugin_config.prefix: \"iggy/../raw\" has a \"..\" segment (object keys must not have "
                                + "empty, . or .. segments)"),
                bad("prefix = \"iggy/raw\"", "prefix = \"iggy//raw\"",
                        "plugin_config.prefix: \"iggy//raw\" has an empty segment (object keys must not have "
                                + "empty, . or .. segments)"),
                bad("prefix = \"iggy/raw\"", "prefix = \"iggy/raw\"\ndlq_prefix = \"./dead\"",
                        "plugin_config.dlq_prefix: \"./dead\" has a \".\" segment (object keys must not have "
                                + "empty, . or .. segments)"),
                bad("output_format = \"json_lines\"", "output_format = \"json_lines\"\n[admin]\ntoken = \"\"",
                        "admin.token: must not be empty (remove the key for no token)"),
                // Two (stream, topic) pairs of one sink must never write the same key.
                bad("topics = [\"api_requests\", \"errors\"]", "topics = [\"orders:v1\", \"orders_v1\"]",
                        "plugin_config.path_template: stream \"application_logs\" topic \"orders:v1\" and stream "
                                + "\"application_logs\" topic \"orders_v1\" would write the same object keys (names "
                                + "are sanitised: every character other than ASCII letters, digits, '.', '_' and '-' "
                                + "becomes '_')"),
                bad("topics = [\"api_requests\", \"errors\"]", "topics = [\"errors\", \"api_requests\", \"errors\"]",
                        "streams[0].topics[2]: stream \"application_logs\" topic \"errors\" is listed twice"),
                bad("path_template = \"{stream}/{topic}/{date}/{hour}\"", "path_template = \"{stream}/{date}\"",
                        "plugin_config.path_template: stream \"application_logs\" topic \"api_requests\" and stream "
                                + "\"application_logs\" topic \"errors\" would write the same object keys (the path "
                                + "template has no {topic})"),
                // Keys S3 can never accept: 1000 + "/" + 47-byte file name + ".jsonl" is already over 1024 bytes.
                bad("prefix = \"iggy/raw\"", "prefix = \"" + "p".repeat(1000) + "\"",
                        "plugin_config.prefix: object keys would be at least 1054 bytes long (S3 allows 1024)"),
                bad("path_template = \"{stream}/{topic}/{date}/{hour}\"",
                        "path_template = \"{stream}/{topic}/" + "d".repeat(1000) + "\"",
                        "plugin_config.path_template: object keys of stream \"application_logs\" topic "
                                + "\"api_requests\" would be at least 1093 bytes long (S3 allows 1024)"),
                // iggy/raw/ (9) + 1000 + / + application_logs/ (17) + api_requests/ (13) + 00000-<20 digits>.json (31)
                bad("prefix = \"iggy/raw\"", "prefix = \"iggy/raw\"\ndlq_prefix = \"" + "q".repeat(1000) + "\"",
                        "plugin_config.dlq_prefix: dead-letter keys of stream \"application_logs\" topic "
                                + "\"api_requests\" would be at least 1071 bytes long (S3 allows 1024)"));
    }

    @ParameterizedTest(name = "{2}")
    @MethodSource("single_mistakes")
    void a_single_mistake_gives_exactly_its_message(String line, String replacement, String expected) {
        Path file = TestFiles.write(tmp, "s3.toml", TestFiles.seedWith(line, replacement));
        ConfigResult result = ConnectorConfigLoader.load(file, Map.of());
        assertThat(result.errors()).extracting(ConfigError::toString).containsExactly(expected);
        assertThat(result.ok()).isFalse();
        assertThat(result.sinks()).isEmpty();
    }

    @Test
    void two_streams_with_one_topic_name_collide_when_the_template_has_no_stream() {
        String text = TestFiles.seedWith("path_template = \"{stream}/{topic}/{date}/{hour}\"",
                        "path_template = \"{topic}/{date}\"")
                .replace("[plugin_config]\n", "[[streams]]\nstream = \"billing\"\ntopics = [\"errors\"]\n"
                        + "schema = \"json\"\n\n[plugin_config]\n");
        Path file = TestFiles.write(tmp, "s3.toml", text);
        assertThat(ConnectorConfigLoader.load(file, Map.of()).errors()).extracting(ConfigError::toString)
                .containsExactly("plugin_config.path_template: stream \"application_logs\" topic \"errors\" and "
                        + "stream \"billing\" topic \"errors\" would write the same object keys (the path template "
                        + "has no {stream})");
    }

    @Test
    void two_streams_whose_names_sanitise_alike_collide_and_distinct_ones_do_not() {
        String second = "[[streams]]\nstream = \"application logs\"\ntopics = [\"errors\"]\nschema = \"json\"\n\n";
        Path file = TestFiles.write(tmp, "s3.toml", TestFiles.read("seed/s3.toml")
                .replace("[plugin_config]\n", second + "[plugin_config]\n"));
        assertThat(ConnectorConfigLoader.load(file, Map.of()).errors()).extracting(ConfigError::toString)
                .containsExactly("plugin_config.path_template: stream \"application_logs\" topic \"errors\" and "
                        + "stream \"application logs\" topic \"errors\" would write the same object keys (names are "
                        + "sanitised: every character other than ASCII letters, digits, '.', '_' and '-' becomes '_')");

        Path fine = TestFiles.write(tmp, "fine.toml", TestFiles.read("seed/s3.toml")
                .replace("[plugin_config]\n", second.replace("application logs", "billing") + "[plugin_config]\n"));
        assertThat(ConnectorConfigLoader.load(fine, Map.of()).errors()).isEmpty();
    }

    @Test
    void several_mistakes_are_reported_at_once_in_file_order() {
        String text = TestFiles.seedWith("schema = \"json\"", "schema = \"jsn\"")
                .replace("bucket = \"my-data-lake\"\n", "bukcet = \"my-data-lake\"\n")
                .replace("max_file_size = \"8MiB\"\n", "max_file_size = \"8 MiBs\"\n")
                .replace("poll_interval = \"100ms\"\n", "poll_interval = \"100 millis please\"\n")
                .replace("region = \"us-east-1\"\n", "region = \"us-east-1\"\nsecret_access_key = \"s\"\n");
        Path file = TestFiles.write(tmp, "s3.toml", text);
        ConfigResult result = ConnectorConfigLoader.load(file, Map.of());
        assertThat(result.errors()).extracting(ConfigError::toString).containsExactly(
                "streams[0].schema: \"jsn\" is not one of json, raw, text, proto, flat_buffer, avro",
                "streams[0].poll_interval: \"100 millis please\" is not a duration (e.g. 100ms, 1s, 5m, 1h 30m)",
                "plugin_config.bucket: required key is missing",
                "plugin_config.secret_access_key: set without plugin_config.access_key_id (both or neither)",
                "plugin_config.max_file_size: \"8 MiBs\" is not a size (e.g. 8MiB, 10MB)");
        assertThat(result.warnings()).containsExactly(
                "unknown key plugin_config.bukcet (did you mean plugin_config.bucket?)");
    }

    @Test
    void unknown_keys_are_warnings_with_a_suggestion_only_when_close() {
        String text = TestFiles.seedWith("output_format = \"json_lines\"",
                "output_format = \"json_lines\"\nmax_file_sise = \"1MiB\"\nflux_capacitor = 1")
                .replace("batch_length = 1000\n", "batch_length = 1000\nbatch_lenght = 5\n");
        Path file = TestFiles.write(tmp, "s3.toml", "verbos = true\n" + text);
        ConfigResult result = ConnectorConfigLoader.load(file, Map.of());
        assertThat(result.errors()).isEmpty();
        assertThat(result.sinks()).hasSize(1);
        assertThat(result.warnings()).containsExactly(
                "unknown key verbos (did you mean verbose?)",
                "unknown key streams[0].batch_lenght (did you mean streams[0].batch_length?)",
                "unknown key plugin_config.max_file_sise (did you mean plugin_config.max_file_size?)",
                "unknown key plugin_config.flux_capacitor");
    }

    @Test
    void a_toml_syntax_error_gives_its_line() {
        Path file = TestFiles.write(tmp, "s3.toml", TestFiles.seedWith("region = \"us-east-1\"", "region = "));
        List<ConfigError> errors = ConnectorConfigLoader.load(file, Map.of()).errors();
        assertThat(errors).singleElement().satisfies(e -> {
            assertThat(e.path()).isEqualTo("s3.toml");
            assertThat(e.message()).startsWith("TOML syntax error at line 21, column ");
        });
    }

    @Test
    void a_file_that_is_neither_kind_is_rejected() {
        Path file = TestFiles.write(tmp, "what.toml", "[iggy]\naddress = \"localhost:8090\"\n");
        assertThat(ConnectorConfigLoader.load(file, Map.of()).errors()).extracting(ConfigError::toString)
                .containsExactly("what.toml: neither a connector file (no top-level type) nor a runtime config "
                        + "(no [connectors] table)");
    }

    @Test
    void errors_in_a_connector_directory_name_their_file() {
        Path dir = tmp.resolve("conf");
        TestFiles.write(dir, "runtime.toml", "[connectors]\nconfig_dir = \"c\"\n[iggy]\naddress = \"nohost\"\n");
        TestFiles.write(dir, "c/a.toml", TestFiles.read("runtime/connectors/s3_v0.toml")
                .replace("region = \"us-east-1\"", "region = \"us-east-1\"\nmax_file_size = \"big\""));
        TestFiles.write(dir, "c/b.toml", TestFiles.read("runtime/connectors/archive_0.toml")
                .replace("version = 0", "version = 0\nversion_ = 1"));
        TestFiles.write(dir, "c/c.toml", TestFiles.read("runtime/connectors/archive_0.toml"));
        ConfigResult result = ConnectorConfigLoader.load(dir.resolve("runtime.toml"), Map.of());
        assertThat(result.errors()).extracting(ConfigError::toString).containsExactly(
                "iggy.address: \"nohost\" is not host:port (e.g. 127.0.0.1:8090)",
                "[c.toml] version: sink archive version 0 is also defined in b.toml",
                "[a.toml] plugin_config.max_file_size: \"big\" is not a size (e.g. 8MiB, 10MB)");
        assertThat(result.warnings()).containsExactly("[b.toml] unknown key version_ (did you mean version?)");
        assertThat(result.sinks()).isEmpty();
    }
}
