package dev.iggysink.adapters.iceberg;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.domain.message.SinkRecord;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * One table schema's view of a JSON payload: each top-level column takes the payload's field of the same name,
 * converted to the column's type, nested structs, lists and maps alike. Columns named after Iggy's metadata
 * ({@code iggy_offset}, {@code iggy_timestamp}, ...) take the record's metadata instead, when the table has them.
 * Fields the table has no column for are left out. A value that does not convert is a bad record naming the field.
 */
final class RowConverter {
    /** JSON numbers with a fraction as BigDecimal: a double would round a decimal column's digits unseen. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();
    private static final java.util.regex.Pattern UUID_TEXT = java.util.regex.Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final Schema schema;

    RowConverter(Schema schema) {
        this.schema = schema;
    }

    Schema schema() {
        return schema;
    }

    /** The row of a record whose payload is JSON text. */
    Record convert(SinkRecord source) throws BadRecordException {
        JsonNode payload;
        try {
            payload = JSON.readTree(source.payload());
        } catch (JacksonException e) {
            throw new BadRecordException("the payload is not JSON: " + e.getOriginalMessage(), e);
        }
        return convert(source, payload);
    }

    Record convert(SinkRecord source, JsonNode payload) throws BadRecordException {
        if (payload == null || !payload.isObject()) {
            throw new BadRecordException("the payload is not a JSON object, and a table row needs one");
        }
        GenericRecord row = GenericRecord.create(schema);
        for (Types.NestedField column : schema.columns()) {
            Object value = metadata(column, source);
            if (value == null) value = value(column.type(), payload.get(column.name()), column.name());
            if (value == null && column.isRequired()) {
                throw new BadRecordException("field '" + column.name() + "' is missing, and the table requires it");
            }
            row.setField(column.name(), value);
        }
        return row;
    }

    private static Object metadata(Types.NestedField column, SinkRecord r) throws BadRecordException {
        Object value = switch (column.name()) {
            case "iggy_offset" -> r.offset();
            case "iggy_timestamp" -> micros(r.timestampMicros());
            case "iggy_origin_timestamp" -> micros(r.originTimestampMicros());
            case "iggy_partition_id" -> r.partition().partitionId();
            case "iggy_stream" -> r.partition().stream();
            case "iggy_topic" -> r.partition().topic();
            case "iggy_id" -> r.id().toString();
            default -> null;
        };
        if (value == null) return null;
        return fitMetadata(column, value);
    }

    /** Metadata in the column's own type: a timestamp column of either kind, or a long of microseconds. */
    private static Object fitMetadata(Types.NestedField column, Object value) throws BadRecordException {
        Type.TypeID id = column.type().typeId();
        if (value instanceof OffsetDateTime t) {
            if (id == Type.TypeID.TIMESTAMP) {
                return ((Types.TimestampType) column.type()).shouldAdjustToUTC() ? t : t.toLocalDateTime();
            }
            if (id == Type.TypeID.LONG) return t.toInstant().getEpochSecond() * 1_000_000 + t.getNano() / 1_000;
        } else if (value instanceof Long l) {
            if (id == Type.TypeID.LONG) return l;
            if (id == Type.TypeID.STRING) return l.toString();
        } else if (value instanceof Integer i) {
            if (id == Type.TypeID.INTEGER) return i;
            if (id == Type.TypeID.LONG) return i.longValue();
        } else if (value instanceof String s) {
            if (id == Type.TypeID.STRING) return s;
        }
        throw new BadRecordException("column '" + column.name() + "' holds Iggy metadata but is of type "
                + column.type() + ", which the metadata does not fit");
    }

