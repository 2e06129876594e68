package dev.iggysink.adapters.format.columnar;

import dev.iggysink.adapters.format.json.Json;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;

/**
 * A {@link Json} tree to the Avro generic value of a schema, in the representation the schema stores (no logical-type
 * conversions: a timestamp is its {@code long}, a decimal its two's-complement bytes), so any writer with
 * {@code GenericData.get()} writes it.
 *
 * <p>Coercion follows Avro's JSON encoding where it is unambiguous, and is lenient where plain JSON producers differ:
 * <ul>
 *   <li>int/long: integers in range (an integral float such as {@code 2.0} too); float/double: any number, and the
 *       strings {@code NaN}, {@code Infinity}, {@code -Infinity}; string, boolean, null as themselves.</li>
 *   <li>bytes/fixed: a string whose chars are the bytes (code points 0..255), as Avro's JSON encoding says.</li>
 *   <li>unions: a plain value goes to the first branch it fits ({@code null} to the null branch); Avro's tagged form
 *       {@code {"long": 5}} is accepted too when no branch takes the object as it is.</li>
 *   <li>a missing field takes its schema default, else null when the field is nullable; unknown fields are dropped.</li>
 *   <li>logical types: timestamp-/local-timestamp- millis/micros/nanos from numbers or RFC 3339 strings, date from
 *       days or {@code yyyy-mm-dd}, time-millis/micros from numbers or {@code hh:mm:ss[.f]}, decimal from numbers or
 *       decimal strings (no rounding: more digits than the scale is a mismatch), uuid from its canonical string.</li>
 * </ul>
 * Thread-safe (stateless).
 */
final class JsonToAvro {
    private JsonToAvro() {
    }

    /** Why a value does not fit; the message names the field path ({@code user.tags[2]}). */
    static final class Mismatch extends Exception {
        private static final long serialVersionUID = 1L;
        Mismatch(String message) {
            super(message, null, false, false);
        }
    }

    /** Converts a JSON object to a record of {@code schema} (a record schema). */
    static GenericData.Record record(Schema schema, Object json) throws Mismatch {
        return (GenericData.Record) convert(schema, json, "");
    }

    static Object convert(Schema schema, Object v, String path) throws Mismatch {
        LogicalType logical = schema.getLogicalType();
        if (logical != null && v != Json.NULL) return logical(schema, logical, v, path);
        return plain(schema, v, path);
    }

    /** The conversion by the schema's own type, its logical type aside. */
    private static Object plain(Schema schema, Object v, String path) throws Mismatch {
        switch (schema.getType()) {
            case NULL:
                if (v == Json.NULL) return null;
                throw mismatch(path, schema, v);
            case BOOLEAN:
                if (v instanceof Boolean) return v;
                throw mismatch(path, schema, v);
            case INT:
                return Math.toIntExact(integral(v, Integer.MIN_VALUE, Integer.MAX_VALUE, path, schema));
            case LONG:
                return integral(v, Long.MIN_VALUE, Long.MAX_VALUE, path, schema);
            case FLOAT:
                return (float) floating(v, path, schema);
            case DOUBLE:
                return floating(v, path, schema);
            case STRING:
                if (v instanceof String) return v;
                throw mismatch(path, schema, v);
            case BYTES:
                return ByteBuffer.wrap(latin1(v, path, schema));
            case FIXED: {
                byte[] b = latin1(v, path, schema);
                if (b.length != schema.getFixedSize()) {
                    throw new Mismatch(where(path) + "fixed " + schema.getFullName() + " needs "
                            + schema.getFixedSize() + " bytes, got " + b.length);
                }
                return new GenericData.Fixed(schema, b);
            }
            case ENUM:
                return enumSymbol(schema, v, path);
            case ARRAY:
                return array(schema, v, path);
            case MAP:
                return map(schema, v, path);
            case RECORD:
                return recordOf(schema, v, path);
            case UNION:
                return union(schema, v, path);
            default:
                throw mismatch(path, schema, v);
        }
    }

