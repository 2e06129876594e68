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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonRecyclerPools;

/**
 * One table schema's view of a JSON payload: each top-level column takes the payload's field of the same name,
 * converted to the column's type, nested structs, lists and maps alike. Columns named after Iggy's metadata
 * ({@code iggy_offset}, {@code iggy_timestamp}, ...) take the record's metadata instead, when the table has them.
 * Fields the table has no column for are left out. A value that does not convert is a bad record naming the field.
 * Values are Iceberg's internal ones, as its {@code InternalWriter} writes them and its partition transforms take them:
 * dates as days, times and timestamps as microseconds, fixed as a buffer; no {@code OffsetDateTime} is made per row.
 *
 * <p>The payload is read once, token by token, straight into the row: no tree of it is built. How each column is
 * read is resolved once per schema (a {@link Reader} per column, nested ones per field), not per value.
 */
final class RowConverter {
    /**
     * Each payload gets a parser, and each parser a buffer recycler: the default pool hands them out of a concurrent
     * deque (6-8 % of a table sink thread's samples); a thread's own recycler costs a thread-local read. The table
     * sink's threads are platform threads, each converting its tables' rows, so a thread's recycler is reused.
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .recyclerPool(JsonRecyclerPools.threadLocalPool()).build();
    private static final java.util.regex.Pattern UUID_TEXT = java.util.regex.Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    /** Reads the value at the parser's current token (not null) for the column or field at {@code path}. */
    @FunctionalInterface
    private interface Reader {
        Object read(JsonParser p, String path) throws BadRecordException;
    }

    /** A record metadata value in its column's type; a column the metadata does not fit throws. */
    @FunctionalInterface
    private interface Metadata {
        Object of(SinkRecord r) throws BadRecordException;
    }

    private final Schema schema;
    private final StructReader row;
    /** Per top-level position: the record's metadata it takes, or null for a payload column. */
    private final Metadata[] metadata;
    /** The quick way for flat ASCII payloads; null: every payload goes through Jackson. */
    private final FlatRows flat;

    RowConverter(Schema schema) {
        this(schema, true);
    }

    /** @param quick whether flat payloads are read without a parser ({@link FlatRows}); tests compare the two */
    RowConverter(Schema schema, boolean quick) {
        this.schema = schema;
        this.row = new StructReader(schema.asStruct(), true);
        List<Types.NestedField> columns = schema.columns();
        this.metadata = new Metadata[columns.size()];
        boolean[] fromMetadata = new boolean[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            metadata[i] = metadata(columns.get(i));
            fromMetadata[i] = metadata[i] != null;
        }
        this.flat = quick ? new FlatRows(schema.asStruct(), fromMetadata) : null;
    }

    Schema schema() {
        return schema;
    }

    /** The row of a record whose payload is JSON text. */
    Record convert(SinkRecord source) throws BadRecordException {
        return convert(source, source.payload());
    }

