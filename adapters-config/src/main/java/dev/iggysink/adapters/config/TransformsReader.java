package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.application.settings.TransformSettings.AddFields;
import dev.iggysink.application.settings.TransformSettings.Computed;
import dev.iggysink.application.settings.TransformSettings.Condition;
import dev.iggysink.application.settings.TransformSettings.DeleteFields;
import dev.iggysink.application.settings.TransformSettings.FieldPattern;
import dev.iggysink.application.settings.TransformSettings.FieldValue;
import dev.iggysink.application.settings.TransformSettings.FilterFields;
import dev.iggysink.application.settings.TransformSettings.KeyMatch;
import dev.iggysink.application.settings.TransformSettings.UnwrapEnvelope;
import dev.iggysink.application.settings.TransformSettings.UpdateField;
import dev.iggysink.application.settings.TransformSettings.UpdateFields;
import dev.iggysink.application.settings.TransformSettings.ValueMatch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import tools.jackson.databind.JsonNode;

/**
 * Reads {@code [transforms]}: a table keyed by transform type, each with a required {@code enabled}. Enabled ones
 * are returned in file order (the order we apply them). The format conversions ({@code avro_convert} and friends)
 * have no settings here yet, so enabling one is an error rather than a silent change of output.
 */
final class TransformsReader {
    static final List<String> TYPES = List.of("add_fields", "delete_fields", "update_fields", "filter_fields",
            "unwrap_envelope", "avro_convert", "proto_convert", "flat_buffer_convert");
    private static final List<String> UNSUPPORTED = List.of("avro_convert", "proto_convert", "flat_buffer_convert");
    private static final Map<String, Computed> COMPUTED = enumWords(Computed.values());
    private static final Map<String, Condition> CONDITIONS = enumWords(Condition.values());
    private static final Map<String, KeyMatch> KEY_MATCHES = enumWords(KeyMatch.values());
    private static final Map<String, ValueMatch> VALUE_WORDS = Map.of(
            "is_null", ValueMatch.IS_NULL, "is_not_null", ValueMatch.IS_NOT_NULL, "is_string", ValueMatch.IS_STRING,
            "is_number", ValueMatch.IS_NUMBER, "is_boolean", ValueMatch.IS_BOOLEAN, "is_object", ValueMatch.IS_OBJECT,
            "is_array", ValueMatch.IS_ARRAY);
    private static final List<String> VALUE_TABLE_KEYS = List.of("equals", "contains", "regex", "greater_than",
            "less_than", "between");

    private TransformsReader() {
    }

    static List<TransformSettings> read(Table transforms) {
        List<TransformSettings> result = new ArrayList<>();
        List<String> order = new ArrayList<>();
        for (String type : transforms.keys()) {
            if (!TYPES.contains(type)) {
                String hint = Suggestions.closest(type, TYPES).map(k -> "; did you mean " + k + "?").orElse("");
                transforms.error(type, "unknown transform type (expected one of " + String.join(", ", TYPES) + hint
                        + ")");
                continue;
            }
            Table t = transforms.table(type);
            Optional<Boolean> enabled = t.requiredBool("enabled");
            if (enabled.isEmpty() || !enabled.get()) {
                continue;
            }
            if (UNSUPPORTED.contains(type)) {
                transforms.error(type, "is not supported by this sink yet; set enabled = false or remove it");
                continue;
            }
            Optional<TransformSettings> read = switch (type) {
                case "add_fields" -> addFields(t);
                case "delete_fields" -> deleteFields(t);
                case "update_fields" -> updateFields(t);
                case "filter_fields" -> filterFields(t);
                case "unwrap_envelope" -> unwrapEnvelope(t);
                default -> Optional.empty();
            };
            read.ifPresent(result::add);
            order.add(type);
        }
        if (order.size() > 1) {
            transforms.problems().notice("transforms run in file order: " + String.join(", ", order)
                    + " (the Rust runtime does not specify an order)");
        }
        return result;
    }

