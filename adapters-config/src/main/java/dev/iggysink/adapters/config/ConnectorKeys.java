package dev.iggysink.adapters.config;

import static dev.iggysink.adapters.config.ConfigKey.OURS;
import static dev.iggysink.adapters.config.ConfigKey.UP;

import dev.iggysink.adapters.config.ConfigKey.Origin;
import dev.iggysink.adapters.config.ConfigKey.Scope;
import dev.iggysink.adapters.config.ConfigKey.Type;
import java.time.Duration;

/**
 * The keys both sinks' connector files share, one {@link KeySection} per section: the top level, {@code [[streams]]},
 * {@code [iggy]} with {@code [iggy.tls]}, and {@code [admin]}. {@link ConnectorReader}, {@link TableConnectorReader}
 * and {@link ConnectionReader} take their known keys and constant defaults from here.
 */
final class ConnectorKeys {

    static final KeySection TOP_LEVEL = new KeySection("Top-level keys", "Of both sinks' connector files. A key"
            + " marked object sink is only the S3 object sink's: a table sink's file warns of it as unknown.",
            "The Iggy connector runtime's keys");
    static final ConfigKey TYPE = TOP_LEVEL.add(key("type", Type.CHOICE, UP, null, "", "required; `sink`"
            + " (`source` is refused)", "the kind of connector"));
    static final ConfigKey KEY = TOP_LEVEL.add(key("key", Type.STRING, UP, null, "", "required, not empty",
            "the connector's id: the default consumer group and the `IGGY_CONNECTORS_SINK_<KEY>_*` overrides"));
    static final ConfigKey ENABLED = TOP_LEVEL.add(key("enabled", Type.BOOLEAN, UP, null, "", "required",
            "`false`: the file is checked, not run"));
    static final ConfigKey VERSION = TOP_LEVEL.add(key("version", Type.INTEGER, UP, null, "", "object sink:"
            + " required, 0 or more", "the connector's version (a runtime's `config_dir` runs the active one)"));
    static final ConfigKey NAME = TOP_LEVEL.add(key("name", Type.STRING, UP, null, "", "required",
            "the connector's name"));
    static final ConfigKey PATH = TOP_LEVEL.add(key("path", Type.STRING, UP, null, "", "required",
            "the Rust plugin's library: no meaning here but which sink a file is (`iceberg_sink`: a table sink)"));
    static final ConfigKey PLUGIN_CONFIG_FORMAT = TOP_LEVEL.add(key("plugin_config_format", Type.CHOICE, UP, null,
            "", "object sink: `json`, `yaml`, `toml`, `text`", "accepted; `[plugin_config]` is always this file's"
                    + " TOML"));
    static final ConfigKey VERBOSE = TOP_LEVEL.add(key("verbose", Type.BOOLEAN, UP, false, "",
            "shown in the object sink's printed settings"));
    static final ConfigKey BENCHMARK = TOP_LEVEL.add(key("benchmark", Type.BOOLEAN, UP, false, "",
            "accepted, no effect"));
    static final ConfigKey OFFSET_COMMIT = TOP_LEVEL.add(key("offset_commit", Type.CHOICE, UP, null, "",
            "object sink: `after_polling`, `after_consuming` (lower case)", "accepted: offsets are always committed"
                    + " once the object (or table commit) is durable"));
    static final ConfigKey STREAMS = TOP_LEVEL.add(key("streams", Type.TABLES, UP, null, "", "required; at least one",
            "`[[streams]]`: what is read"));
    static final ConfigKey PLUGIN_CONFIG = TOP_LEVEL.add(key("plugin_config", Type.TABLE, UP, null, "", "required",
            "the sink's own keys"));
    static final ConfigKey TRANSFORMS = TOP_LEVEL.add(key("transforms", Type.TABLE, UP, null, "", "`add_fields`,"
            + " `delete_fields`, `update_fields`, `filter_fields`, `unwrap_envelope`",
            "`[transforms.<name>]`: what is done to each record, in this order"));
    static final ConfigKey IGGY = TOP_LEVEL.add(key("iggy", Type.TABLE, OURS, null, "", "ignored in a runtime's"
            + " `config_dir` (the runtime's `[iggy]` applies)", "the Iggy connection of a connector file run alone"));
    static final ConfigKey ADMIN = TOP_LEVEL.add(key("admin", Type.TABLE, OURS, null, "", "",
            "the admin HTTP server"));
    static final ConfigKey LOGGING = TOP_LEVEL.add(new ConfigKey("logging", Type.TABLE, OURS, Scope.OBJECT_SINK,
            null, "", "`format`: `text` or `json`", "the log format of a connector file run alone"));

