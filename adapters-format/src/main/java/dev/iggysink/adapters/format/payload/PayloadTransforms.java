package dev.iggysink.adapters.format.payload;

import dev.iggysink.adapters.format.json.Json;
import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.application.settings.TransformSettings.Computed;
import dev.iggysink.application.settings.TransformSettings.FieldPattern;
import dev.iggysink.application.settings.TransformSettings.FieldValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The field transforms of the Rust SDK (sdk/src/transforms): each acts on a JSON-object payload and passes anything
 * else through unchanged; none drops a record. Applied in file order (upstream order is unspecified). Built once per
 * stream; thread-safe.
 */
public final class PayloadTransforms {
    private PayloadTransforms() {
    }

    /** One transform: payload in, payload out. */
    @FunctionalInterface
    public interface Step extends UnaryOperator<Payload> {
    }

    public static List<Step> build(List<TransformSettings> settings, InstantSource clock) {
        Values values = new Values(clock);
        List<Step> steps = new ArrayList<>();
        for (TransformSettings t : settings) {
            if (t instanceof TransformSettings.AddFields a) steps.add(addFields(a, values));
            else if (t instanceof TransformSettings.DeleteFields d) steps.add(deleteFields(d));
            else if (t instanceof TransformSettings.UpdateFields u) steps.add(updateFields(u, values));
            else if (t instanceof TransformSettings.FilterFields f) steps.add(filterFields(f));
            else if (t instanceof TransformSettings.UnwrapEnvelope u) steps.add(unwrapEnvelope(u));
            else throw new IllegalArgumentException("unknown transform " + t);
        }
        return List.copyOf(steps);
    }

    private static Step onObject(java.util.function.Consumer<Map<String, Object>> change) {
        return payload -> {
            if (payload instanceof Payload.JsonDoc doc && doc.objectOrNull() != null) change.accept(doc.objectOrNull());
            return payload;
        };
    }

    /** add_fields: insert or overwrite each key (new keys go last, an existing key keeps its place). */
    static Step addFields(TransformSettings.AddFields settings, Values values) {
        List<Setter> setters = settings.fields().stream().map(f -> new Setter(f, values)).toList();
        return onObject(map -> setters.forEach(s -> map.put(s.key, s.value())));
    }

    static Step deleteFields(TransformSettings.DeleteFields settings) {
        List<String> keys = settings.fields();
        return onObject(map -> keys.forEach(map::remove));
    }

    /** update_fields: like add_fields behind a per-field condition checked against the current object. */
    static Step updateFields(TransformSettings.UpdateFields settings, Values values) {
        record Conditional(Setter setter, TransformSettings.Condition condition) {
        }
        List<Conditional> fields = settings.fields().stream()
                .map(f -> new Conditional(new Setter(f.value(), values), f.condition())).toList();
        return onObject(map -> {
            for (Conditional c : fields) {
                boolean present = map.containsKey(c.setter.key);
                boolean pass = switch (c.condition) {
                    case ALWAYS -> true;
                    case KEY_EXISTS -> present;
                    case KEY_NOT_EXISTS -> !present;
                };
                if (pass) map.put(c.setter.key, c.setter.value());
            }
        });
    }

    /**
     * filter_fields: a key in keep_fields always stays; otherwise a field stays when it matches some pattern
     * (include_matching) or matches none (exclude). Nothing configured: nothing changes.
     */
    static Step filterFields(TransformSettings.FilterFields settings) {
        Set<String> keep = new HashSet<>(settings.keepFields());
        List<Matcher> patterns = settings.patterns().stream().map(Matcher::new).toList();
        boolean include = settings.includeMatching();
        if (keep.isEmpty() && patterns.isEmpty()) return payload -> payload;
        return onObject(map -> map.entrySet().removeIf(e -> {
            if (keep.contains(e.getKey())) return false;
            boolean matched = false;
            for (Matcher m : patterns) {
                if (m.matches(e.getKey(), e.getValue())) {
                    matched = true;
                    break;
                }
            }
            return include != matched;
        }));
    }

