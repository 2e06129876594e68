package dev.iggysink.adapters.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects every error, warning and notice of one load, so that a user fixes all mistakes in one go. A view made by
 * {@link #forFile} prefixes what it records with the connector file's name (used for connector directories).
 */
final class Problems {
    private final String label;
    private final List<ConfigError> errors;
    private final List<String> warnings;
    private final List<String> notices;

    Problems() {
        this("", new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    }

    private Problems(String label, List<ConfigError> errors, List<String> warnings, List<String> notices) {
        this.label = label;
        this.errors = errors;
        this.warnings = warnings;
        this.notices = notices;
    }

    /** A view that records into the same lists, prefixing entries with {@code [fileName] }. */
    Problems forFile(String fileName) {
        return new Problems("[" + fileName + "] ", errors, warnings, notices);
    }

    void error(String path, String message) {
        errors.add(new ConfigError(label + path, message));
    }

    void warning(String text) {
        warnings.add(label + text);
    }

    void notice(String text) {
        notices.add(label + text);
    }

    int errorCount() {
        return errors.size();
    }

    List<ConfigError> errors() {
        return errors;
    }

    List<String> warnings() {
        return warnings;
    }

    List<String> notices() {
        return notices;
    }
}
