package dev.iggysink.adapters.config;

import java.util.List;

/** Every section's key table, in the order of docs/configuration-keys.md, which {@link #markdown} renders. */
final class ConfigKeys {
    static final List<KeySection> SECTIONS = List.of(ConnectorKeys.TOP_LEVEL, ConnectorKeys.STREAM,
            ConnectorKeys.IGGY_SECTION, ConnectorKeys.TLS, ConnectorKeys.ADMIN_SECTION, ObjectSinkKeys.SECTION,
            TableSinkKeys.SECTION);

    private ConfigKeys() {
    }

    /** docs/configuration-keys.md, as that file holds it. */
    static String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("# Configuration keys\n\n")
                .append("The keys of a connector file, section by section. Generated from `adapters-config`\n")
                .append("`ConfigKeys` (the tables the readers, their defaults and the settings printer use);\n")
                .append("`ConfigKeysTest` fails when this file and the tables disagree. Regenerate it with\n")
                .append("`mvn -pl adapters-config test -Dtest=ConfigKeysTest -Dconfig.docs.write=true`.\n")
                .append("Sizes are `8MiB` (binary), `10MB` (decimal) or bytes; durations are humantime (`100ms`,\n")
                .append("`1h 30m`). A key no table names is a warning, with the closest known key if one is near.\n");
        SECTIONS.forEach(s -> out.append(s.markdown()));
        return out.toString();
    }
}