    private static Optional<TransformSettings> addFields(Table t) {
        t.warnUnknown(List.of("enabled", "fields"));
        List<FieldValue> fields = new ArrayList<>();
        if (!t.has("fields")) {
            t.missing("fields");
        }
        for (Table f : t.tables("fields")) {
            f.warnUnknown(List.of("key", "value"));
            fieldValue(f).ifPresent(fields::add);
        }
        return Optional.of(new AddFields(fields));
    }

    private static Optional<TransformSettings> updateFields(Table t) {
        t.warnUnknown(List.of("enabled", "fields"));
        List<UpdateField> fields = new ArrayList<>();
        if (!t.has("fields")) {
            t.missing("fields");
        }
        for (Table f : t.tables("fields")) {
            f.warnUnknown(List.of("key", "value", "condition"));
            Optional<FieldValue> value = fieldValue(f);
            Condition condition = f.choice("condition", CONDITIONS, false, "always, key_exists, key_not_exists")
                    .orElse(Condition.ALWAYS);
            value.ifPresent(v -> fields.add(new UpdateField(v, condition)));
        }
        return Optional.of(new UpdateFields(fields));
    }

    /** {@code key} plus {@code value = { static = <any> }} or {@code value = { computed = "<kind>" }}. */
    private static Optional<FieldValue> fieldValue(Table f) {
        Optional<String> key = f.requiredNonEmpty("key");
        if (!f.has("value")) {
            f.missing("value");
            return Optional.empty();
        }
        Table value = f.table("value");
        value.warnUnknown(List.of("static", "computed"));
        boolean hasStatic = value.has("static");
        boolean hasComputed = value.has("computed");
        if (hasStatic == hasComputed) {
            f.error("value", "expected exactly one of value.static or value.computed");
            return Optional.empty();
        }
        if (key.isEmpty()) {
            return Optional.empty();
        }
        if (hasStatic) {
            return Optional.of(new FieldValue(key.get(), Optional.of(plain(value.raw("static").orElseThrow())),
                    Optional.empty()));
        }
        return value.choice("computed", COMPUTED, false, "date_time, timestamp_nanos, timestamp_micros, "
                        + "timestamp_millis, timestamp_seconds, uuid_v4, uuid_v7")
                .map(c -> new FieldValue(key.get(), Optional.empty(), Optional.of(c)));
    }

    private static Optional<TransformSettings> deleteFields(Table t) {
        t.warnUnknown(List.of("enabled", "fields"));
        if (!t.has("fields")) {
            t.missing("fields");
            return Optional.empty();
        }
        return t.stringList("fields").map(DeleteFields::new);
    }

    private static Optional<TransformSettings> unwrapEnvelope(Table t) {
        t.warnUnknown(List.of("enabled", "field"));
        return t.requiredNonEmpty("field").map(UnwrapEnvelope::new);
    }

    private static Optional<TransformSettings> filterFields(Table t) {
        t.warnUnknown(List.of("enabled", "keep_fields", "patterns", "include_matching"));
        List<String> keep = t.stringList("keep_fields").orElse(List.of());
        boolean includeMatching = t.bool("include_matching", true);
        List<FieldPattern> patterns = new ArrayList<>();
        for (Table p : t.tables("patterns")) {
            p.warnUnknown(List.of("key_pattern", "value_pattern"));
            pattern(p).ifPresent(patterns::add);
        }
        return Optional.of(new FilterFields(keep, patterns, includeMatching));
    }

