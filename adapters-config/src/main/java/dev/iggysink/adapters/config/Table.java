package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.Secret;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Typed, error-collecting reads of one TOML table. Every getter returns empty when the key is absent or its value is
 * wrong, and in the latter case records an error naming the key path and what was expected; callers then go on, so
 * that one load reports every mistake. Values set from the environment are named with their variable, and may be
 * read as strings even when type inference made them numbers (a bucket called {@code 2024} is still a bucket).
 */
final class Table {
    static final String SIZE_EXAMPLE = "(e.g. 8MiB, 10MB)";
    static final String DURATION_EXAMPLE = "(e.g. 100ms, 1s, 5m, 1h 30m)";

    private final JsonNode node;
    private final String path;
    private final Problems problems;
    private final Map<String, String> envOrigins;

    Table(JsonNode node, String path, Problems problems, Map<String, String> envOrigins) {
        this.node = node == null || !node.isObject() ? JsonNodeFactory.instance.objectNode() : node;
        this.path = path;
        this.problems = problems;
        this.envOrigins = envOrigins;
    }

    String path() {
        return path;
    }

    String path(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    Problems problems() {
        return problems;
    }

    boolean has(String key) {
        return node.has(key);
    }

    Optional<JsonNode> raw(String key) {
        return Optional.ofNullable(node.get(key));
    }

    Collection<String> keys() {
        return node.propertyNames();
    }

    /** Records an error at {@code key}, naming the environment variable when the value came from one. */
    void error(String key, String message) {
        String full = path(key);
        String origin = envOrigins.get(full);
        problems.error(full, origin == null ? message : message + " (from " + origin + ")");
    }

    void missing(String key) {
        error(key, "required key is missing");
    }

    /** A sub-table; a non-table value is an error and reads as an empty table. */
    Table table(String key) {
        JsonNode value = node.get(key);
        if (value != null && !value.isObject()) {
            error(key, "expected a table, got " + describe(value));
        }
        return new Table(value, path(key), problems, envOrigins);
    }

    /** The elements of an array of tables ({@code [[streams]]}); a non-array is an error and reads as none. */
    List<Table> tables(String key) {
        JsonNode value = node.get(key);
        List<Table> result = new ArrayList<>();
        if (value == null) {
            return result;
        }
        if (!value.isArray()) {
            error(key, "expected an array of tables, got " + describe(value));
            return result;
        }
        for (int i = 0; i < value.size(); i++) {
            JsonNode element = value.get(i);
            String elementPath = path(key) + "[" + i + "]";
            if (!element.isObject()) {
                problems.error(elementPath, "expected a table, got " + describe(element));
            }
            result.add(new Table(element, elementPath, problems, envOrigins));
        }
        return result;
    }

    Optional<String> string(String key) {
        return string(key, false);
    }

    String string(String key, String defaultValue) {
        return string(key).orElse(defaultValue);
    }

    Optional<String> requiredString(String key) {
        if (!has(key)) {
            missing(key);
            return Optional.empty();
        }
        return string(key);
    }

    /** A required string that must not be empty (or blank). */
    Optional<String> requiredNonEmpty(String key) {
        Optional<String> value = requiredString(key);
        if (value.isPresent() && value.get().isBlank()) {
            error(key, "must not be empty");
            return Optional.empty();
        }
        return value;
    }

    /** A credential: type errors never show the value. */
    Optional<Secret> secret(String key) {
        return string(key, true).map(Secret::of);
    }

    private Optional<String> string(String key, boolean secret) {
        JsonNode value = node.get(key);
        if (value == null) {
            return Optional.empty();
        }
        if (value.isString()) {
            return Optional.of(value.stringValue());
        }
        if (fromEnv(key) && value.isValueNode() && !value.isNull()) {
            return Optional.of(value.asString());
        }
        error(key, "expected a string, got " + (secret ? kind(value) + " (value not shown)" : describe(value)));
        return Optional.empty();
    }

    Optional<Boolean> bool(String key) {
        JsonNode value = node.get(key);
        if (value == null) {
            return Optional.empty();
        }
        if (value.isBoolean()) {
            return Optional.of(value.booleanValue());
        }
        error(key, "expected true or false, got " + describe(value));
        return Optional.empty();
    }

    boolean bool(String key, boolean defaultValue) {
        return bool(key).orElse(defaultValue);
    }

    Optional<Boolean> requiredBool(String key) {
        if (!has(key)) {
            missing(key);
            return Optional.empty();
        }
        return bool(key);
    }

    Optional<Long> integer(String key) {
        JsonNode value = node.get(key);
        if (value == null) {
            return Optional.empty();
        }
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            return Optional.of(value.longValue());
        }
        error(key, "expected an integer, got " + describe(value));
        return Optional.empty();
    }

    /** An integer that must be at least {@code min} and fit an int. */
    Optional<Integer> intAtLeast(String key, int min) {
        Optional<Long> value = integer(key);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        long v = value.get();
        if (v < min || v > Integer.MAX_VALUE) {
            error(key, v + " is out of range (expected " + min + " to " + Integer.MAX_VALUE + ")");
            return Optional.empty();
        }
        return Optional.of((int) v);
    }