    private static GenericData.Record recordOf(Schema schema, Object v, String path) throws Mismatch {
        if (!(v instanceof Map<?, ?> m)) throw mismatch(path, schema, v);
        GenericData.Record r = new GenericData.Record(schema);
        for (Schema.Field f : schema.getFields()) {
            String fieldPath = path.isEmpty() ? f.name() : path + "." + f.name();
            Object value = m.get(f.name());
            if (value == null) {
                r.put(f.pos(), missing(f, fieldPath));
            } else {
                r.put(f.pos(), convert(f.schema(), value, fieldPath));
            }
        }
        return r;
    }

    /**
     * A field absent from the JSON: its schema default (Avro's own reading of it, a fresh copy per record, in the
     * stored representation), else null when the field is nullable.
     */
    private static Object missing(Schema.Field f, String path) throws Mismatch {
        if (f.hasDefaultValue()) {
            try {
                return GenericData.get().getDefaultValue(f);
            } catch (RuntimeException e) {
                throw new Mismatch(where(path) + "missing, and its default cannot be used: " + e.getMessage());
            }
        }
        if (nullable(f.schema())) return null;
        throw new Mismatch(where(path) + "missing, and the field has no default and is not nullable");
    }

    private static boolean nullable(Schema s) {
        if (s.getType() == Schema.Type.NULL) return true;
        if (s.getType() != Schema.Type.UNION) return false;
        for (Schema b : s.getTypes()) if (b.getType() == Schema.Type.NULL) return true;
        return false;
    }

    private static List<Object> array(Schema schema, Object v, String path) throws Mismatch {
        if (!(v instanceof List<?> list)) throw mismatch(path, schema, v);
        List<Object> out = new GenericData.Array<>(list.size(), schema);
        for (int i = 0; i < list.size(); i++) out.add(convert(schema.getElementType(), list.get(i), path + "[" + i + "]"));
        return out;
    }

