package dev.iggysink.adapters.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The declared keys of one section of a connector file ({@code [plugin_config]}, {@code [iggy]}, ...), in the order
 * of the docs. Its reader warns of every other key ({@link Table#warnUnknown}) and takes its constant defaults from
 * the rows; docs/configuration-keys.md renders it ({@link ConfigKeys#markdown}).
 */
final class KeySection {
    private final String heading;
    private final String intro;
    private final String upstream;
    private final Map<String, ConfigKey> byName = new LinkedHashMap<>();

    /**
     * @param heading  the docs' heading of the section
     * @param intro    the docs' sentences under the heading (empty: none)
     * @param upstream the docs' title of the keys of {@link ConfigKey.Origin#UPSTREAM} origin
     */
    KeySection(String heading, String intro, String upstream) {
        this.heading = heading;
        this.intro = intro;
        this.upstream = upstream;
    }

    ConfigKey add(ConfigKey key) {
        if (byName.putIfAbsent(key.name(), key) != null) {
            throw new IllegalStateException("key " + key.name() + " declared twice in " + heading);
        }
        return key;
    }

    /** Every key, in the order of the docs. */
    List<ConfigKey> keys() {
        return List.copyOf(byName.values());
    }

    /** The names the reader knows; any other is reported as unknown. */
    List<String> names() {
        return names(k -> true);
    }

    List<String> names(Predicate<ConfigKey> filter) {
        return byName.values().stream().filter(filter).map(ConfigKey::name).toList();
    }

    Optional<ConfigKey> key(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    String heading() {
        return heading;
    }

    /**
     * The section as docs/configuration-keys.md holds it: its heading, intro and one table, split into the upstream
     * keys and this sink's additions when it has both.
     */
    String markdown() {
        StringBuilder out = new StringBuilder("\n## ").append(heading).append('\n');
        if (!intro.isEmpty()) out.append('\n').append(intro).append('\n');
        boolean split = byName.values().stream().map(ConfigKey::origin).distinct().count() > 1;
        for (ConfigKey.Origin origin : ConfigKey.Origin.values()) {
            List<ConfigKey> rows = byName.values().stream().filter(k -> k.origin() == origin).toList();
            if (rows.isEmpty()) continue;
            if (split) {
                out.append("\n### ").append(origin == ConfigKey.Origin.UPSTREAM ? upstream : "This sink's additions")
                        .append('\n');
            }
            out.append("\n| key | type | default | rule | meaning |\n|---|---|---|---|---|\n");
            rows.forEach(k -> out.append(k.markdownRow()));
        }
        return out.toString();
    }
}
