package dev.iggysink.adapters.format.payload;

import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The proto decoder upstream runs by default (no descriptor, use_any_wrapper): the payload is a
 * {@code google.protobuf.Any} and becomes {@code {"type_url": ..., "value": "<base64>"}}. Decoding follows prost's
 * rules for that message: fields 1 and 2 must be length-delimited, type_url must be UTF-8, unknown fields (groups
 * too) are skipped, a repeated field keeps its last value. An empty payload does not decode.
 */
final class ProtoAny {
    private static final int RECURSION_LIMIT = 100; // prost's default

    private final byte[] in;
    private int pos;

    private ProtoAny(byte[] in) {
        this.in = in;
    }

    static Payload decode(byte[] bytes) throws PayloadDecoder.DecodeFailure {
        if (bytes.length == 0) throw new PayloadDecoder.DecodeFailure("empty proto payload", null);
        ProtoAny p = new ProtoAny(bytes);
        String typeUrl = "";
        byte[] value = new byte[0];
        try {
            while (p.pos < bytes.length) {
                long key = p.key();
                int wire = (int) (key & 7);
                long tag = key >>> 3;
                if (tag == 1 || tag == 2) {
                    if (wire != 2) throw p.fail("invalid wire type " + wire + " for field " + tag);
                    byte[] field = p.lengthDelimited();
                    if (tag == 1) {
                        typeUrl = PayloadDecoders.strictUtf8(field)
                                .orElseThrow(() -> p.fail("type_url is not UTF-8"));
                    } else {
                        value = field;
                    }
                } else {
                    p.skip(wire, tag, 0);
                }
            }
        } catch (IllegalStateException e) {
            throw new PayloadDecoder.DecodeFailure("invalid protobuf Any payload: " + e.getMessage(), e);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("type_url", typeUrl);
        doc.put("value", Base64.getEncoder().encodeToString(value));
        return new Payload.JsonDoc(doc);
    }

    private long key() {
        long key = varint();
        if (key > 0xFFFF_FFFFL || key < 0) throw fail("invalid key value " + Long.toUnsignedString(key));
        if ((key & 7) > 5) throw fail("invalid wire type " + (key & 7));
        if ((key >>> 3) == 0) throw fail("invalid tag value: 0");
        return key;
    }

    private void skip(int wire, long tag, int depth) {
        switch (wire) {
            case 0 -> varint();
            case 1 -> advance(8);
            case 2 -> lengthDelimited();
            case 5 -> advance(4);
            case 3 -> {
                if (depth >= RECURSION_LIMIT) throw fail("recursion limit reached");
                while (true) {
                    if (pos >= in.length) throw fail("group not ended");
                    long key = key();
                    int w = (int) (key & 7);
                    if (w == 4) {
                        if ((key >>> 3) != tag) throw fail("unexpected end group tag");
                        return;
                    }
                    skip(w, key >>> 3, depth + 1);
                }
            }
            default -> throw fail("unexpected end group tag");
        }
    }

    private byte[] lengthDelimited() {
        long len = varint();
        if (len < 0 || len > in.length - pos) throw fail("buffer underflow");
        byte[] out = java.util.Arrays.copyOfRange(in, pos, pos + (int) len);
        pos += (int) len;
        return out;
    }

    private void advance(int n) {
        if (n > in.length - pos) throw fail("buffer underflow");
        pos += n;
    }

    /** prost's decode_varint: at most 10 bytes, the 10th at most 1. */
    private long varint() {
        long result = 0;
        for (int i = 0; i < 10; i++) {
            if (pos >= in.length) throw fail("invalid varint");
            int b = in[pos++] & 0xFF;
            if (i == 9 && b > 1) throw fail("invalid varint");
            result |= (long) (b & 0x7F) << (7 * i);
            if (b < 0x80) return result;
        }
        throw fail("invalid varint");
    }

    private IllegalStateException fail(String message) {
        return new IllegalStateException(message + " at byte " + pos);
    }
}