    private static Optional<FieldPattern> pattern(Table p) {
        int before = p.problems().errorCount();
        Optional<KeyMatch> keyMatch = Optional.empty();
        Optional<String> keyOperand = Optional.empty();
        if (p.has("key_pattern")) {
            Table key = p.table("key_pattern");
            key.warnUnknown(KEY_MATCHES.keySet());
            List<String> present = key.keys().stream().filter(KEY_MATCHES::containsKey).toList();
            if (present.size() != 1) {
                p.error("key_pattern", "expected exactly one of exact, starts_with, ends_with, contains, regex");
            } else {
                String kind = present.get(0);
                keyMatch = Optional.of(KEY_MATCHES.get(kind));
                keyOperand = key.requiredString(kind);
                if (keyMatch.get() == KeyMatch.REGEX) {
                    keyOperand.ifPresent(r -> checkRegex(key, kind, r));
                }
            }
        }
        Optional<ValueMatch> valueMatch = Optional.empty();
        List<Object> operands = new ArrayList<>();
        Optional<JsonNode> vp = p.raw("value_pattern");
        if (vp.isPresent() && vp.get().isString()) {
            valueMatch = p.choice("value_pattern", VALUE_WORDS, false, String.join(", ", VALUE_WORDS.keySet()
                    .stream().sorted().toList()) + " or a table");
        } else if (vp.isPresent()) {
            Table value = p.table("value_pattern");
            value.warnUnknown(VALUE_TABLE_KEYS);
            List<String> present = value.keys().stream().filter(VALUE_TABLE_KEYS::contains).toList();
            if (present.size() != 1) {
                p.error("value_pattern", "expected exactly one of " + String.join(", ", VALUE_TABLE_KEYS));
            } else {
                String kind = present.get(0);
                valueMatch = Optional.of(ValueMatch.valueOf(kind.toUpperCase(Locale.ROOT)));
                JsonNode operand = value.raw(kind).orElseThrow();
                switch (kind) {
                    case "contains", "regex" -> value.string(kind).ifPresent(s -> {
                        operands.add(s);
                        if (kind.equals("regex")) {
                            checkRegex(value, kind, s);
                        }
                    });
                    case "greater_than", "less_than" -> {
                        if (operand.isNumber()) {
                            operands.add(plain(operand));
                        } else {
                            value.error(kind, "expected a number, got " + Table.describe(operand));
                        }
                    }
                    case "between" -> {
                        if (operand.isArray() && operand.size() == 2 && operand.get(0).isNumber()
                                && operand.get(1).isNumber()) {
                            operands.add(plain(operand.get(0)));
                            operands.add(plain(operand.get(1)));
                        } else {
                            value.error(kind, "expected [low, high] numbers, got " + Table.describe(operand));
                        }
                    }
                    default -> operands.add(plain(operand));
                }
            }
        }
        if (keyMatch.isEmpty() && valueMatch.isEmpty() && p.problems().errorCount() == before) {
            p.problems().error(p.path(), "expected key_pattern, value_pattern or both");
        }
        if (p.problems().errorCount() > before) {
            return Optional.empty();
        }
        return Optional.of(new FieldPattern(keyMatch, keyOperand, valueMatch, operands));
    }

    private static void checkRegex(Table table, String key, String regex) {
        try {
            Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            table.error(key, "\"" + regex + "\" is not a valid regular expression: " + e.getDescription());
        }
    }

    /** A TOML value as the plain Java value {@link TransformSettings} documents. */
    static Object plain(JsonNode node) {
        if (node.isString()) {
            return node.stringValue();
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        if (node.isIntegralNumber()) {
            return node.canConvertToLong() ? (Object) node.longValue() : node.decimalValue();
        }
        if (node.isNumber()) {
            return node.isBigDecimal() ? node.decimalValue() : (Object) node.doubleValue();
        }
        if (node.isArray()) {
            List<Object> list = new ArrayList<>();
            node.forEach(n -> list.add(plain(n)));
            return List.copyOf(list);
        }
        if (node.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            node.forEachEntry((k, v) -> map.put(k, plain(v)));
            return java.util.Collections.unmodifiableMap(map);
        }
        return TransformSettings.JSON_NULL;
    }

    private static <E extends Enum<E>> Map<String, E> enumWords(E[] values) {
        Map<String, E> words = new LinkedHashMap<>();
        for (E e : values) {
            words.put(e.name().toLowerCase(Locale.ROOT), e);
        }
        return Map.copyOf(words);
    }
}
