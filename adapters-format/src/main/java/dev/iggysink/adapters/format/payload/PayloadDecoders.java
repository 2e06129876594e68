package dev.iggysink.adapters.format.payload;

import dev.iggysink.adapters.format.json.Json;
import dev.iggysink.adapters.format.json.JsonException;
import dev.iggysink.application.settings.PayloadSchema;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The decoder of each {@code schema}, as the Rust connectors runtime builds them ({@code Schema::decoder()} with
 * default configs; Avro with the stream's schema). Upstream sources: sdk/src/decoders/*.rs and lib.rs.
 */
public final class PayloadDecoders {
    private PayloadDecoders() {
    }

    public static PayloadDecoder forSchema(PayloadSchema schema, Optional<String> avroSchemaJson) {
        return switch (schema) {
            case JSON -> PayloadDecoders::json;
            case RAW -> Payload.Raw::new;
            case TEXT -> PayloadDecoders::text;
            case PROTO -> ProtoAny::decode;
            case FLAT_BUFFER -> PayloadDecoders::flatBuffer;
            case AVRO -> {
                if (avroSchemaJson.isPresent()) yield new AvroPayloadDecoder(AvroSchemas.parse(avroSchemaJson.get()));
                // Upstream builds the decoder without a schema and every message then fails to decode.
                yield bytes -> {
                    throw new PayloadDecoder.DecodeFailure(
                            "Avro schema is required for JSON extraction (set avro_schema_json)", null);
                };
            }
        };
    }

    /** simd_json::to_owned_value: strict JSON, any top-level value. */
    static Payload json(byte[] bytes) throws PayloadDecoder.DecodeFailure {
        try {
            return new Payload.JsonDoc(Json.parse(bytes, Json.Dialect.SIMD));
        } catch (JsonException e) {
            throw new PayloadDecoder.DecodeFailure(e.getMessage(), e);
        }
    }

    /** String::from_utf8: invalid UTF-8 is a decode error, not a lossy string. */
    static Payload text(byte[] bytes) throws PayloadDecoder.DecodeFailure {
        return new Payload.Text(strictUtf8(bytes).orElseThrow(
                () -> new PayloadDecoder.DecodeFailure("invalid text payload: not UTF-8", null)));
    }

    /**
     * FlatBufferStreamDecoder with its defaults (extract_as_json, verify_buffers): a summary document, not the
     * table. Fewer than 4 bytes (or none) do not decode.
     */
    static Payload flatBuffer(byte[] bytes) throws PayloadDecoder.DecodeFailure {
        if (bytes.length < 4) {
            throw new PayloadDecoder.DecodeFailure("flat_buffer payload too small: " + bytes.length + " bytes", null);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("buffer_size", (long) bytes.length);
        doc.put("has_root_table", Boolean.TRUE);
        doc.put("raw_data_base64", Base64.getEncoder().encodeToString(bytes));
        return new Payload.JsonDoc(doc);
    }

    public static Optional<String> strictUtf8(byte[] bytes) {
        if (isAscii(bytes)) return Optional.of(new String(bytes, StandardCharsets.ISO_8859_1)); // no decoder needed
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    private static boolean isAscii(byte[] bytes) {
        for (byte b : bytes) if (b < 0) return false;
        return true;
    }
}