    private static OffsetDateTime micros(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1_000L)
                .atOffset(ZoneOffset.UTC);
    }

    private static Object value(Type type, JsonNode node, String path) throws BadRecordException {
        if (node == null || node.isNull() || node.isMissingNode()) return null;
        try {
            return switch (type.typeId()) {
                case BOOLEAN -> {
                    if (!node.isBoolean()) throw mismatch(path, node, type);
                    yield node.booleanValue();
                }
                case INTEGER -> {
                    if (!node.isIntegralNumber() || !node.canConvertToInt()) throw mismatch(path, node, type);
                    yield node.intValue();
                }
                case LONG -> {
                    if (!node.isIntegralNumber() || !node.canConvertToLong()) throw mismatch(path, node, type);
                    yield node.longValue();
                }
                case FLOAT -> {
                    if (!node.isNumber()) throw mismatch(path, node, type);
                    float f = node.decimalValue().floatValue();
                    if (!Float.isFinite(f)) throw outOfRange(path, node, type);
                    yield f;
                }
                case DOUBLE -> {
                    if (!node.isNumber()) throw mismatch(path, node, type);
                    double d = node.decimalValue().doubleValue();
                    if (!Double.isFinite(d)) throw outOfRange(path, node, type);
                    yield d;
                }
                case DECIMAL -> decimal((Types.DecimalType) type, node, path);
                case STRING -> {
                    if (node.isString()) yield node.stringValue();
                    if (node.isNumber() || node.isBoolean()) yield node.asString();
                    throw mismatch(path, node, type);
                }
                case UUID -> {
                    // UUID.fromString also takes short groups ("1-1-1-1-1"), which no writer of UUIDs means
                    String text = text(node, path, type);
                    if (!UUID_TEXT.matcher(text).matches()) {
                        throw new BadRecordException("field '" + path + "' is \"" + text + "\", not a UUID"
                                + " (8-4-4-4-12 hex digits), which the column type uuid needs");
                    }
                    yield UUID.fromString(text);
                }
                case DATE -> LocalDate.parse(text(node, path, type));
                case TIME -> LocalTime.parse(text(node, path, type));
                case TIMESTAMP -> timestamp((Types.TimestampType) type, text(node, path, type));
                case BINARY -> ByteBuffer.wrap(Base64.getDecoder().decode(text(node, path, type)));
                case FIXED -> {
                    byte[] bytes = Base64.getDecoder().decode(text(node, path, type));
                    if (bytes.length != ((Types.FixedType) type).length()) throw mismatch(path, node, type);
                    yield bytes;
                }
                case STRUCT -> struct(type.asStructType(), node, path);
                case LIST -> list(type.asListType(), node, path);
                case MAP -> map(type.asMapType(), node, path);
                default -> throw new BadRecordException("field '" + path + "': the column type " + type
                        + " is not supported");
            };
        } catch (DateTimeParseException | IllegalArgumentException | ArithmeticException | JacksonException e) {
            throw new BadRecordException("field '" + path + "' does not fit the column type " + type + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * A JSON number or text at the column's scale: more digits after the point than the scale, or before it than
     * precision minus scale, would change the value, so they are refused rather than rounded.
     */
    private static BigDecimal decimal(Types.DecimalType type, JsonNode node, String path) throws BadRecordException {
        BigDecimal given;
        if (node.isNumber()) {
            given = node.decimalValue();
        } else if (node.isString()) {
            try {
                given = new BigDecimal(node.stringValue());
            } catch (NumberFormatException e) {
                throw new BadRecordException("field '" + path + "' is \"" + node.stringValue() + "\", not a decimal"
                        + " number, which the column type " + type + " needs");
            }
        } else {
            throw mismatch(path, node, type);
        }
        // Judged on the digits alone: setScale of "1e999999999" would build a billion-digit number first.
        BigDecimal digits = given.stripTrailingZeros();
        if (digits.scale() > type.scale()) {
            throw new BadRecordException("field '" + path + "' is " + shortText(given) + ", which has more digits"
                    + " after the point than the column type " + type + " keeps (" + type.scale()
                    + "): rounding would change it");
        }
        if (digits.signum() != 0 && digits.precision() - digits.scale() > type.precision() - type.scale()) {
            throw new BadRecordException("field '" + path + "' is " + shortText(given) + ", which has more digits"
                    + " before the point than the column type " + type + " holds ("
                    + (type.precision() - type.scale()) + ")");
        }
        return given.setScale(type.scale(), RoundingMode.UNNECESSARY);
    }

    private static String shortText(BigDecimal v) {
        String plain = Math.abs((long) v.scale()) > 64 ? v.toString() : v.toPlainString();
        return plain.length() > 80 ? plain.substring(0, 80) + "..." : plain;
    }

    private static BadRecordException outOfRange(String path, JsonNode node, Type type) {
        return new BadRecordException("field '" + path + "' is " + node.decimalValue() + ", beyond the range of the"
                + " column type " + type);
    }

    private static Object timestamp(Types.TimestampType type, String text) {
        if (type.shouldAdjustToUTC()) {
            try {
                return OffsetDateTime.parse(text).withOffsetSameInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException withoutOffset) {
                return LocalDateTime.parse(text).atOffset(ZoneOffset.UTC);
            }
        }
        try {
            return LocalDateTime.parse(text);
        } catch (DateTimeParseException withOffset) {
            return OffsetDateTime.parse(text).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
        }
    }

    private static String text(JsonNode node, String path, Type type) throws BadRecordException {
        if (!node.isString()) throw mismatch(path, node, type);
        return node.stringValue();
    }

    private static Record struct(Types.StructType type, JsonNode node, String path) throws BadRecordException {
        if (!node.isObject()) throw mismatch(path, node, type);
        GenericRecord out = GenericRecord.create(type);
        for (Types.NestedField f : type.fields()) {
            String at = path + "." + f.name();
            Object v = value(f.type(), node.get(f.name()), at);
            if (v == null && f.isRequired()) throw new BadRecordException("field '" + at + "' is missing");
            out.setField(f.name(), v);
        }
        return out;
    }

    private static List<Object> list(Types.ListType type, JsonNode node, String path) throws BadRecordException {
        if (!node.isArray()) throw mismatch(path, node, type);
        List<Object> out = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            Object v = value(type.elementType(), node.get(i), path + "[" + i + "]");
            if (v == null && type.isElementRequired()) {
                throw new BadRecordException("field '" + path + "[" + i + "]' is null in a list of required values");
            }
            out.add(v);
        }
        return out;
    }

    private static Map<Object, Object> map(Types.MapType type, JsonNode node, String path) throws BadRecordException {
        if (!node.isObject()) throw mismatch(path, node, type);
        if (type.keyType().typeId() != Type.TypeID.STRING) {
            throw new BadRecordException("field '" + path + "': maps with keys of type " + type.keyType()
                    + " are not supported (JSON object keys are strings)");
        }
        Map<Object, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            Object v = value(type.valueType(), e.getValue(), path + "." + e.getKey());
            if (v == null && type.isValueRequired()) {
                throw new BadRecordException("field '" + path + "." + e.getKey() + "' is null in a map of required values");
            }
            out.put(e.getKey(), v);
        }
        return out;
    }

    private static BadRecordException mismatch(String path, JsonNode node, Type type) {
        return new BadRecordException("field '" + path + "' is " + describe(node) + ", which does not fit the column"
                + " type " + type);
    }

    private static String describe(JsonNode node) {
        if (node.isString()) return "a string";
        if (node.isIntegralNumber()) return "an integer";
        if (node.isNumber()) return "a number";
        if (node.isBoolean()) return "a boolean";
        if (node.isArray()) return "an array";
        if (node.isObject()) return "an object";
        return "a " + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    }
}
