package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.FileRotation;
import dev.iggysink.application.settings.KeyLayout;
import dev.iggysink.application.settings.LateRecords;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.application.settings.TransformSettings.Computed;
import dev.iggysink.application.settings.TransformSettings.Condition;
import dev.iggysink.application.settings.TransformSettings.KeyMatch;
import dev.iggysink.application.settings.TransformSettings.ValueMatch;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConnectorConfigLoaderTest {
    private static final long MIB = 1024L * 1024;

    @TempDir
    Path tmp;

    private static ConnectorConfig onlySink(ConfigResult result) {
        assertThat(result.errors()).isEmpty();
        assertThat(result.ok()).isTrue();
        assertThat(result.sinks()).hasSize(1);
        return result.sinks().get(0);
    }

    /** A runtime config whose connector directory is {@code c}. */
    private static final String IN_C = "[connectors]\nconfig_dir = \"c\"\n";

    /** Writes conf/runtime.toml ({@code runtime}) and each (path below conf, text) pair; returns conf. */
    private Path runtimeDir(String runtime, String... pathsAndTexts) {
        Path dir = tmp.resolve("conf");
        TestFiles.write(dir, "runtime.toml", runtime);
        for (int i = 0; i < pathsAndTexts.length; i += 2) TestFiles.write(dir, pathsAndTexts[i], pathsAndTexts[i + 1]);
        return dir;
    }

    /** conf/runtime.toml loaded from conf as the working directory. */
    private static ConfigResult loadRuntime(Path dir) {
        return ConnectorConfigLoader.load(dir.resolve("runtime.toml"), Map.of(), dir);
    }

    /** A connector file of the runtime sample's directory. */
    private static String read(String connector) {
        return TestFiles.read("runtime/connectors/" + connector);
    }

    @Test
    void completion_markers_are_off_unless_named() {
        assertThat(onlySink(ConnectorConfigLoader.load(TestFiles.resource("seed/s3.toml"), Map.of())).sink().output()
                .completionMarker()).isEmpty();
        for (String off : List.of("off", "none", "")) {
            Path file = TestFiles.write(tmp, "off.toml", TestFiles.seedWith("region = \"us-east-1\"",
                    "region = \"us-east-1\"\ncompletion_marker = \"" + off + "\""));
            assertThat(onlySink(ConnectorConfigLoader.load(file, Map.of())).sink().output().completionMarker())
                    .as(off).isEmpty();
        }
        Path file = TestFiles.write(tmp, "on.toml", TestFiles.seedWith("region = \"us-east-1\"",
                "region = \"us-east-1\"\ncompletion_marker = \"_SUCCESS\""));
        assertThat(onlySink(ConnectorConfigLoader.load(file, Map.of())).sink().output().completionMarker())
                .contains("_SUCCESS");
    }

    @Test
    void late_records_rewrite_the_marker_unless_late_path_is_chosen() {
        assertThat(onlySink(ConnectorConfigLoader.load(TestFiles.resource("seed/s3.toml"), Map.of())).sink().output()
                .lateRecords()).isEqualTo(LateRecords.REWRITE_MARKER);
        Path file = TestFiles.write(tmp, "late.toml", TestFiles.seedWith("region = \"us-east-1\"",
                "region = \"us-east-1\"\ncompletion_marker = \"_COMPLETE\"\nlate_records = \"Late_Path\""));
        assertThat(onlySink(ConnectorConfigLoader.load(file, Map.of())).sink().output().lateRecords())
                .isEqualTo(LateRecords.LATE_PATH);
    }

    @Test
    void keys_name_both_offsets_unless_the_first_offset_layout_is_chosen() {
        assertThat(onlySink(ConnectorConfigLoader.load(TestFiles.resource("seed/s3.toml"), Map.of())).sink().output()
                .keyLayout()).isEqualTo(KeyLayout.OFFSETS);
        Path file = TestFiles.write(tmp, "first.toml", TestFiles.seedWith("region = \"us-east-1\"",
                "region = \"us-east-1\"\nkey_layout = \"first_offset\""));
        ConfigResult result = ConnectorConfigLoader.load(file, Map.of());
        assertThat(result.errors()).isEmpty();
        assertThat(onlySink(result).sink().output().keyLayout()).isEqualTo(KeyLayout.FIRST_OFFSET);
        // The self-audit reads a first-offset object's end from its metadata: it stays on at its default budget.
        assertThat(onlySink(result).sink().delivery().selfAuditRequestsPerMinute())
                .isEqualTo(DeliverySettings.DEFAULT_SELF_AUDIT_REQUESTS_PER_MINUTE);
    }

    @Test
    void the_seed_connector_file_gives_the_upstream_meaning_and_defaults() {
        ConfigResult result = ConnectorConfigLoader.load(TestFiles.resource("seed/s3.toml"), Map.of());
        ConnectorConfig s = onlySink(result);
        assertThat(result.warnings()).isEmpty();

        assertThat(s.key()).isEqualTo("s3");
        assertThat(s.sink().name()).isEqualTo("S3 sink");
        assertThat(s.sink().enabled()).isTrue();
        assertThat(s.sink().version()).isZero();
        assertThat(s.sink().verbose()).isFalse();
        assertThat(s.sink().streams()).containsExactly(new StreamSettings("application_logs",
                List.of("api_requests", "errors"), PayloadSchema.JSON, 1000, Duration.ofMillis(100), "s3_sink",
                Optional.empty()));

        assertThat(s3(s).bucket()).isEqualTo("my-data-lake");
        assertThat(s3(s).region()).isEqualTo("us-east-1");
        assertThat(s3(s).endpoint()).isEmpty();
        assertThat(s3(s).pathStyle()).isFalse();
        assertThat(s3(s).accessKeyId()).isEmpty();
        assertThat(s3(s).secretAccessKey()).isEmpty();
        assertThat(s3(s).client()).isEqualTo(StorageConfig.S3Client.AWS);
        assertThat(s3(s).multipartThreshold()).isEqualTo(64 * MIB);
        assertThat(s3(s).multipartPartSize()).isEqualTo(8 * MIB);
        assertThat(s.sink().delivery().uploadConcurrency()).isEqualTo(4);
        assertThat(s3(s).requestTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s3(s).objectTags()).isEmpty();

        assertThat(s.sink().output().prefix()).isEqualTo("iggy/raw");
        assertThat(s.sink().output().pathTemplate()).isEqualTo("{stream}/{topic}/{date}/{hour}");
        assertThat(s.sink().output().format()).isEqualTo(OutputFormat.JSON_LINES);
        assertThat(s.sink().output().compression()).isEqualTo(Compression.NONE);
        assertThat(s.sink().output().includeMetadata()).isTrue();
        assertThat(s.sink().output().includeHeaders()).isFalse();
        assertThat(s.sink().output().timezone()).isEqualTo(ZoneId.of("UTC"));
        assertThat(s.sink().output().parquetCodec()).isEqualTo("snappy");
        assertThat(s.sink().output().avroCodec()).isEqualTo("null");
        assertThat(s.sink().output().missingFieldPlaceholder()).isEqualTo("__missing__");

        assertThat(s.sink().rotation().mode()).isEqualTo(FileRotation.SIZE);
        assertThat(s.sink().rotation().maxFileSize()).isEqualTo(8_388_608L);
        assertThat(s.sink().rotation().maxMessagesPerFile()).isEmpty();
        assertThat(s.sink().rotation().rotateInterval()).isEmpty();
        assertThat(s.sink().rotation().maxOpenFilesPerPartition()).isEqualTo(1);
        assertThat(s.sink().retry().maxAttempts()).isEqualTo(3);
        assertThat(s.sink().retry().retryDelay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.sink().retry().retryMaxDelay()).as("the backoff's cap: well under a minute")
                .isEqualTo(Duration.ofSeconds(10));
        assertThat(s.sink().delivery().maxBufferedBytes()).isEqualTo(72 * MIB);
        assertThat(s.bufferDirectory()).as("open files go to the system temporary directory")
                .isEqualTo(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().toString());
        assertThat(s.buffersOnDisk()).isTrue();
        assertThat(s.sink().delivery().errorsTolerance()).isEqualTo(ErrorTolerance.NONE);
        assertThat(s.sink().delivery().dlqPrefix()).isEqualTo("_dlq");
        assertThat(s.sink().delivery().shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));

        assertThat(s.iggy().host()).isEqualTo("127.0.0.1");
        assertThat(s.iggy().port()).isEqualTo(8090);
        assertThat(s.iggy().username()).isEqualTo("iggy");
        assertThat(s.iggy().password()).isEqualTo(Secret.of("iggy"));
        assertThat(s.iggy().token()).isEmpty();
        assertThat(s.admin().address()).contains("127.0.0.1:8098");
        assertThat(s.sink().transforms()).isEmpty();
    }

    @Test
    void the_minio_example_table_turns_on_path_style_credentials_and_message_rotation() {
        ConnectorConfig s = onlySink(ConnectorConfigLoader.load(TestFiles.resource("seed/s3_minio.toml"), Map.of()));
        assertThat(s3(s).bucket()).isEqualTo("my-bucket");
        assertThat(s3(s).endpoint()).contains("http://localhost:9000");
        assertThat(s3(s).pathStyle()).isTrue();
        assertThat(s3(s).accessKeyId()).contains("minioadmin");
        assertThat(s3(s).secretAccessKey()).contains(Secret.of("minioadmin"));
        assertThat(s.sink().rotation().mode()).isEqualTo(FileRotation.MESSAGES);
        assertThat(s.sink().rotation().maxMessagesPerFile()).isEqualTo(OptionalLong.of(1));
        assertThat(s.sink().output().prefix()).isEmpty();
        assertThat(s.sink().output().pathTemplate()).isEqualTo("{stream}/{topic}/{date}/{hour}");
    }

    @Test
    void the_default_consumer_group_is_named_after_the_key() {
        Path file = TestFiles.write(tmp, "s3.toml", TestFiles.seedWith("consumer_group = \"s3_sink\"", ""));
        ConnectorConfig s = onlySink(ConnectorConfigLoader.load(file, Map.of()));
        assertThat(s.sink().streams().get(0).consumerGroup()).isEqualTo("iggy-connect-sink-s3");
    }

    @Test
    void every_key_we_read_reaches_the_settings() {
        ConfigResult result = ConnectorConfigLoader.load(TestFiles.resource("full.toml"), Map.of());
        ConnectorConfig s = onlySink(result);
        String schema = TestFiles.read("schemas/event.avsc");

        assertThat(s.sink().version()).isEqualTo(7);
        assertThat(s.sink().verbose()).isTrue();
        assertThat(s.iggy().host()).isEqualTo("::1");
        assertThat(s.iggy().port()).isEqualTo(9090);
        assertThat(s.iggy().username()).isEqualTo("svc");
        assertThat(s.iggy().password()).isEqualTo(Secret.of("pw-full"));
        assertThat(s.iggy().token()).contains(Secret.of("tok-full"));
        assertThat(s.iggy().tlsEnabled()).isTrue();
        assertThat(s.iggy().tlsCaFile()).contains("certs/ca.pem");
        assertThat(s.iggy().tlsDomain()).contains("iggy.local");
        assertThat(s.admin().address()).contains("0.0.0.0:9999");
        assertThat(s.admin().token()).contains(Secret.of("admin-full"));

        assertThat(s.sink().streams()).hasSize(2);
        assertThat(s.sink().streams().get(0).schema()).isEqualTo(PayloadSchema.AVRO);
        assertThat(s.sink().streams().get(0).avroSchemaJson()).contains(schema);
        assertThat(s.sink().streams().get(0).pollInterval()).isZero();
        assertThat(s.sink().streams().get(0).consumerGroup()).isEqualTo("iggy-connect-sink-lake");
        assertThat(s.sink().streams().get(1).schema()).isEqualTo(PayloadSchema.TEXT);
        assertThat(s.sink().streams().get(1).pollInterval()).isEqualTo(Duration.ofMillis(5));

        var st = s3(s);
        assertThat(st.region()).isEqualTo("auto");
        assertThat(st.endpoint()).contains("https://r2.example");
        assertThat(st.pathStyle()).isFalse();
        assertThat(st.client()).isEqualTo(StorageConfig.S3Client.MINIO);
        assertThat(st.multipartThreshold()).isEqualTo(128 * MIB);
        assertThat(st.multipartPartSize()).isEqualTo(16 * MIB);
        assertThat(s.sink().delivery().uploadConcurrency()).isEqualTo(8);
        assertThat(st.sse()).contains("aws:kms");
        assertThat(st.sseKmsKeyId()).contains("kms-key-1");
        assertThat(st.storageClass()).contains("STANDARD_IA");
        assertThat(st.cannedAcl()).contains("bucket-owner-full-control");
        assertThat(st.objectTags()).isEqualTo(Map.of("team", "data", "tier", "2"));
        assertThat(st.requestTimeout()).isEqualTo(Duration.ofSeconds(15));

        var o = s.sink().output();
        assertThat(o.prefix()).isEqualTo("data/raw");
        assertThat(o.pathTemplate()).isEqualTo("{stream}/{year}/{month}/{day}/{field:user.id}");
        assertThat(o.format()).isEqualTo(OutputFormat.PARQUET);
        assertThat(o.compression()).as("parquet compresses inside the file").isEqualTo(Compression.NONE);
        assertThat(o.parquetCodec()).isEqualTo("zstd");
        assertThat(o.includeMetadata()).isFalse();
        assertThat(o.includeHeaders()).isTrue();
        assertThat(o.timezone()).isEqualTo(ZoneId.of("Europe/Berlin"));
        assertThat(o.avroSchemaJson()).contains(schema);
        assertThat(o.missingFieldPlaceholder()).isEqualTo("?");

        var r = s.sink().rotation();
        assertThat(r.mode()).isEqualTo(FileRotation.MESSAGES);
        assertThat(r.maxMessagesPerFile()).isEqualTo(OptionalLong.of(500));
        assertThat(r.maxFileSize()).isEqualTo(1024 * MIB);
        assertThat(r.rotateInterval()).contains(Duration.ofMinutes(90));
        assertThat(r.rotateScheduleInterval()).contains(Duration.ofMinutes(10));
        assertThat(r.maxOpenFilesPerPartition()).isEqualTo(4);
        assertThat(s.sink().retry().maxAttempts()).as("max_retries is an alias").isZero();
        assertThat(s.sink().retry().retryDelay()).isEqualTo(Duration.ofMillis(250));
        assertThat(s.sink().retry().retryMaxDelay()).isEqualTo(Duration.ofSeconds(20));
        assertThat(s.sink().delivery().maxBufferedBytes()).isEqualTo(1024 * MIB);
        assertThat(s.bufferDirectory()).as("relative to the config file's directory")
                .isEqualTo(TestFiles.resource("full.toml").toAbsolutePath().getParent().resolve("spill").toString());
        assertThat(s.sink().delivery().errorsTolerance()).isEqualTo(ErrorTolerance.ALL);
        assertThat(s.sink().delivery().dlqPrefix()).isEqualTo("dead");
        assertThat(s.sink().delivery().shutdownTimeout()).isEqualTo(Duration.ofMinutes(2));

        assertThat(s.sink().transforms()).hasSize(5);
        var add = (TransformSettings.AddFields) s.sink().transforms().get(0);
        assertThat(add.fields()).containsExactly(
                new TransformSettings.FieldValue("source", Optional.of("iggy"), Optional.empty()),
                new TransformSettings.FieldValue("ingested_at", Optional.empty(),
                        Optional.of(Computed.TIMESTAMP_MILLIS)));
        assertThat(s.sink().transforms().get(1)).isEqualTo(new TransformSettings.DeleteFields(List.of("password", "ssn")));
        var update = (TransformSettings.UpdateFields) s.sink().transforms().get(2);
        assertThat(update.fields().get(0).condition()).isEqualTo(Condition.KEY_EXISTS);
        assertThat(update.fields().get(0).value().staticValue())
                .contains(Map.of("code", 1L, "tags", List.of("a", "b")));
        var filter = (TransformSettings.FilterFields) s.sink().transforms().get(3);
        assertThat(filter.keepFields()).containsExactly("id");
        assertThat(filter.includeMatching()).isFalse();
        assertThat(filter.patterns()).containsExactly(
                new TransformSettings.FieldPattern(Optional.of(KeyMatch.STARTS_WITH), Optional.of("meta_"),
                        Optional.empty(), List.of()),
                new TransformSettings.FieldPattern(Optional.empty(), Optional.empty(),
                        Optional.of(ValueMatch.IS_NULL), List.of()),
                new TransformSettings.FieldPattern(Optional.of(KeyMatch.EXACT), Optional.of("age"),
                        Optional.of(ValueMatch.BETWEEN), List.of(18L, 65L)));
        assertThat(s.sink().transforms().get(4)).isEqualTo(new TransformSettings.UnwrapEnvelope("data"));

        assertThat(result.warnings()).isEmpty();
        assertThat(result.notices()).anyMatch(n -> n.contains("after_polling") && n.contains("durable"))
                .anyMatch(n -> n.startsWith("transforms run in file order: add_fields, delete_fields"));
    }

    @Test
    void environment_overrides_win_over_the_file() {
        Map<String, String> env = Map.of(
                "IGGY_CONNECTORS_SINK_S3_PLUGIN_CONFIG_BUCKET", "from-env",
                "IGGY_CONNECTORS_SINK_S3_PLUGIN_CONFIG_MAX_FILE_SIZE", "16MiB",
                "IGGY_CONNECTORS_SINK_S3_PLUGIN_CONFIG_INCLUDE_HEADERS", "true",
                "IGGY_CONNECTORS_SINK_S3_STREAMS_0_TOPICS", "[a, \"b\"]",
                "IGGY_CONNECTORS_SINK_S3_STREAMS_0_BATCH_LENGTH", "50",
                "IGGY_CONNECTORS_SINK_S3_STREAMS_0_POLL_INTERVAL", "0",
                "IGGY_CONNECTORS_SINK_S3_NAME", "2024",
                "IGGY_CONNECTORS_IGGY_ADDRESS", "iggy.internal:9000",
                "IGGY_CONNECTORS_IGGY_TOKEN", "env-token",
                "IGGY_CONNECTORS_SINK_OTHER_PLUGIN_CONFIG_BUCKET", "not-ours");
        ConnectorConfig s = onlySink(ConnectorConfigLoader.load(TestFiles.resource("seed/s3.toml"), env));
        assertThat(s3(s).bucket()).isEqualTo("from-env");
        assertThat(s.sink().rotation().maxFileSize()).isEqualTo(16 * MIB);
        assertThat(s.sink().output().includeHeaders()).isTrue();
        assertThat(s.sink().streams().get(0).topics()).containsExactly("a", "b");
        assertThat(s.sink().streams().get(0).batchLength()).isEqualTo(50);
        assertThat(s.sink().streams().get(0).pollInterval()).isZero();
        assertThat(s.sink().name()).as("a number from the environment is still a name").isEqualTo("2024");
        assertThat(s.iggy().host()).isEqualTo("iggy.internal");
        assertThat(s.iggy().port()).isEqualTo(9000);
        assertThat(s.iggy().token()).contains(Secret.of("env-token"));
        assertThat(s.sink().output().prefix()).as("untouched keys keep the file's value").isEqualTo("iggy/raw");
    }

    @Test
    void several_open_files_per_partition_run_when_at_least_once_delivery_is_accepted_in_the_file() {
        ConfigResult result = ConnectorConfigLoader.load(TestFiles.resource("seed/s3.toml"),
                Map.of("IGGY_CONNECTORS_SINK_S3_PLUGIN_CONFIG_MAX_OPEN_FILES_PER_PARTITION", "4",
                        "IGGY_CONNECTORS_SINK_S3_PLUGIN_CONFIG_ACCEPT_AT_LEAST_ONCE", "true"));
        assertThat(onlySink(result).sink().rotation().maxOpenFilesPerPartition()).isEqualTo(4);
    }

    @Test
    void a_bad_environment_value_names_its_variable() {
        ConfigResult result = ConnectorConfigLoader.load(TestFiles.resource("seed/s3.toml"),
                Map.of("IGGY_CONNECTORS_SINK_S3_PLUGIN_CONFIG_INCLUDE_METADATA", "maybe"));
        assertThat(result.errors()).extracting(ConfigError::toString).containsExactly(
                "plugin_config.include_metadata: expected true or false, got \"maybe\" "
                        + "(from IGGY_CONNECTORS_SINK_S3_PLUGIN_CONFIG_INCLUDE_METADATA)");
        assertThat(result.sinks()).isEmpty();
    }

    @Test
    void a_disabled_sink_file_runs_nothing_and_is_an_error_as_run_treats_it() {
        ConfigResult result = ConnectorConfigLoader.load(TestFiles.resource("seed/s3.toml"),
                Map.of("IGGY_CONNECTORS_SINK_S3_ENABLED", "false"));
        assertThat(result.ok()).isFalse();
        assertThat(result.sinks()).isEmpty();
        assertThat(result.errors()).extracting(ConfigError::toString)
                .containsExactly("s3.toml: no enabled S3 sink to run");
        assertThat(result.notices()).containsExactly("sink s3 is disabled (enabled = false): nothing to run");
    }

    @Test
    void a_connector_directory_without_an_enabled_sink_is_an_error() {
        ConfigResult result = loadRuntime(runtimeDir(IN_C, "c/paused.toml", read("paused.toml"),
                "c/random_source.toml", read("random_source.toml")));
        assertThat(result.ok()).isFalse();
        assertThat(result.errors()).extracting(ConfigError::toString)
                .containsExactly("runtime.toml: no enabled sink to run");
    }

    @Test
    void every_file_of_a_connector_directory_reports_its_errors() {
        Path dir = tmp.resolve("conf");
        TestFiles.write(dir, "runtime.toml", "[connectors]\nconfig_dir = \"c\"\n");
        TestFiles.write(dir, "c/a.toml", TestFiles.read("runtime/connectors/s3_v0.toml")
                .replace("region = \"us-east-1\"", "region = \"us-east-1\"\nmax_file_size = \"big\""));
        // A misspelt bucket must not turn the S3 sink into "not an S3 sink, skipped": its path names the S3 plugin.
        TestFiles.write(dir, "c/b.toml", TestFiles.read("runtime/connectors/archive_0.toml")
                .replace("bucket = ", "bukcet = "));
        ConfigResult result = ConnectorConfigLoader.load(dir.resolve("runtime.toml"), Map.of(), dir);
        assertThat(result.errors()).extracting(ConfigError::toString).containsExactly(
                "[b.toml] plugin_config.bucket: required key is missing",
                "[a.toml] plugin_config.max_file_size: \"big\" is not a size (e.g. 8MiB, 10MB)");
        assertThat(result.warnings()).containsExactly(
                "[b.toml] unknown key plugin_config.bukcet (did you mean plugin_config.bucket?)");
    }

    @Test
    void errors_of_a_version_that_does_not_run_are_warnings_naming_the_file() {
        ConfigResult result = loadRuntime(runtimeDir(IN_C, "c/s3_v0.toml", read("s3_v0.toml")
                .replace("region = \"us-east-1\"", "region = \"us-east-1\"\nmax_file_size = \"big\""),
                "c/s3_v2.toml", read("s3_v2.toml")));
        assertThat(result.errors()).isEmpty();
        assertThat(result.sinks()).singleElement().extracting(s -> s.sink().version()).isEqualTo(2L);
        assertThat(result.warnings()).containsExactly("[s3_v0.toml] sink s3 version 0 (not the one that runs): "
                + "plugin_config.max_file_size: \"big\" is not a size (e.g. 8MiB, 10MB)");
    }

    @Test
    void config_dir_is_first_resolved_against_the_working_directory_as_upstream_does() {
        Path work = tmp.resolve("work");
        Path conf = tmp.resolve("conf");
        TestFiles.write(conf, "runtime.toml", "[connectors]\nconfig_dir = \"connectors\"\n");
        TestFiles.write(work, "connectors/s3.toml", TestFiles.read("runtime/connectors/s3_v1.toml"));
        TestFiles.write(conf, "connectors/s3.toml", TestFiles.read("runtime/connectors/s3_v2.toml"));
        ConfigResult result = ConnectorConfigLoader.load(conf.resolve("runtime.toml"), Map.of(), work);
        assertThat(result.errors()).isEmpty();
        assertThat(result.sinks()).singleElement().extracting(s -> s3(s).bucket()).isEqualTo("bucket-v1");
        assertThat(result.notices()).contains("connector directory: " + work.resolve("connectors")
                + " (config_dir \"connectors\" relative to the working directory)");
    }

    @Test
    void the_upstream_example_layout_works_from_its_repository_root() {
        // core/connectors/runtime/example_config/config.toml names its directory from the repository root.
        Path root = tmp.resolve("iggy");
        String examples = "core/connectors/runtime/example_config";
        Path config = TestFiles.write(root, examples + "/config.toml", "[iggy]\naddress = \"localhost:8090\"\n"
                + "token = \"\"\n\n[connectors]\nconfig_type = \"local\"\nconfig_dir = \"" + examples
                + "/connectors\"\n");
        TestFiles.write(root, examples + "/connectors/s3_sink.toml", TestFiles.read("runtime/connectors/s3_v1.toml"));
        TestFiles.write(root, examples + "/connectors/random.toml",
                TestFiles.read("runtime/connectors/random_source.toml"));
        ConfigResult result = ConnectorConfigLoader.load(config, Map.of(), root);
        assertThat(result.errors()).isEmpty();
        assertThat(result.sinks()).singleElement().extracting(s -> s3(s).bucket()).isEqualTo("bucket-v1");
        assertThat(result.notices()).contains("connector directory: " + root.resolve(examples + "/connectors")
                + " (config_dir \"" + examples + "/connectors\" relative to the working directory)");
    }

    @Test
    void config_dir_falls_back_to_the_config_files_directory() {
        Path work = tmp.resolve("work");
        Path conf = tmp.resolve("conf");
        TestFiles.write(work, "unrelated.txt", "");
        TestFiles.write(conf, "runtime.toml", "[connectors]\nconfig_dir = \"connectors\"\n");
        TestFiles.write(conf, "connectors/s3.toml", TestFiles.read("runtime/connectors/s3_v2.toml"));
        ConfigResult result = ConnectorConfigLoader.load(conf.resolve("runtime.toml"), Map.of(), work);
        assertThat(result.errors()).isEmpty();
        assertThat(result.sinks()).singleElement().extracting(s -> s3(s).bucket()).isEqualTo("bucket-v2");
        assertThat(result.notices()).contains("connector directory: " + conf.resolve("connectors")
                + " (config_dir \"connectors\" relative to the directory of runtime.toml)");
    }

    @Test
    void a_file_that_cannot_be_read_says_which_and_why() {
        Path missing = tmp.resolve("nope.toml");
        assertThat(ConnectorConfigLoader.load(missing, Map.of()).errors()).extracting(ConfigError::toString)
                .containsExactly("nope.toml: cannot read " + missing.toAbsolutePath() + ": no such file");
        Path directory = TestFiles.write(tmp, "dir.toml/inner", "").getParent();
        assertThat(ConnectorConfigLoader.load(directory, Map.of()).errors()).extracting(ConfigError::toString)
                .containsExactly("dir.toml: cannot read " + directory.toAbsolutePath() + ": it is a directory");
        // Tests may run as root, who may read anything: the reason for a denied read is checked directly.
        assertThat(ConnectorConfigLoader.reason(new java.nio.file.AccessDeniedException("/x/s3.toml")))
                .isEqualTo("permission denied");
    }

    @Test
    void a_runtime_config_runs_the_active_version_of_each_enabled_s3_sink() {
        ConfigResult result = ConnectorConfigLoader.load(TestFiles.resource("runtime/config.toml"), Map.of());
        assertThat(result.errors()).isEmpty();
        assertThat(result.sinks()).extracting(ConnectorConfig::key, s -> s3(s).bucket(), s -> s.sink().version())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("archive", "archive-3", 3L),
                        org.assertj.core.groups.Tuple.tuple("s3", "bucket-v1", 1L));
        ConnectorConfig s3 = result.sinks().get(1);
        assertThat(s3.iggy().host()).isEqualTo("iggy-host");
        assertThat(s3.iggy().username()).isEqualTo("runtime-user");
        assertThat(s3.iggy().password()).isEqualTo(Secret.of("runtime-pw"));
        assertThat(s3.iggy().token()).as("an empty token means none").isEmpty();
        assertThat(s3.iggy().tlsCaFile()).contains("core/certs/iggy_ca_cert.pem");
        assertThat(result.notices()).containsExactlyInAnyOrder(
                "connector directory: " + TestFiles.resource("runtime/connectors")
                        + " (config_dir \"connectors\" relative to the directory of config.toml)",
                "sink archive: running the highest version, 3 (found 0, 3)",
                "[paused.toml] sink paused is disabled (enabled = false): skipped",
                "[postgres_sink.toml] sink postgres skipped: neither an S3 nor an Iceberg sink (its path names "
                        + "neither, and its [plugin_config] has no bucket, directory, catalog_type or tables)",
                "[random_source.toml] source connector random skipped: only S3 and Iceberg sinks run here",
                "sink s3: running version 1 (named by .active_versions.toml; found 0, 1, 2)");
        assertThat(result.warnings()).isEmpty();
    }

    @Test
    void a_connector_directory_runs_its_iceberg_table_sinks_beside_its_s3_sinks() {
        ConfigResult result = loadRuntime(runtimeDir("[iggy]\naddress = \"iggy-host:8090\"\n\n" + IN_C,
                "c/s3.toml", read("s3_v0.toml"), "c/iceberg.toml", TestFiles.read("iceberg/rust_iceberg_sink.toml")));
        assertThat(result.errors()).isEmpty();
        assertThat(result.notices()).noneMatch(n -> n.contains("skipped"));
        assertThat(result.sinks()).extracting(ConnectorConfig::key).containsExactly("s3");
        assertThat(result.tableSinks()).extracting(TableConnectorConfig::key).containsExactly("iceberg");
        TableConnectorConfig table = result.tableSinks().get(0);
        assertThat(table.iggy().host()).as("the runtime's [iggy] applies").isEqualTo("iggy-host");
        assertThat(table.iggy().port()).isEqualTo(8090);
        assertThat(table.catalog().uri()).isEqualTo("http://localhost:8181");
    }

    @Test
    void table_sinks_of_a_connector_directory_follow_active_versions_and_report_errors_by_file() {
        Path dir = tmp.resolve("conf");
        TestFiles.write(dir, "runtime.toml", "[connectors]\nconfig_dir = \"c\"\n");
        String v0 = TestFiles.read("iceberg/rust_iceberg_sink.toml");
        TestFiles.write(dir, "c/iceberg_0.toml", v0);
        TestFiles.write(dir, "c/iceberg_1.toml", v0.replace("version = 0", "version = 1")
                .replace("uri = \"http://localhost:8181\"", "uri = \"http://other:8181\""));
        TestFiles.write(dir, "c/.active_versions.toml", "[sinks]\niceberg = 0\n");
        ConfigResult result = ConnectorConfigLoader.load(dir.resolve("runtime.toml"), Map.of(), dir);
        assertThat(result.errors()).isEmpty();
        assertThat(result.tableSinks()).singleElement().extracting(t -> t.catalog().uri())
                .isEqualTo("http://localhost:8181");
        assertThat(result.notices()).contains(
                "sink iceberg: running version 0 (named by .active_versions.toml; found 0, 1)");

        TestFiles.write(dir, "c/iceberg_0.toml", v0.replace("catalog_type = \"rest\"", "catalog_type = \"hive\"")
                .replace("tables = [\"nyc.users\"]", "tables = [\"users\"]"));
        TestFiles.write(dir, "c/s3.toml", TestFiles.read("runtime/connectors/s3_v0.toml")
                .replace("region = \"us-east-1\"", "region = \"us-east-1\"\nmax_file_size = \"big\""));
        ConfigResult bad = ConnectorConfigLoader.load(dir.resolve("runtime.toml"), Map.of(), dir);
        assertThat(bad.ok()).isFalse();
        assertThat(bad.tableSinks()).isEmpty();
        assertThat(bad.errors()).extracting(ConfigError::toString).containsExactlyInAnyOrder(
                "[iceberg_0.toml] plugin_config.tables[0]: \"users\" is not <namespace>.<table>",
                "[iceberg_0.toml] plugin_config.catalog_type: \"hive\" is not one of rest, jdbc, glue",
                "[s3.toml] plugin_config.max_file_size: \"big\" is not a size (e.g. 8MiB, 10MB)");
    }

    @Test
    void a_connector_directory_with_only_a_table_sink_runs_it_and_without_an_enabled_sink_is_an_error() {
        String table = TestFiles.read("iceberg/rust_iceberg_sink.toml");
        Path dir = runtimeDir(IN_C, "c/iceberg.toml", table);
        ConfigResult result = loadRuntime(dir);
        assertThat(result.ok()).isTrue();
        assertThat(result.sinks()).isEmpty();
        assertThat(result.tableSinks()).hasSize(1);

        TestFiles.write(dir, "c/iceberg.toml", table.replace("enabled = true", "enabled = false"));
        ConfigResult none = loadRuntime(dir);
        assertThat(none.errors()).extracting(ConfigError::toString)
                .containsExactly("runtime.toml: no enabled sink to run");
        assertThat(none.notices()).contains("[iceberg.toml] sink iceberg is disabled (enabled = false): skipped");
    }

    @Test
    void without_active_versions_the_highest_version_runs_and_env_can_override_the_directory() {
        Path dir = tmp.resolve("conf");
        TestFiles.write(dir, "runtime.toml", "[connectors]\nconfig_dir = \"elsewhere\"\n");
        TestFiles.write(dir, "c/a.toml", TestFiles.read("runtime/connectors/s3_v0.toml"));
        TestFiles.write(dir, "c/b.toml", TestFiles.read("runtime/connectors/s3_v2.toml"));
        ConfigResult result = ConnectorConfigLoader.load(dir.resolve("runtime.toml"),
                Map.of("IGGY_CONNECTORS_CONNECTORS_CONFIG_DIR", "c"));
        assertThat(result.errors()).isEmpty();
        assertThat(result.sinks()).singleElement().extracting(s -> s3(s).bucket()).isEqualTo("bucket-v2");
        assertThat(result.sinks().get(0).iggy().port()).isEqualTo(8090);
    }

    @Test
    void an_active_version_that_does_not_exist_is_an_error() {
        Path dir = tmp.resolve("conf");
        TestFiles.write(dir, "runtime.toml", "[connectors]\nconfig_dir = \"c\"\n");
        TestFiles.write(dir, "c/a.toml", TestFiles.read("runtime/connectors/s3_v0.toml"));
        TestFiles.write(dir, "c/.active_versions.toml", "[sinks]\ns3 = 5\n");
        ConfigResult result = ConnectorConfigLoader.load(dir.resolve("runtime.toml"), Map.of());
        assertThat(result.errors()).extracting(ConfigError::toString).containsExactly(
                "[.active_versions.toml] sinks.s3: version 5 is not in the connector directory (found 0)");
    }

    @Test
    void a_missing_connector_directory_is_an_error() {
        Path file = TestFiles.write(tmp, "runtime.toml", "[connectors]\nconfig_type = \"local\"\n"
                + "config_dir = \"nowhere\"\n");
        assertThat(ConnectorConfigLoader.load(file, Map.of(), tmp.resolve("work")).errors())
                .extracting(ConfigError::toString)
                .containsExactly("connectors.config_dir: \"nowhere\" is not a directory (looked in "
                        + tmp.resolve("work").resolve("nowhere") + " and " + tmp.resolve("nowhere") + ")");
    }

    @Test
    void the_logging_format_of_the_runtime_key_is_read_and_checked_and_env_wins() throws Exception {
        Path json = TestFiles.write(tmp, "json.toml", TestFiles.read("seed/s3.toml") + "\n[logging]\nformat = \"JSON\"\n");
        assertThat(ConnectorConfigLoader.load(json, Map.of()).logFormat()).contains("json");
        assertThat(ConnectorConfigLoader.load(json, Map.of("IGGY_CONNECTORS_LOGGING_FORMAT", "text")).logFormat())
                .contains("text");

        Path bad = TestFiles.write(tmp, "bad.toml", TestFiles.read("seed/s3.toml") + "\n[logging]\nformat = \"xml\"\n");
        ConfigResult result = ConnectorConfigLoader.load(bad, Map.of());
        assertThat(result.ok()).isFalse();
        assertThat(result.errors()).extracting(ConfigError::toString)
                .contains("logging.format: \"xml\" is not one of text, json");

        Path none = TestFiles.write(tmp, "none.toml", TestFiles.read("seed/s3.toml"));
        assertThat(ConnectorConfigLoader.load(none, Map.of()).logFormat()).isEmpty();
    }

    /** The bucket options of a sink that writes to S3. */
    static StorageConfig.S3 s3(ConnectorConfig c) {
        return (StorageConfig.S3) c.storage();
    }
}
