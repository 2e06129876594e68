package dev.iggysink.adapters.config;

import java.time.Duration;
import java.util.Objects;

/**
 * One key of a connector file's section (a row of a {@link KeySection}): name, type, default, rule and meaning, as
 * Kafka's {@code ConfigDef} declares a connector's keys. {@code defaultValue} is the typed default the reader uses (a
 * {@link Long} of bytes for a size, a {@link Duration}, an {@link Integer}, a {@link Boolean} or a {@link String}), or
 * null when the default depends on other keys or the machine; {@code defaultText} is what the docs show then (empty:
 * no default). The checks stay in the readers, since many cross several keys (both or neither, alias, only with); the
 * {@code rule} says them in words.
 */
record ConfigKey(String name, Type type, Origin origin, Scope scope, Object defaultValue, String defaultText,
                 String rule, String doc) {
    /** How a value is written in the file; {@link #label} is how the docs name it. */
    enum Type {
        STRING("string"), SECRET("string, secret"), BOOLEAN("boolean"), INTEGER("integer"),
        SIZE("size (`8MiB`, `10MB`, bytes)"), DURATION("duration (`100ms`, `1h 30m`)"), CHOICE("choice"),
        PATH("path"), TABLE("table"), TABLES("array of tables"), STRINGS("array of strings");

        final String label;

        Type(String label) {
            this.label = label;
        }
    }

    /** Where a key comes from: the Rust connector runtime's or sink's file (its meaning unchanged) or this sink. */
    enum Origin { UPSTREAM, OURS }

    /** Short names for the key tables' rows. */
    static final Origin UP = Origin.UPSTREAM;
    static final Origin OURS = Origin.OURS;

    /**
     * Where a key has an effect. {@code S3_STORE}: an option of an S3 bucket, without effect with
     * {@code storage_client = "filesystem"}; {@code OBJECT_SINK}: a key only the object sink's file knows (the table
     * sink warns of it as unknown).
     */
    enum Scope {
        EVERYWHERE(""), S3_STORE(" (S3)"), OBJECT_SINK(" (object sink)");

        final String mark;

        Scope(String mark) {
            this.mark = mark;
        }
    }

    ConfigKey {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(doc, "doc");
    }

    boolean s3Only() {
        return scope == Scope.S3_STORE;
    }

    long size() {
        return (Long) Objects.requireNonNull(defaultValue, name);
    }

    Duration duration() {
        return (Duration) Objects.requireNonNull(defaultValue, name);
    }

    int integer() {
        return (Integer) Objects.requireNonNull(defaultValue, name);
    }

    boolean bool() {
        return (Boolean) Objects.requireNonNull(defaultValue, name);
    }

    String string() {
        return (String) Objects.requireNonNull(defaultValue, name);
    }

    /** The default as the file would write it. */
    String shownDefault() {
        if (defaultValue == null) return defaultText == null ? "" : defaultText;
        return switch (type) {
            case SIZE -> "`" + Sizes.format(size()) + "`";
            case DURATION -> "`" + Durations.format(duration()) + "`";
            case STRING, CHOICE, PATH, SECRET -> defaultValue.toString().isEmpty() ? "`\"\"`"
                    : "`" + defaultValue + "`";
            default -> String.valueOf(defaultValue);
        };
    }

    /** This key's row of the docs' table. */
    String markdownRow() {
        return "| `" + name + '`' + scope.mark + " | " + type.label + " | " + shownDefault() + " | " + rule
                + " | " + doc + " |\n";
    }
}
