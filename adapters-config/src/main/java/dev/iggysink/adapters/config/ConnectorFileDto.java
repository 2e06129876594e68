package dev.iggysink.adapters.config;

import java.util.List;

/**
 * The sink part of a connector file, validated: top-level keys, {@code [[streams]]} and the flat
 * {@code [plugin_config]}. The Iggy connection, admin table and transforms are resolved separately (they need
 * merging with the runtime config or have no one-to-one shape) and handed to the mapper beside it.
 */
record ConnectorFileDto(String key, String name, boolean enabled, long version, boolean verbose,
                        List<StreamDto> streams, PluginConfigDto plugin) {
}