    /** The row of {@code source} with {@code payload} as its JSON text. */
    Record convert(SinkRecord source, byte[] payload) throws BadRecordException {
        GenericRecord quick = flat == null ? null : flat.read(payload);
        if (quick != null && complete(quick, source)) return quick;
        try (JsonParser p = JSON.createParser(new Bytes(payload), payload)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                if (p.currentToken() != null) wellFormedRest(p);
                throw new BadRecordException("the payload is not a JSON object, and a table row needs one");
            }
            GenericRecord out;
            try {
                out = row.readObject(p, null, metadata, source);
            } catch (BadRecordException bad) {
                wellFormedRest(p);
                throw bad;
            }
            if (p.nextToken() != null) throw trailing();
            return out;
        } catch (JacksonException e) {
            throw new BadRecordException("the payload is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Fills the metadata columns of a row read by {@link FlatRows}; false when a required column stays null, which
     * Jackson's reading then names.
     */
    private boolean complete(GenericRecord out, SinkRecord source) throws BadRecordException {
        List<Types.NestedField> columns = schema.columns();
        for (int i = 0; i < metadata.length; i++) {
            if (metadata[i] != null) out.set(i, metadata[i].of(source));
            else if (out.get(i) == null && columns.get(i).isRequired()) return false;
        }
        return true;
    }

    /**
     * Reads the rest of a payload found bad before its end: one that is not even JSON is named as such, as it was
     * when the payload was parsed whole before any value was converted.
     */
    private static void wellFormedRest(JsonParser p) throws BadRecordException {
        p.skipChildren();
        while (!p.streamReadContext().inRoot()) {
            if (p.nextToken() == null) throw new BadRecordException("the payload is not JSON: it ends too early");
            p.skipChildren();
        }
        if (p.nextToken() != null) throw trailing();
    }

    private static BadRecordException trailing() {
        return new BadRecordException("the payload is not JSON: more follows the first value");
    }

    private static Metadata metadata(Types.NestedField column) {
        Metadata raw = switch (column.name()) {
            case "iggy_offset" -> SinkRecord::offset;
            case "iggy_timestamp" -> r -> new Micros(r.timestampMicros());
            case "iggy_origin_timestamp" -> r -> new Micros(r.originTimestampMicros());
            case "iggy_partition_id" -> r -> r.partition().partitionId();
            case "iggy_stream" -> r -> r.partition().stream();
            case "iggy_topic" -> r -> r.partition().topic();
            case "iggy_id" -> r -> r.id().toString();
            default -> null;
        };
        if (raw == null) return null;
        return r -> fitMetadata(column, raw.of(r));
    }

    /** A metadata timestamp: microseconds since the epoch, UTC. */
    private record Micros(long value) {
    }

    /**
     * Metadata in the column's own type: a timestamp column of either kind (Iceberg's value of both is microseconds
     * since the epoch: a timestamp without zone holds the UTC time), or a long of microseconds.
     */
    private static Object fitMetadata(Types.NestedField column, Object value) throws BadRecordException {
        Type.TypeID id = column.type().typeId();
        if (value instanceof Micros t) {
            if (id == Type.TypeID.TIMESTAMP || id == Type.TypeID.LONG) return t.value();
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

    /** How a value of {@code type} is read; JSON null is null whatever the type, and is handled by the caller. */
    private static Reader reader(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN -> (p, path) -> switch (p.currentToken()) {
                case VALUE_TRUE -> Boolean.TRUE;
                case VALUE_FALSE -> Boolean.FALSE;
                default -> throw mismatch(path, p, type);
            };
            case INTEGER -> (p, path) -> {
                if (p.currentToken() != JsonToken.VALUE_NUMBER_INT
                        || p.getNumberType() != JsonParser.NumberType.INT) {
                    throw mismatch(path, p, type);
                }
                return p.getIntValue();
            };
            case LONG -> (p, path) -> {
                if (p.currentToken() != JsonToken.VALUE_NUMBER_INT
                        || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    throw mismatch(path, p, type);
                }
                return p.getLongValue();
            };
            case FLOAT -> (p, path) -> {
                if (!p.currentToken().isNumeric()) throw mismatch(path, p, type);
                BigDecimal exact = p.getDecimalValue();
                float f = exact.floatValue();
                if (!Float.isFinite(f)) throw outOfRange(path, exact, type);
                return f;
            };
            case DOUBLE -> (p, path) -> {
                if (!p.currentToken().isNumeric()) throw mismatch(path, p, type);
                // correctly rounded from the text, as the decimal's doubleValue is
                double d = p.getDoubleValue();
                if (!Double.isFinite(d)) throw outOfRange(path, p.getDecimalValue(), type);
                // -0.0 as 0.0, as it always was: the value went through a BigDecimal, which has no negative zero
                return d == 0.0 ? 0.0 : d;
            };
            case DECIMAL -> (p, path) -> decimal((Types.DecimalType) type, p, path);
            case STRING -> (p, path) -> switch (p.currentToken()) {
                case VALUE_STRING -> string(p, path);
                case VALUE_NUMBER_INT -> p.getNumberValue().toString();
                case VALUE_NUMBER_FLOAT -> p.getDecimalValue().toString();
                case VALUE_TRUE -> "true";
                case VALUE_FALSE -> "false";
                default -> throw mismatch(path, p, type);
            };
            case UUID -> (p, path) -> {
                // UUID.fromString also takes short groups ("1-1-1-1-1"), which no writer of UUIDs means
                String text = text(p, path, type);
                if (!UUID_TEXT.matcher(text).matches()) {
                    throw new BadRecordException("field '" + path + "' is \"" + text + "\", not a UUID"
                            + " (8-4-4-4-12 hex digits), which the column type uuid needs");
                }
                return UUID.fromString(text);
            };
            case DATE -> parsed(type, text -> Math.toIntExact(LocalDate.parse(text).toEpochDay()));
            case TIME -> parsed(type, text -> LocalTime.parse(text).toNanoOfDay() / 1_000);
            case TIMESTAMP -> parsed(type, text -> timestamp((Types.TimestampType) type, text));
            case BINARY -> (p, path) -> ByteBuffer.wrap(base64(p, path, type));
            case FIXED -> (p, path) -> {
                byte[] bytes = base64(p, path, type);
                if (bytes.length != ((Types.FixedType) type).length()) throw mismatch(path, p, type);
                return ByteBuffer.wrap(bytes);
            };
            case STRUCT -> new StructReader(type.asStructType(), false);
            case LIST -> list(type.asListType());
            case MAP -> map(type.asMapType());
            default -> (p, path) -> {
                throw new BadRecordException("field '" + path + "': the column type " + type + " is not supported");
            };
        };
    }

    /** The payload a parser reads, for the string values taken as their bytes. */
    private static final class Bytes extends ObjectReadContext.Base {
        final byte[] payload;

        Bytes(byte[] payload) {
            this.payload = payload;
        }
    }

    /**
     * A string column's value: without an escape, its UTF-8 bytes as they stand in the payload (Jackson checks
     * them as it skips the string, and refuses the payload if they are not UTF-8), which Iceberg's Parquet writer
     * takes as they are ({@link Utf8}); a {@code String} would be decoded from them and encoded back. With an escape, Jackson's text, refused when it holds a lone surrogate
     * (no UTF-8 can encode one; Parquet's writer would put a '?' for it).
     */
    private static CharSequence string(JsonParser p, String path) throws BadRecordException {
        if (p.objectReadContext() instanceof Bytes bytes) {
            byte[] in = bytes.payload;
            int quote = (int) p.currentTokenLocation().getByteOffset();
            if (quote >= 0 && quote < in.length && in[quote] == '"') {
                int end = JsonStrings.quoteOrBackslash(in, quote + 1);
                if (end < in.length && in[end] == '"') return new Utf8(Arrays.copyOfRange(in, quote + 1, end));
            }
        }
        String text = p.getString();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new BadRecordException("field '" + path + "' holds a lone surrogate (\\u"
                        + Integer.toHexString(c) + "), which no UTF-8 text can");
            }
        }
        return text;
    }

    /** A value of ISO text, parsed by {@code parse}. */
    private static Reader parsed(Type type, java.util.function.Function<String, Object> parse) {
        return (p, path) -> {
            String text = text(p, path, type);
            try {
                return parse.apply(text);
            } catch (java.time.DateTimeException | ArithmeticException e) {
                // past the microseconds (or days) Iceberg's value can count, as well as text that is no date
                throw unfit(path, type, e);
            }
        };
    }

    private static byte[] base64(JsonParser p, String path, Type type) throws BadRecordException {
        String text = text(p, path, type);
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw unfit(path, type, e);
        }
    }

