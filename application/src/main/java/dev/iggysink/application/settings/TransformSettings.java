package dev.iggysink.application.settings;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One enabled entry of {@code [transforms]}, applied in file order. Field transforms act on JSON-object payloads
 * only. Static values are plain JSON-like Java values: String, Boolean, Long, Double, java.math.BigDecimal,
 * List, Map (String keys), or {@link #JSON_NULL}.
 */
public sealed interface TransformSettings {

    /** Stands for a JSON {@code null} static value (a null reference would be ambiguous). */
    Object JSON_NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    enum Computed { DATE_TIME, TIMESTAMP_NANOS, TIMESTAMP_MICROS, TIMESTAMP_MILLIS, TIMESTAMP_SECONDS, UUID_V4, UUID_V7 }

    enum Condition { ALWAYS, KEY_EXISTS, KEY_NOT_EXISTS }

    /** A value to set: exactly one of a static value or a computed one. */
    record FieldValue(String key, Optional<Object> staticValue, Optional<Computed> computed) {
        public FieldValue {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(staticValue, "staticValue");
            Objects.requireNonNull(computed, "computed");
            if (staticValue.isPresent() == computed.isPresent()) {
                throw new IllegalArgumentException("field " + key + ": exactly one of static or computed");
            }
        }
    }

    record AddFields(List<FieldValue> fields) implements TransformSettings {
        public AddFields {
            fields = List.copyOf(fields);
        }
    }

    record DeleteFields(List<String> fields) implements TransformSettings {
        public DeleteFields {
            fields = List.copyOf(fields);
        }
    }

    record UpdateField(FieldValue value, Condition condition) {
        public UpdateField {
            Objects.requireNonNull(value, "value");
            Objects.requireNonNull(condition, "condition");
        }
    }

    record UpdateFields(List<UpdateField> fields) implements TransformSettings {
        public UpdateFields {
            fields = List.copyOf(fields);
        }
    }

    enum KeyMatch { EXACT, STARTS_WITH, ENDS_WITH, CONTAINS, REGEX }

    enum ValueMatch { EQUALS, CONTAINS, REGEX, GREATER_THAN, LESS_THAN, BETWEEN,
        IS_NULL, IS_NOT_NULL, IS_STRING, IS_NUMBER, IS_BOOLEAN, IS_OBJECT, IS_ARRAY }

    /**
     * A key and/or value condition of filter_fields. {@code keyOperand} goes with {@code keyMatch};
     * {@code valueOperands} holds one value (two for BETWEEN, none for the IS_ kinds).
     */
    record FieldPattern(Optional<KeyMatch> keyMatch, Optional<String> keyOperand, Optional<ValueMatch> valueMatch,
                        List<Object> valueOperands) {
        public FieldPattern {
            Objects.requireNonNull(keyMatch, "keyMatch");
            Objects.requireNonNull(keyOperand, "keyOperand");
            Objects.requireNonNull(valueMatch, "valueMatch");
            valueOperands = List.copyOf(valueOperands);
        }
    }

    record FilterFields(List<String> keepFields, List<FieldPattern> patterns, boolean includeMatching)
            implements TransformSettings {
        public FilterFields {
            keepFields = List.copyOf(keepFields);
            patterns = List.copyOf(patterns);
        }
    }

    record UnwrapEnvelope(String field) implements TransformSettings {
        public UnwrapEnvelope {
            Objects.requireNonNull(field, "field");
        }
    }
}
