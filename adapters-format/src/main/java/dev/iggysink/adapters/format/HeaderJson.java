package dev.iggysink.adapters.format;

import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.adapters.format.json.DoubleFormat;
import dev.iggysink.adapters.format.json.JsonOut;
import dev.iggysink.adapters.format.payload.PayloadDecoders;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.domain.message.HeaderKind;
import dev.iggysink.domain.message.RecordHeader;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * The {@code headers} object of the wrapper, as formatter.rs {@code serialize_headers} builds it: key text is the
 * key's UTF-8 when its kind is string (anything else, or invalid UTF-8, gives ""); values by kind: string (lossy
 * UTF-8), raw (base64), bool (first byte non-zero), 8..64-bit integers and floats as numbers, 128-bit integers as
 * decimal strings, non-finite floats as {@code "NaN"}, {@code "inf"}, {@code "-inf"}. The object is a serde_json map:
 * keys sorted, and when two headers give the same key text the one later in Iggy's key order wins.
 */
final class HeaderJson {
    private HeaderJson() {
    }

    /** Iggy's BTreeMap order of keys: kind (declaration order), then bytes. */
    private static final Comparator<RecordHeader> KEY_ORDER = Comparator
            .comparingInt((RecordHeader h) -> h.keyKind().code())
            .thenComparing(RecordHeader::key, Arrays::compareUnsigned);

    static void write(ByteBuf out, List<RecordHeader> headers) throws BadRecordException {
        List<RecordHeader> ordered = new ArrayList<>(headers);
        ordered.sort(KEY_ORDER);
        TreeMap<String, Object> obj = new TreeMap<>(JsonOut::compareCodePoints);
        for (RecordHeader h : ordered) {
            String key = h.keyKind() == HeaderKind.STRING
                    ? PayloadDecoders.strictUtf8(h.key()).orElse("") : "";
            obj.put(key, value(h));
        }
        JsonOut.value(out, obj, JsonOut.Keys.SORTED);
    }

    static Object value(RecordHeader h) throws BadRecordException {
        byte[] v = h.value();
        HeaderKind kind = h.valueKind();
        switch (kind) {
            case STRING:
                return new String(v, StandardCharsets.UTF_8); // from_utf8_lossy
            case RAW:
                return Base64.getEncoder().encodeToString(v);
            case BOOL:
                return v.length > 0 && v[0] != 0;
            default:
                break;
        }
        // Upstream unwraps a fixed-size conversion here and would panic on a wrong length.
        int size = switch (kind) {
            case INT8, UINT8 -> 1;
            case INT16, UINT16 -> 2;
            case INT32, UINT32, FLOAT32 -> 4;
            case INT64, UINT64, FLOAT64 -> 8;
            default -> 16;
        };
        if (v.length != size) {
            throw new BadRecordException("header value of kind " + kind + " has " + v.length + " bytes, not " + size);
        }
        ByteBuffer le = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        return switch (kind) {
            case INT8 -> (long) v[0];
            case INT16 -> (long) le.getShort();
            case INT32 -> (long) le.getInt();
            case INT64 -> le.getLong();
            case UINT8 -> (long) (v[0] & 0xFF);
            case UINT16 -> (long) (le.getShort() & 0xFFFF);
            case UINT32 -> le.getInt() & 0xFFFF_FFFFL;
            case UINT64 -> {
                long x = le.getLong();
                yield x >= 0 ? (Object) x : new BigInteger(Long.toUnsignedString(x));
            }
            case FLOAT32 -> floatValue(DoubleFormat.f32AsRustF64(le.getFloat()));
            case FLOAT64 -> floatValue(le.getDouble());
            case INT128 -> littleEndian(v, true).toString();
            case UINT128 -> littleEndian(v, false).toString();
            default -> throw new IllegalStateException("unhandled header kind " + kind);
        };
    }

    /** Number::from_f64 refuses NaN and infinities; upstream then keeps Rust's Display text. */
    private static Object floatValue(double d) {
        if (Double.isNaN(d)) return "NaN";
        if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
        return d;
    }

    private static BigInteger littleEndian(byte[] v, boolean signed) {
        byte[] be = new byte[v.length];
        for (int i = 0; i < v.length; i++) be[i] = v[v.length - 1 - i];
        return signed ? new BigInteger(be) : new BigInteger(1, be);
    }
}