    private static BadRecordException unfit(String path, Type type, RuntimeException e) {
        return new BadRecordException("field '" + path + "' does not fit the column type " + type + ": "
                + e.getMessage(), e);
    }

    /**
     * A JSON number or text at the column's scale: more digits after the point than the scale, or before it than
     * precision minus scale, would change the value, so they are refused rather than rounded.
     */
    private static BigDecimal decimal(Types.DecimalType type, JsonParser p, String path) throws BadRecordException {
        BigDecimal given;
        JsonToken t = p.currentToken();
        if (t.isNumeric()) {
            given = p.getDecimalValue();
        } else if (t == JsonToken.VALUE_STRING) {
            String text = p.getString();
            try {
                given = new BigDecimal(text);
            } catch (NumberFormatException e) {
                throw new BadRecordException("field '" + path + "' is \"" + text + "\", not a decimal"
                        + " number, which the column type " + type + " needs");
            }
        } else {
            throw mismatch(path, p, type);
        }
        try {
            // Judged on the digits alone: setScale of "1e999999999" would build a billion-digit number first.
            BigDecimal digits = given.stripTrailingZeros();
            if (digits.scale() > type.scale()) {
                throw new BadRecordException("field '" + path + "' is " + shortText(given) + ", which has more"
                        + " digits after the point than the column type " + type + " keeps (" + type.scale()
                        + "): rounding would change it");
            }
            if (digits.signum() != 0 && digits.precision() - digits.scale() > type.precision() - type.scale()) {
                throw new BadRecordException("field '" + path + "' is " + shortText(given) + ", which has more"
                        + " digits before the point than the column type " + type + " holds ("
                        + (type.precision() - type.scale()) + ")");
            }
            return given.setScale(type.scale(), RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw unfit(path, type, e);
        }
    }

    private static String shortText(BigDecimal v) {
        String plain = Math.abs((long) v.scale()) > 64 ? v.toString() : v.toPlainString();
        return plain.length() > 80 ? plain.substring(0, 80) + "..." : plain;
    }

    private static BadRecordException outOfRange(String path, BigDecimal value, Type type) {
        return new BadRecordException("field '" + path + "' is " + value + ", beyond the range of the column type "
                + type);
    }

    private static final OffsetDateTime EPOCH = Instant.EPOCH.atOffset(ZoneOffset.UTC);
    private static final LocalDateTime LOCAL_EPOCH = EPOCH.toLocalDateTime();

    /** Microseconds since the epoch, as Iceberg's writers count them (whole microseconds, toward the epoch). */
    private static Object timestamp(Types.TimestampType type, String text) {
        if (type.shouldAdjustToUTC()) {
            OffsetDateTime t;
            try {
                t = OffsetDateTime.parse(text).withOffsetSameInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException withoutOffset) {
                t = LocalDateTime.parse(text).atOffset(ZoneOffset.UTC);
            }
            return ChronoUnit.MICROS.between(EPOCH, t);
        }
        LocalDateTime t;
        try {
            t = LocalDateTime.parse(text);
        } catch (DateTimeParseException withOffset) {
            t = OffsetDateTime.parse(text).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
        }
        return ChronoUnit.MICROS.between(LOCAL_EPOCH, t);
    }

    private static String text(JsonParser p, String path, Type type) throws BadRecordException {
        if (p.currentToken() != JsonToken.VALUE_STRING) throw mismatch(path, p, type);
        return p.getString();
    }

    /** Reads the value after the current token: null for JSON null, else {@code reader}'s. */
    private static Object next(JsonParser p, Reader reader, String path) throws BadRecordException {
        JsonToken t = p.nextToken();
        if (t == null) throw new BadRecordException("the payload is not JSON: it ends inside a value");
        return t == JsonToken.VALUE_NULL ? null : reader.read(p, path);
    }

    /** A struct's fields by name, each with its reader and position; the row itself is the top-level struct. */
    private static final class StructReader implements Reader {
        private final Types.StructType type;
        private final Map<String, Integer> positions = new HashMap<>();
        /**
         * The field order of the last object read, to guess each next field before looking its name up: payloads of
         * one topic list their fields in the same order, and a guess costs a name compare (often the same string,
         * Jackson canonicalises names), not a hash lookup. A guess is only taken when the name is the field's, so
         * any order, unknown and repeated fields read as they would without it.
         */
        private int first;
        /** Per position: the position that followed it last time, or -1. */
        private final int[] after;
        /** Per position: the field's name, as the parser last gave it. */
        private final String[] names;
        private final Reader[] readers;
        private final List<Types.NestedField> fields;
        /** An empty row of the struct: copying it skips the name index Iceberg looks up for each new record. */
        private final GenericRecord empty;
        private final boolean top;

        StructReader(Types.StructType type, boolean top) {
            this.type = type;
            this.top = top;
            this.fields = type.fields();
            this.readers = new Reader[fields.size()];
            this.after = new int[fields.size()];
            this.names = new String[fields.size()];
            Arrays.fill(after, -1);
            this.first = fields.isEmpty() ? -1 : 0;
            for (int i = 0; i < fields.size(); i++) {
                positions.put(fields.get(i).name(), i);
                names[i] = fields.get(i).name();
                readers[i] = reader(fields.get(i).type());
            }
            this.empty = GenericRecord.create(type);
        }

        @Override
        public Object read(JsonParser p, String path) throws BadRecordException {
            if (p.currentToken() != JsonToken.START_OBJECT) throw mismatch(path, p, type);
            return readObject(p, path, null, null);
        }

        /** Reads the object whose start is the current token; {@code metadata} (the row only) fills its columns. */
        GenericRecord readObject(JsonParser p, String path, Metadata[] metadata, SinkRecord source)
                throws BadRecordException {
            GenericRecord out = empty.copy();
            String name;
            int guess = first;
            int previous = -1;
            while ((name = p.nextName()) != null) {
                int at = position(name, guess);
                if (at < 0) {
                    p.nextToken();
                    p.skipChildren();
                    continue;
                }
                if (previous < 0) first = at;
                else after[previous] = at;
                previous = at;
                guess = after[at];
                if (metadata != null && metadata[at] != null) {
                    p.nextToken();
                    p.skipChildren();
                    continue;
                }
                out.set(at, next(p, readers[at], top ? name : path + "." + name));
            }
            if (p.currentToken() != JsonToken.END_OBJECT) {
                throw new BadRecordException("the payload is not JSON: it ends inside an object");
            }
            for (int i = 0; i < fields.size(); i++) {
                if (metadata != null && metadata[i] != null) {
                    out.set(i, metadata[i].of(source));
                    continue;
                }
                if (out.get(i) == null && fields.get(i).isRequired()) {
                    Types.NestedField f = fields.get(i);
                    throw new BadRecordException(top
                            ? "field '" + f.name() + "' is missing, and the table requires it"
                            : "field '" + path + "." + f.name() + "' is missing");
                }
            }
            return out;
        }

        /** The position of the field {@code name}, trying {@code guess} first; -1 when the struct has none. */
        private int position(String name, int guess) {
            if (guess >= 0) {
                String known = names[guess];
                if (known == name) return guess;
                if (known.equals(name)) {
                    names[guess] = name;
                    return guess;
                }
            }
            Integer at = positions.get(name);
            return at == null ? -1 : at;
        }
    }

    private static Reader list(Types.ListType type) {
        Reader element = reader(type.elementType());
        boolean required = type.isElementRequired();
        return (p, path) -> {
            if (p.currentToken() != JsonToken.START_ARRAY) throw mismatch(path, p, type);
            List<Object> out = new ArrayList<>();
            for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                if (t == null) throw new BadRecordException("the payload is not JSON: it ends inside an array");
                String at = path + "[" + out.size() + "]";
                Object v = t == JsonToken.VALUE_NULL ? null : element.read(p, at);
                if (v == null && required) {
                    throw new BadRecordException("field '" + at + "' is null in a list of required values");
                }
                out.add(v);
            }
            return out;
        };
    }