    /** unwrap_envelope: the payload becomes the field's value (of any type); a missing field changes nothing. */
    static Step unwrapEnvelope(TransformSettings.UnwrapEnvelope settings) {
        String field = settings.field();
        return payload -> {
            if (payload instanceof Payload.JsonDoc doc && doc.objectOrNull() != null
                    && doc.objectOrNull().containsKey(field)) {
                return new Payload.JsonDoc(doc.objectOrNull().remove(field));
            }
            return payload;
        };
    }

    /** A key and where its value comes from. */
    private static final class Setter {
        final String key;
        private final Object staticValue;
        private final Computed computed;
        private final Values values;

        Setter(FieldValue field, Values values) {
            this.key = field.key();
            this.staticValue = field.staticValue().map(PayloadTransforms::fromSetting).orElse(null);
            this.computed = field.computed().orElse(null);
            this.values = values;
        }

        Object value() {
            return computed != null ? values.compute(computed) : Json.copy(staticValue);
        }
    }

    /** One filter pattern: key and value conditions, both required when both are given. */
    private static final class Matcher {
        private final TransformSettings.KeyMatch keyMatch;
        private final String keyOperand;
        private final Pattern keyRegex;
        private final TransformSettings.ValueMatch valueMatch;
        private final List<Object> operands;
        private final Pattern valueRegex;

        Matcher(FieldPattern p) {
            keyMatch = p.keyMatch().orElse(null);
            keyOperand = p.keyOperand().orElse("");
            keyRegex = keyMatch == TransformSettings.KeyMatch.REGEX ? compile(keyOperand) : null;
            valueMatch = p.valueMatch().orElse(null);
            operands = p.valueOperands().stream().map(PayloadTransforms::fromSetting).toList();
            valueRegex = valueMatch == TransformSettings.ValueMatch.REGEX ? compile(text(0)) : null;
            int needed = switch (valueMatch == null ? TransformSettings.ValueMatch.IS_NULL : valueMatch) {
                case EQUALS, CONTAINS, REGEX, GREATER_THAN, LESS_THAN -> 1;
                case BETWEEN -> 2;
                default -> 0;
            };
            if (operands.size() < needed) {
                throw new IllegalArgumentException("filter_fields " + valueMatch + " needs " + needed + " value(s)");
            }
        }

        boolean matches(String key, Object value) {
            boolean keyOk = keyMatch == null || switch (keyMatch) {
                case EXACT -> key.equals(keyOperand);
                case STARTS_WITH -> key.startsWith(keyOperand);
                case ENDS_WITH -> key.endsWith(keyOperand);
                case CONTAINS -> key.contains(keyOperand);
                case REGEX -> keyRegex.matcher(key).find();
            };
            return keyOk && (valueMatch == null || valueMatches(value));
        }

        private boolean valueMatches(Object v) {
            return switch (valueMatch) {
                case EQUALS -> Json.same(v, operands.get(0));
                case CONTAINS -> v instanceof String s && s.contains(text(0));
                case REGEX -> v instanceof String s && valueRegex.matcher(s).find();
                // value-trait's as_f64 answers only for floats: an integer field never compares (upstream quirk).
                case GREATER_THAN -> v instanceof Double d && d > number(0);
                case LESS_THAN -> v instanceof Double d && d < number(0);
                case BETWEEN -> v instanceof Double d && d >= number(0) && d <= number(1);
                case IS_NULL -> v == Json.NULL;
                case IS_NOT_NULL -> v != Json.NULL;
                case IS_STRING -> v instanceof String;
                case IS_NUMBER -> Json.isNumber(v);
                case IS_BOOLEAN -> v instanceof Boolean;
                case IS_OBJECT -> v instanceof Map;
                case IS_ARRAY -> v instanceof List;
            };
        }

