package dev.iggysink.adapters.format.payload;

import java.util.Map;

/**
 * A decoded payload: the Rust SDK's {@code Payload} variants this sink can produce. Decoders for proto, flat_buffer
 * and avro yield {@link JsonDoc} upstream (Any wrapper, buffer summary, datum), so no variant of their own is needed
 * until the convert transforms arrive.
 */
public sealed interface Payload {

    /** A JSON document ({@code Payload::Json}); printed as its value, keys sorted. */
    record JsonDoc(Object value) implements Payload {
        @SuppressWarnings("unchecked")
        Map<String, Object> objectOrNull() {
            return value instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
        }
    }

    /** UTF-8 text ({@code Payload::Text}); printed as a JSON string. */
    record Text(String text) implements Payload {
    }

    /** Bytes as received ({@code Payload::Raw}); printed as their JSON value when they parse, else base64. */
    record Raw(byte[] bytes) implements Payload {
    }

    /**
     * JSON bytes (of a json or raw stream) that {@link CompactJson#check} found already printed as the sorted printer
     * prints them, perhaps with members out of key order ({@code plan} says which): written without a tree. Only made
     * when nothing but the json_lines/json_array printer reads the payload (no transforms); its tree, for a
     * {@code {field:...}} path, is parsed on demand.
     */
    record Printed(byte[] bytes, int[] plan) implements Payload {
    }
}
