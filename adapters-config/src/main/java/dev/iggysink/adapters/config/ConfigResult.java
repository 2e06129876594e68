package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.SinkSettings;
import java.util.List;

/**
 * What loading found: the enabled S3 sinks to run, every error at once (when any, {@code sinks} is empty: a half
 * valid configuration is not run), warnings (unknown keys, likely typos) and notices (skipped connectors, accepted
 * keys that have no effect here).
 */
public record ConfigResult(List<SinkSettings> sinks, List<ConfigError> errors, List<String> warnings,
                           List<String> notices) {
    public ConfigResult {
        sinks = List.copyOf(sinks);
        errors = List.copyOf(errors);
        warnings = List.copyOf(warnings);
        notices = List.copyOf(notices);
    }

    public boolean ok() {
        return errors.isEmpty();
    }
}
