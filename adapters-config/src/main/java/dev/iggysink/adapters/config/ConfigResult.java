package dev.iggysink.adapters.config;

import java.util.List;
import java.util.Optional;

/**
 * What loading found: the enabled S3 sinks to run, every error at once (when any, {@code sinks} is empty: a half
 * valid configuration is not run), warnings (unknown keys, likely typos, errors of connector versions that do not
 * run) and notices (the connector directory used, skipped connectors, accepted keys that have no effect here), and
 * the {@code [logging] format} ({@code text} or {@code json}) when the file or {@code IGGY_CONNECTORS_LOGGING_FORMAT}
 * sets one. {@code tableSinks} are the enabled Iceberg table sinks of a connector directory (a single table sink
 * file is read by {@link TableConnectorReader} instead). This is the whole decision {@code validate} and {@code run}
 * share: {@link #ok()} means at least one sink to run (no enabled sink of either kind is an error).
 */
public record ConfigResult(List<ConnectorConfig> sinks, List<ConfigError> errors, List<String> warnings,
                           List<String> notices, Optional<String> logFormat, List<TableConnectorConfig> tableSinks) {
    public ConfigResult {
        sinks = List.copyOf(sinks);
        tableSinks = List.copyOf(tableSinks);
        errors = List.copyOf(errors);
        warnings = List.copyOf(warnings);
        notices = List.copyOf(notices);
        java.util.Objects.requireNonNull(logFormat, "logFormat");
    }

    public ConfigResult(List<ConnectorConfig> sinks, List<ConfigError> errors, List<String> warnings,
                        List<String> notices) {
        this(sinks, errors, warnings, notices, Optional.empty(), List.of());
    }

    public boolean ok() {
        return errors.isEmpty();
    }
}