        private String text(int i) {
            Object o = operands.get(i);
            if (o instanceof String s) return s;
            throw new IllegalArgumentException("filter_fields " + valueMatch + " needs a string, got " + o);
        }

        private double number(int i) {
            Object o = operands.get(i);
            if (o instanceof Long l) return l;
            if (o instanceof Double d) return d;
            if (o instanceof BigInteger b) return b.doubleValue();
            throw new IllegalArgumentException("filter_fields " + valueMatch + " needs a number, got " + o);
        }

        private static Pattern compile(String regex) {
            try {
                return Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("filter_fields: invalid regex " + regex, e);
            }
        }
    }

    /** Computed values; "now" comes from the injected clock. */
    static final class Values {
        private final InstantSource clock;
        private final SecureRandom random = new SecureRandom();

        Values(InstantSource clock) {
            this.clock = clock;
        }

        Object compute(Computed kind) {
            Instant now = clock.instant();
            return switch (kind) {
                case DATE_TIME -> chronoRfc3339(now);
                case TIMESTAMP_NANOS -> Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000_000L),
                        now.getNano());
                case TIMESTAMP_MICROS -> Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L),
                        now.getNano() / 1_000);
                case TIMESTAMP_MILLIS -> now.toEpochMilli();
                case TIMESTAMP_SECONDS -> now.getEpochSecond();
                case UUID_V4 -> UUID.randomUUID().toString();
                case UUID_V7 -> uuidV7(now.toEpochMilli()).toString();
            };
        }

        /** RFC 9562 v7: 48-bit Unix milliseconds, version 7, 74 random bits. */
        UUID uuidV7(long millis) {
            long randA = random.nextInt(1 << 12);
            long msb = (millis << 16) | 0x7000L | randA;
            long lsb = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
            return new UUID(msb, lsb);
        }
    }

    /**
     * chrono's {@code Utc::now().to_rfc3339()}: {@code +00:00} (not Z) and 0, 3, 6 or 9 fraction digits, the fewest
     * that show the nanoseconds exactly.
     */
    public static String chronoRfc3339(Instant now) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(now.getEpochSecond(), 0, ZoneOffset.UTC);
        StringBuilder b = new StringBuilder(35);
        b.append(String.format("%04d-%02d-%02dT%02d:%02d:%02d", t.getYear(), t.getMonthValue(), t.getDayOfMonth(),
                t.getHour(), t.getMinute(), t.getSecond()));
        int nanos = now.getNano();
        if (nanos != 0) {
            if (nanos % 1_000_000 == 0) b.append(String.format(".%03d", nanos / 1_000_000));
            else if (nanos % 1_000 == 0) b.append(String.format(".%06d", nanos / 1_000));
            else b.append(String.format(".%09d", nanos));
        }
        return b.append("+00:00").toString();
    }

    /** A static value from the settings (String, Boolean, Long, Double, BigDecimal, List, Map, JSON_NULL). */
    static Object fromSetting(Object v) {
        if (v == TransformSettings.JSON_NULL || v == null) return Json.NULL;
        if (v instanceof String || v instanceof Boolean || v instanceof Long || v instanceof Double) return v;
        if (v instanceof Integer i) return i.longValue();
        if (v instanceof Float f) return f.doubleValue();
        if (v instanceof BigDecimal d) {
            if (d.scale() <= 0) {
                BigInteger i = d.toBigIntegerExact();
                if (i.bitLength() <= 63) return i.longValue();
                if (i.signum() > 0 && i.bitLength() <= 64) return i;
            }
            return d.doubleValue();
        }
        if (v instanceof List<?> list) {
            List<Object> out = new ArrayList<>();
            for (Object o : list) out.add(fromSetting(o));
            return out;
        }
        if (v instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            map.forEach((k, x) -> out.put(String.valueOf(k), fromSetting(x)));
            return out;
        }
        throw new IllegalArgumentException("unsupported static value type " + v.getClass().getName());
    }
}