    private static Reader map(Types.MapType type) {
        Reader value = reader(type.valueType());
        boolean stringKeys = type.keyType().typeId() == Type.TypeID.STRING;
        boolean required = type.isValueRequired();
        return (p, path) -> {
            if (p.currentToken() != JsonToken.START_OBJECT) throw mismatch(path, p, type);
            if (!stringKeys) {
                throw new BadRecordException("field '" + path + "': maps with keys of type " + type.keyType()
                        + " are not supported (JSON object keys are strings)");
            }
            Map<Object, Object> out = new LinkedHashMap<>();
            String key;
            while ((key = p.nextName()) != null) {
                String at = path + "." + key;
                Object v = next(p, value, at);
                if (v == null && required) {
                    throw new BadRecordException("field '" + at + "' is null in a map of required values");
                }
                out.put(key, v);
            }
            return out;
        };
    }

    private static BadRecordException mismatch(String path, JsonParser p, Type type) {
        return new BadRecordException("field '" + path + "' is " + describe(p.currentToken()) + ", which does not fit"
                + " the column type " + type);
    }

    private static String describe(JsonToken t) {
        return switch (t) {
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT -> "an integer";
            case VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case START_ARRAY -> "an array";
            case START_OBJECT -> "an object";
            default -> "a " + t.name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