    static final KeySection STREAM = new KeySection("`[[streams]]`", "Of both sinks; the table sink reads"
            + " `schema = \"json\"` only.", "The Iggy connector runtime's keys");
    static final ConfigKey STREAM_NAME = STREAM.add(key("stream", Type.STRING, UP, null, "", "required, not empty",
            "the Iggy stream"));
    static final ConfigKey TOPICS = STREAM.add(key("topics", Type.STRINGS, UP, null, "", "required; at least one,"
            + " none empty; a stream's topic once in the file", "the stream's topics read"));
    static final ConfigKey SCHEMA = STREAM.add(key("schema", Type.CHOICE, UP, null, "", "required; `json`, `raw`,"
            + " `text`, `proto`, `flat_buffer`, `avro` (lower case)", "how payloads are decoded"));
    static final ConfigKey BATCH_LENGTH = STREAM.add(key("batch_length", Type.INTEGER, UP, 1000, "", "1 or more",
            "messages per poll"));
    static final ConfigKey POLL_INTERVAL = STREAM.add(key("poll_interval", Type.DURATION, UP, Duration.ofMillis(5),
            "", "`none`, `disabled` or `unlimited` mean 0", "the wait between polls"));
    static final ConfigKey CONSUMER_GROUP = STREAM.add(key("consumer_group", Type.STRING, UP, null,
            "`iggy-connect-sink-<key>`", "not empty", "the consumer group that holds the offsets"));
    static final ConfigKey STREAM_AVRO_SCHEMA_JSON = STREAM.add(key("avro_schema_json", Type.STRING, OURS, null, "",
            "valid JSON; not with `avro_schema_path`", "this stream's Avro schema (`schema = \"avro\"` decoding, and"
                    + " avro and parquet output in place of `[plugin_config]`'s)"));
    static final ConfigKey STREAM_AVRO_SCHEMA_PATH = STREAM.add(key("avro_schema_path", Type.PATH, OURS, null, "",
            "a readable JSON file (relative to the config file)", "`avro_schema_json` read from a file"));

    static final KeySection IGGY_SECTION = new KeySection("`[iggy]`", "As the Iggy connector runtime's `[iggy]`: in"
            + " its config, or in a connector file run alone; `IGGY_CONNECTORS_IGGY_*` overrides it.", "");
    static final ConfigKey IGGY_ADDRESS = IGGY_SECTION.add(key("address", Type.STRING, UP, "127.0.0.1:8090", "",
            "`host:port` (`[::1]:8090` for IPv6)", "the Iggy server's TCP address"));
    static final ConfigKey IGGY_USERNAME = IGGY_SECTION.add(key("username", Type.STRING, UP, "iggy", "", "",
            "the user the sink logs in as"));
    static final ConfigKey IGGY_PASSWORD = IGGY_SECTION.add(key("password", Type.SECRET, UP, "iggy", "",
            "never printed", "the user's password"));
    static final ConfigKey IGGY_TOKEN = IGGY_SECTION.add(key("token", Type.SECRET, UP, null, "", "`\"\"` means"
            + " unset; never printed", "a personal access token, used instead of the user and password"));
    static final ConfigKey IGGY_TLS = IGGY_SECTION.add(key("tls", Type.TABLE, UP, null, "", "",
            "`[iggy.tls]`: TLS to the server"));

    static final KeySection TLS = new KeySection("`[iggy.tls]`", "", "");
    static final ConfigKey TLS_ENABLED = TLS.add(key("enabled", Type.BOOLEAN, UP, false, "",
            "TLS to the Iggy server"));
    static final ConfigKey TLS_CA_FILE = TLS.add(key("ca_file", Type.PATH, UP, null, "", "`\"\"` means unset",
            "the CA certificate the server's is checked against"));
    static final ConfigKey TLS_DOMAIN = TLS.add(key("domain", Type.STRING, UP, null, "", "`\"\"` means unset",
            "the name the server's certificate is checked for"));

    static final KeySection ADMIN_SECTION = new KeySection("`[admin]`", "This sink's: the admin HTTP server of"
            + " both sinks; `IGGY_CONNECTORS_SINK_<KEY>_ADMIN_*` overrides it.", "");
    static final ConfigKey ADMIN_ADDRESS = ADMIN_SECTION.add(key("address", Type.STRING, OURS, "127.0.0.1:8098", "",
            "`host:port` or `off`", "where the admin HTTP server listens"));
    static final ConfigKey ADMIN_TOKEN = ADMIN_SECTION.add(key("token", Type.SECRET, OURS, null, "", "not empty"
            + " (remove the key for no token); never printed", "the bearer token the control endpoints ask for"));

    private ConnectorKeys() {
    }

    private static ConfigKey key(String name, Type type, Origin origin, Object defaultValue, String defaultText,
                                 String rule, String doc) {
        return new ConfigKey(name, type, origin, Scope.EVERYWHERE, defaultValue, defaultText, rule, doc);
    }

    private static ConfigKey key(String name, Type type, Origin origin, Object defaultValue, String rule,
                                 String doc) {
        return key(name, type, origin, defaultValue, defaultValue == null ? "" : null, rule, doc);
    }
}
