package dev.iggysink.adapters.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The runtime's environment overrides, applied to the parsed tree before it is read, so the environment wins over the
 * file: {@code IGGY_CONNECTORS_SINK_<KEY>_<FIELD>}, {@code ..._STREAMS_<i>_<FIELD>},
 * {@code ..._PLUGIN_CONFIG_<FIELD>} (and our {@code ..._ADMIN_<FIELD>}), plus {@code IGGY_CONNECTORS_<SECTION>_<KEY>}
 * for the runtime config's sections. Values are type-inferred as upstream does. Each applied path is remembered with
 * its variable name so errors can point at the variable rather than the file.
 */
final class EnvOverrides {
    static final String PREFIX = "IGGY_CONNECTORS_";
    private static final Pattern STREAM_FIELD = Pattern.compile("STREAMS_(\\d+)_(.+)");
    private static final Pattern INTEGER = Pattern.compile("-?\\d+");
    private static final Pattern FLOAT = Pattern.compile("-?\\d+\\.\\d+([eE][+-]?\\d+)?|-?\\d+[eE][+-]?\\d+");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final int MAX_STREAM_INDEX = 1024;

    private EnvOverrides() {
    }

    /** The environment-name form of a connector key: upper case, anything but letters and digits as {@code _}. */
    static String envKey(String connectorKey) {
        return connectorKey.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    /** Applies {@code IGGY_CONNECTORS_SINK_<KEY>_*} to a connector file's tree. */
    static void applyToConnector(ObjectNode root, String connectorKey, Map<String, String> env,
                                 Map<String, String> origins) {
        String prefix = PREFIX + "SINK_" + envKey(connectorKey) + "_";
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            if (!e.getKey().startsWith(prefix) || e.getKey().length() == prefix.length()) {
                continue;
            }
            String rest = e.getKey().substring(prefix.length());
            JsonNode value = infer(e.getValue());
            Matcher stream = STREAM_FIELD.matcher(rest);
            if (rest.startsWith("PLUGIN_CONFIG_")) {
                set(root, "plugin_config", lower(rest.substring("PLUGIN_CONFIG_".length())), value, e.getKey(), origins);
            } else if (rest.startsWith("ADMIN_")) {
                set(root, "admin", lower(rest.substring("ADMIN_".length())), value, e.getKey(), origins);
            } else if (stream.matches() && stream.group(1).length() <= 4
                    && Integer.parseInt(stream.group(1)) <= MAX_STREAM_INDEX) {
                int index = Integer.parseInt(stream.group(1));
                ArrayNode streams = root.get("streams") instanceof ArrayNode a ? a : root.putArray("streams");
                while (streams.size() <= index) {
                    streams.addObject();
                }
                if (streams.get(index) instanceof ObjectNode entry) {
                    String field = lower(stream.group(2));
                    entry.set(field, value);
                    origins.put("streams[" + index + "]." + field, e.getKey());
                }
            } else {
                String field = lower(rest);
                root.set(field, value);
                origins.put(field, e.getKey());
            }
        }
    }

    /**
     * Applies {@code IGGY_CONNECTORS_<SECTION>_*} to a runtime-config section such as {@code [iggy]}; a field that
     * starts with one of {@code subtables} and {@code _} goes into that sub-table ({@code TLS_CA_FILE} →
     * {@code tls.ca_file}).
     */
    static ObjectNode applyToSection(JsonNode sectionNode, String section, List<String> subtables,
                                     Map<String, String> env, Map<String, String> origins) {
        ObjectNode result = sectionNode instanceof ObjectNode o ? o.deepCopy() : NODES.objectNode();
        String prefix = PREFIX + section.toUpperCase(Locale.ROOT) + "_";
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            if (!e.getKey().startsWith(prefix) || e.getKey().length() == prefix.length()) {
                continue;
            }
            String field = lower(e.getKey().substring(prefix.length()));
            JsonNode value = infer(e.getValue());
            String sub = subtables.stream().filter(s -> field.startsWith(s + "_")).findFirst().orElse(null);
            if (sub != null) {
                String inner = field.substring(sub.length() + 1);
                ObjectNode subNode = result.get(sub) instanceof ObjectNode o ? o : result.putObject(sub);
                subNode.set(inner, value);
                origins.put(section + "." + sub + "." + inner, e.getKey());
            } else {
                result.set(field, value);
                origins.put(section + "." + field, e.getKey());
            }
        }
        return result;
    }

    private static void set(ObjectNode root, String table, String field, JsonNode value, String variable,
                            Map<String, String> origins) {
        ObjectNode target = root.get(table) instanceof ObjectNode o ? o : root.putObject(table);
        target.set(field, value);
        origins.put(table + "." + field, variable);
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    /** Upstream's inference: true/false → bool, integers and floats → numbers, {@code [a, "b"]} → array, else text. */
    static JsonNode infer(String raw) {
        String text = raw.strip();
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return NODES.booleanNode(Boolean.parseBoolean(text.toLowerCase(Locale.ROOT)));
        }
        if (INTEGER.matcher(text).matches()) {
            try {
                return NODES.numberNode(Long.parseLong(text));
            } catch (NumberFormatException tooLarge) {
                return NODES.stringNode(raw);
            }
        }
        if (FLOAT.matcher(text).matches()) {
            return NODES.numberNode(Double.parseDouble(text));
        }
        if (text.length() >= 2 && text.startsWith("[") && text.endsWith("]")) {
            ArrayNode array = NODES.arrayNode();
            for (String item : splitItems(text.substring(1, text.length() - 1))) {
                String trimmed = item.strip();
                if (isQuoted(trimmed)) {
                    array.add(trimmed.substring(1, trimmed.length() - 1));
                } else if (!trimmed.isEmpty()) {
                    array.add(infer(trimmed));
                }
            }
            return array;
        }
        return NODES.stringNode(raw);
    }

    private static boolean isQuoted(String s) {
        return s.length() >= 2 && (s.startsWith("\"") && s.endsWith("\"") || s.startsWith("'") && s.endsWith("'"));
    }

    /** Splits on commas outside quotes. */
    private static List<String> splitItems(String body) {
        List<String> items = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        char quote = 0;
        for (char c : body.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
                current.append(c);
            } else if (c == '"' || c == '\'') {
                quote = c;
                current.append(c);
            } else if (c == ',') {
                items.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        if (!current.isEmpty() || !items.isEmpty()) {
            items.add(current.toString());
        }
        return items;
    }
}
