/**
 * Reads the Iggy connectors runtime's TOML files (a single connector file, or a runtime config with a connector
 * directory) into validated {@link dev.iggysink.adapters.config.ConnectorConfig}s: the pipeline's
 * {@link dev.iggysink.application.settings.SinkSettings} and this module's records for the store, Iggy and admin.
 *
 * <p>The file is parsed into a Jackson tree first, so environment overrides and unknown-key detection work on plain
 * nodes; plain code then validates and converts every value (sizes, durations, aliases, defaults, cross-field rules)
 * into DTO records, collecting every problem instead of stopping at the first; a MapStruct mapper finally reshapes the
 * flat DTOs into the grouped settings records. Secret values never reach an error, a warning or a printout.
 */
package dev.iggysink.adapters.config;
