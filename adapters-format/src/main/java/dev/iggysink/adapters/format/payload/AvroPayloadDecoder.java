package dev.iggysink.adapters.format.payload;

import dev.iggysink.adapters.format.json.Json;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * {@code schema = "avro"} with a schema: each payload is one Avro binary datum of the stream's schema (no container
 * header, no single-object or registry prefix), turned into a {@link Json} tree so every output format shows it:
 * records and maps become objects (record fields in schema order), arrays lists, enums their symbol, unions their
 * branch's value (untagged), bytes and fixed Avro-JSON strings (one char per byte, 0..255, so they convert back
 * exactly for avro/parquet output), decimals their exact decimal text, other logical types their stored number or
 * string (timestamps stay epoch numbers). Bytes left over after the datum mean the schema is wrong: a decode failure.
 *
 * <p>Thread-safe: {@link GenericDatumReader} keeps its per-thread state itself; decoders are per call.
 */
final class AvroPayloadDecoder implements PayloadDecoder {
    private final Schema schema;
    private final GenericDatumReader<Object> reader;

    AvroPayloadDecoder(Schema schema) {
        this.schema = schema;
        this.reader = new GenericDatumReader<>(schema, schema, GenericData.get());
    }

    @Override
    public Payload decode(byte[] bytes) throws DecodeFailure {
        BinaryDecoder in = DecoderFactory.get().binaryDecoder(bytes, null);
        Object datum;
        try {
            datum = reader.read(null, in);
            if (!in.isEnd()) {
                throw new DecodeFailure("avro payload has bytes after the datum of " + schema.getFullName()
                        + " (wrong schema?)", null);
            }
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new DecodeFailure("avro payload is not a datum of " + schema.getFullName() + ": " + e, e);
        }
        return new Payload.JsonDoc(toTree(schema, datum));
    }

    static Object toTree(Schema s, Object v) {
        if (v == null) return Json.NULL;
        LogicalType logical = s.getLogicalType();
        if (logical instanceof LogicalTypes.Decimal d) {
            byte[] b = v instanceof GenericFixed f ? f.bytes() : bytesOf((ByteBuffer) v);
            return new BigDecimal(new BigInteger(b), d.getScale()).toPlainString();
        }
        switch (s.getType()) {
            case RECORD: {
                GenericRecord r = (GenericRecord) v;
                Map<String, Object> out = new LinkedHashMap<>();
                for (Schema.Field f : s.getFields()) out.put(f.name(), toTree(f.schema(), r.get(f.pos())));
                return out;
            }
            case MAP: {
                Map<String, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    out.put(e.getKey().toString(), toTree(s.getValueType(), e.getValue()));
                }
                return out;
            }
            case ARRAY: {
                Collection<?> c = (Collection<?>) v;
                List<Object> out = new ArrayList<>(c.size());
                for (Object o : c) out.add(toTree(s.getElementType(), o));
                return out;
            }
            case UNION:
                return toTree(s.getTypes().get(GenericData.get().resolveUnion(s, v)), v);
            case ENUM:
            case STRING:
                return v.toString();
            case BYTES:
                return latin1(bytesOf((ByteBuffer) v));
            case FIXED:
                return latin1(((GenericFixed) v).bytes());
            case INT:
                return ((Integer) v).longValue();
            case LONG:
            case BOOLEAN:
                return v;
            // Float.toString then parse: the float's shortest text (0.1), not its widened double (0.10000000149...).
            case FLOAT:
                return Double.parseDouble(Float.toString((Float) v));
            case DOUBLE:
                return v;
            case NULL:
            default:
                return Json.NULL;
        }
    }

    private static byte[] bytesOf(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static String latin1(byte[] b) {
        char[] c = new char[b.length];
        for (int i = 0; i < b.length; i++) c[i] = (char) (b[i] & 0xFF);
        return new String(c);
    }
}