    /** A byte size: an integer or a string such as {@code 8MiB}. */
    Optional<Long> size(String key) {
        JsonNode value = node.get(key);
        if (value == null) {
            return Optional.empty();
        }
        if (value.isIntegralNumber() && value.canConvertToLong() && value.longValue() >= 0) {
            return Optional.of(value.longValue());
        }
        if (value.isString()) {
            try {
                return Optional.of(Sizes.parse(value.stringValue()));
            } catch (IllegalArgumentException e) {
                error(key, describe(value) + " is not a size " + SIZE_EXAMPLE);
                return Optional.empty();
            }
        }
        error(key, describe(value) + " is not a size " + SIZE_EXAMPLE);
        return Optional.empty();
    }

    /** A size that must be at least {@code min} bytes. */
    Optional<Long> sizeAtLeast(String key, long min) {
        Optional<Long> value = size(key);
        if (value.isPresent() && value.get() < min) {
            error(key, describe(node.get(key)) + " is too small (at least " + Sizes.format(min) + ")");
            return Optional.empty();
        }
        return value;
    }

    /**
     * A humantime duration string; the integer {@code 0} is also accepted (environment inference turns "0" into one).
     * With {@code iggyWords}, {@code none}, {@code disabled} and {@code unlimited} mean zero.
     */
    Optional<Duration> duration(String key, boolean iggyWords) {
        JsonNode value = node.get(key);
        if (value == null) {
            return Optional.empty();
        }
        if (value.isIntegralNumber() && value.canConvertToLong() && value.longValue() == 0) {
            return Optional.of(Duration.ZERO);
        }
        if (value.isString()) {
            try {
                String text = value.stringValue();
                return Optional.of(iggyWords ? Durations.parseIggy(text) : Durations.parse(text));
            } catch (IllegalArgumentException e) {
                // fall through to the error below
            }
        }
        error(key, describe(value) + " is not a duration " + DURATION_EXAMPLE);
        return Optional.empty();
    }

    /**
     * One of a fixed set of words. {@code options} maps each accepted spelling (lower case when
     * {@code ignoreCase}) to its value; {@code expected} is how the error lists them.
     */
    <E> Optional<E> choice(String key, Map<String, E> options, boolean ignoreCase, String expected) {
        JsonNode value = node.get(key);
        if (value == null) {
            return Optional.empty();
        }
        if (value.isString()) {
            String text = value.stringValue();
            E found = options.get(ignoreCase ? text.toLowerCase(Locale.ROOT) : text);
            if (found != null) {
                return Optional.of(found);
            }
        }
        error(key, describe(value) + " is not one of " + expected);
        return Optional.empty();
    }

    <E> Optional<E> requiredChoice(String key, Map<String, E> options, boolean ignoreCase, String expected) {
        if (!has(key)) {
            missing(key);
            return Optional.empty();
        }
        return choice(key, options, ignoreCase, expected);
    }

    /** An array of strings; scalars inside an environment-provided array are read as their text. */
    Optional<List<String>> stringList(String key) {
        JsonNode value = node.get(key);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isArray()) {
            error(key, "expected an array of strings, got " + describe(value));
            return Optional.empty();
        }
        List<String> result = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < value.size(); i++) {
            JsonNode element = value.get(i);
            if (element.isString()) {
                result.add(element.stringValue());
            } else if (fromEnv(key) && element.isValueNode() && !element.isNull()) {
                result.add(element.asString());
            } else {
                problems.error(path(key) + "[" + i + "]", "expected a string, got " + describe(element));
                ok = false;
            }
        }
        return ok ? Optional.of(result) : Optional.empty();
    }

    /** Warns about every key not in {@code known}, suggesting the closest known one. */
    void warnUnknown(Collection<String> known) {
        for (String key : node.propertyNames()) {
            if (!known.contains(key)) {
                String hint = Suggestions.closest(key, known).map(k -> " (did you mean " + path(k) + "?)").orElse("");
                problems.warning("unknown key " + path(key) + hint);
            }
        }
    }

    private boolean fromEnv(String key) {
        return envOrigins.containsKey(path(key));
    }

    /** How a value is shown in a message: strings quoted, others as TOML would write them. */
    static String describe(JsonNode value) {
        if (value.isString()) {
            return "\"" + value.stringValue() + "\"";
        }
        if (value.isObject()) {
            return "a table";
        }
        if (value.isArray()) {
            return "an array";
        }
        return value.toString();
    }

    static String kind(JsonNode value) {
        if (value.isString()) {
            return "a string";
        }
        if (value.isBoolean()) {
            return "a boolean";
        }
        if (value.isIntegralNumber()) {
            return "an integer";
        }
        if (value.isNumber()) {
            return "a float";
        }
        if (value.isArray()) {
            return "an array";
        }
        if (value.isObject()) {
            return "a table";
        }
        return "a value";
    }
}