    private static Map<String, Object> map(Schema schema, Object v, String path) throws Mismatch {
        if (!(v instanceof Map<?, ?> m)) throw mismatch(path, schema, v);
        Map<String, Object> out = new HashMap<>(Math.max(4, m.size() * 2));
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String key = (String) e.getKey();
            out.put(key, convert(schema.getValueType(), e.getValue(), path + "[\"" + key + "\"]"));
        }
        return out;
    }

    private static Object union(Schema schema, Object v, String path) throws Mismatch {
        List<Schema> branches = schema.getTypes();
        if (v == Json.NULL) {
            for (Schema b : branches) if (b.getType() == Schema.Type.NULL) return null;
            throw new Mismatch(where(path) + "null for a union without null: " + schema);
        }
        for (Schema b : branches) {
            if (b.getType() == Schema.Type.NULL) continue;
            try {
                return convert(b, v, path);
            } catch (Mismatch ignored) {
                // try the next branch; the error below names the union
            }
        }
        // Avro's own JSON encoding tags a union value with its branch: {"string": "x"}, {"com.acme.User": {...}}.
        if (v instanceof Map<?, ?> m && m.size() == 1) {
            Map.Entry<?, ?> e = m.entrySet().iterator().next();
            for (Schema b : branches) {
                if (b.getFullName().equals(e.getKey()) || b.getName().equals(e.getKey())) {
                    return convert(b, e.getValue(), path);
                }
            }
        }
        throw new Mismatch(where(path) + describe(v) + " fits no branch of " + schema);
    }

    private static Object enumSymbol(Schema schema, Object v, String path) throws Mismatch {
        if (v instanceof String s) {
            if (schema.hasEnumSymbol(s)) return new GenericData.EnumSymbol(schema, s);
            // The enum default is Avro's answer to a symbol the schema does not know.
            if (schema.getEnumDefault() != null) return new GenericData.EnumSymbol(schema, schema.getEnumDefault());
            throw new Mismatch(where(path) + "\"" + s + "\" is not a symbol of " + schema.getFullName() + " "
                    + schema.getEnumSymbols());
        }
        throw mismatch(path, schema, v);
    }

    // ---- primitives ----

    private static long integral(Object v, long min, long max, String path, Schema schema) throws Mismatch {
        long l;
        if (v instanceof Long x) {
            l = x;
        } else if (v instanceof Double d && d == Math.rint(d) && Math.abs(d) <= 0x1p53) {
            l = d.longValue();
        } else {
            throw mismatch(path, schema, v);
        }
        if (l < min || l > max) throw new Mismatch(where(path) + v + " is out of range for " + schema.getType());
        return l;
    }

    private static double floating(Object v, String path, Schema schema) throws Mismatch {
        if (v instanceof Double d) return d;
        if (v instanceof Long l) return l;
        if (v instanceof BigInteger b) return b.doubleValue();
        if (v instanceof String s) {
            switch (s) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                    return Double.NEGATIVE_INFINITY;
                default:
                    break;
            }
        }
        throw mismatch(path, schema, v);
    }

    private static byte[] latin1(Object v, String path, Schema schema) throws Mismatch {
        if (!(v instanceof String s)) throw mismatch(path, schema, v);
        byte[] out = new byte[s.length()];
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c > 0xFF) {
                throw new Mismatch(where(path) + "bytes are written as a string of code points 0..255 (Avro JSON); "
                        + "found U+" + Integer.toHexString(c));
            }
            out[i] = (byte) c;
        }
        return out;
    }

    // ---- logical types ----

    private static Object logical(Schema schema, LogicalType logical, Object v, String path) throws Mismatch {
        String name = logical.getName();
        try {
            switch (name) {
                case "timestamp-millis":
                case "timestamp-micros":
                case "timestamp-nanos":
                case "local-timestamp-millis":
                case "local-timestamp-micros":
                case "local-timestamp-nanos":
                    if (v instanceof String s) return timestamp(s, name);
                    return integral(v, Long.MIN_VALUE, Long.MAX_VALUE, path, schema);
                case "date":
                    if (v instanceof String s) return Math.toIntExact(LocalDate.parse(s).toEpochDay());
                    return Math.toIntExact(integral(v, Integer.MIN_VALUE, Integer.MAX_VALUE, path, schema));
                case "time-millis":
                    if (v instanceof String s) return Math.toIntExact(LocalTime.parse(s).toNanoOfDay() / 1_000_000L);
                    return Math.toIntExact(integral(v, 0, 86_400_000L - 1, path, schema));
                case "time-micros":
                    if (v instanceof String s) return LocalTime.parse(s).toNanoOfDay() / 1_000L;
                    return integral(v, 0, 86_400_000_000L - 1, path, schema);
                case "decimal":
                    return decimal(schema, (LogicalTypes.Decimal) logical, v, path);
                case "uuid":
                    return uuid(schema, v, path);
                default:
                    // A logical type this class does not know (a newer one) is written as its underlying type.
                    return plain(schema, v, path);
            }
        } catch (DateTimeParseException e) {
            throw new Mismatch(where(path) + "\"" + v + "\" is not a " + name + ": " + e.getMessage());
        } catch (ArithmeticException e) {
            throw new Mismatch(where(path) + v + " is out of range for " + name);
        }
    }

    /**
     * RFC 3339 ({@code 2026-03-16T14:02:31.5Z}, {@code +02:00}, a space for {@code T}) for instants; local timestamps
     * take the wall-clock text without an offset (an offset, if given, is ignored as Avro's local types have none).
     */
    private static long timestamp(String s, String logical) {
        String text = s.length() > 10 && s.charAt(10) == ' ' ? s.substring(0, 10) + 'T' + s.substring(11) : s;
        boolean local = logical.startsWith("local-");
        Instant instant;
        if (local) {
            LocalDateTime t;
            try {
                t = LocalDateTime.parse(text);
            } catch (DateTimeParseException e) {
                t = OffsetDateTime.parse(text).toLocalDateTime();
            }
            instant = t.toInstant(ZoneOffset.UTC);
        } else {
            instant = OffsetDateTime.parse(text).toInstant();
        }
        if (logical.endsWith("millis")) return instant.toEpochMilli();
        long seconds = instant.getEpochSecond();
        if (logical.endsWith("micros")) {
            return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), instant.getNano() / 1_000L);
        }
        return Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L), instant.getNano());
    }

    private static Object decimal(Schema schema, LogicalTypes.Decimal d, Object v, String path) throws Mismatch {
        BigDecimal value;
        try {
            if (v instanceof Long l) value = BigDecimal.valueOf(l);
            else if (v instanceof BigInteger b) value = new BigDecimal(b);
            // Double.toString is the shortest text that reads back as the same double: 12.34, not 12.339999...
            else if (v instanceof Double x && Double.isFinite(x)) value = new BigDecimal(Double.toString(x));
            else if (v instanceof String s) value = new BigDecimal(s.trim());
            else throw mismatch(path, schema, v);
        } catch (NumberFormatException e) {
            throw new Mismatch(where(path) + "\"" + v + "\" is not a decimal number");
        }
        // Integer digits first: "1e999999999" must be refused here, not expanded to a billion digits by setScale.
        if (value.signum() != 0 && value.precision() - value.scale() > d.getPrecision() - d.getScale()) {
            throw new Mismatch(where(path) + v + " has more than " + (d.getPrecision() - d.getScale())
                    + " digits before the point (decimal(" + d.getPrecision() + "," + d.getScale() + "))");
        }
        BigDecimal scaled;
        try {
            scaled = value.setScale(d.getScale(), RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new Mismatch(where(path) + v + " has more than " + d.getScale() + " decimal places");
        }
        if (scaled.precision() > d.getPrecision()) {
            throw new Mismatch(where(path) + v + " has more than " + d.getPrecision() + " digits (decimal("
                    + d.getPrecision() + "," + d.getScale() + "))");
        }
        byte[] twos = scaled.unscaledValue().toByteArray();
        if (schema.getType() == Schema.Type.BYTES) return ByteBuffer.wrap(twos);
        int size = schema.getFixedSize();
        if (twos.length > size) throw new Mismatch(where(path) + v + " does not fit in fixed(" + size + ")");
        byte[] fixed = new byte[size];
        byte pad = (byte) (scaled.signum() < 0 ? 0xFF : 0x00);
        int offset = size - twos.length;
        for (int i = 0; i < offset; i++) fixed[i] = pad;
        System.arraycopy(twos, 0, fixed, offset, twos.length);
        return new GenericData.Fixed(schema, fixed);
    }

    private static Object uuid(Schema schema, Object v, String path) throws Mismatch {
        if (!(v instanceof String s)) throw mismatch(path, schema, v);
        UUID u;
        try {
            u = UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            throw new Mismatch(where(path) + "\"" + s + "\" is not a UUID");
        }
        // UUID.fromString accepts short groups ("1-2-3-4-5"); the column should hold the canonical text.
        if (!u.toString().equalsIgnoreCase(s)) throw new Mismatch(where(path) + "\"" + s + "\" is not a canonical UUID");
        if (schema.getType() == Schema.Type.STRING) return s;
        if (schema.getType() == Schema.Type.FIXED && schema.getFixedSize() == 16) {
            ByteBuffer b = ByteBuffer.allocate(16);
            b.putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
            return new GenericData.Fixed(schema, b.array());
        }
        throw mismatch(path, schema, v);
    }

    // ---- messages ----

    private static Mismatch mismatch(String path, Schema schema, Object v) {
        return new Mismatch(where(path) + "expected " + typeName(schema) + ", got " + describe(v));
    }

    private static String where(String path) {
        return "field " + (path.isEmpty() ? "(root)" : path) + ": ";
    }

    private static String typeName(Schema s) {
        LogicalType l = s.getLogicalType();
        String base = switch (s.getType()) {
            case RECORD, ENUM, FIXED -> s.getType().getName() + " " + s.getFullName();
            default -> s.getType().getName();
        };
        return l == null ? base : base + " (" + l.getName() + ")";
    }

    /** The JSON kind of a tree value and a short rendering; values are cut so a message stays one line. */
    static String describe(Object v) {
        String kind;
        if (v == Json.NULL) return "null";
        if (v instanceof String) kind = "string";
        else if (v instanceof Boolean) kind = "boolean";
        else if (v instanceof Long || v instanceof BigInteger) kind = "integer";
        else if (v instanceof Double) kind = "number";
        else if (v instanceof Map) return "object";
        else if (v instanceof List) return "array";
        else kind = v == null ? "nothing" : v.getClass().getSimpleName();
        String text = String.valueOf(v);
        if (text.length() > 40) text = text.substring(0, 40) + "...";
        return kind + " " + (v instanceof String ? "\"" + text + "\"" : text);
    }
}
