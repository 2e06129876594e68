package dev.iggysink.benchmarks;

import java.nio.charset.StandardCharsets;

/**
 * Synthetic JSON payloads of a chosen size, shared by the micro-benchmarks and the end-to-end bench so both measure
 * the same documents: a flat object of five scalar fields whose {@code msg} string is padded to the target size.
 */
public final class Payloads {
    /** Avro schema that the payloads match, for avro and parquet output. */
    public static final String AVRO_SCHEMA = """
            {"type":"record","name":"BenchEvent","namespace":"dev.iggysink.bench","fields":[
              {"name":"id","type":"long"},
              {"name":"level","type":"string"},
              {"name":"user","type":"string"},
              {"name":"latency_ms","type":"double"},
              {"name":"msg","type":"string"}]}""";

    private static final String[] LEVELS = {"info", "warn", "error", "debug"};
    private static final String FILLER = "The quick brown fox jumps over the lazy dog; lorem ipsum dolor sit amet. ";

    private Payloads() {
    }

    /** How a payload is laid out; the sink's pass-through copies the first two without building a tree. */
    public enum Shape {
        /** Fields in the producer's order (id, level, user, latency_ms, msg), compact: the default. */
        AS_PRODUCED,
        /** Compact with keys sorted: exactly what the sink prints. */
        SORTED,
        /** As produced with a space after each colon and comma: the sink must parse and re-print it. */
        SPACED
    }

    /** A JSON document of exactly {@code size} bytes (at least the size of the fixed fields, about 80 B). */
    public static byte[] json(long id, int size) {
        return json(id, size, Shape.AS_PRODUCED);
    }

    /** As {@link #json(long, int)} in the given layout (same fields and values, same size). */
    public static byte[] json(long id, int size, Shape shape) {
        String level = LEVELS[(int) (id & 3)];
        String user = "user-" + (id % 9973);
        double latency = (id % 1000) / 10.0;
        String head = switch (shape) {
            case AS_PRODUCED -> "{\"id\":" + id + ",\"level\":\"" + level + "\",\"user\":\"" + user
                    + "\",\"latency_ms\":" + latency + ",\"msg\":\"";
            case SPACED -> "{\"id\": " + id + ", \"level\": \"" + level + "\", \"user\": \"" + user
                    + "\", \"latency_ms\": " + latency + ", \"msg\": \"";
            case SORTED -> "{\"id\":" + id + ",\"latency_ms\":" + latency + ",\"level\":\"" + level
                    + "\",\"msg\":\"";
        };
        String tail = shape == Shape.SORTED ? "\",\"user\":\"" + user + "\"}" : "\"}";
        int pad = Math.max(0, size - head.length() - tail.length());
        StringBuilder b = new StringBuilder(size + 8).append(head);
        while (pad > 0) {
            int n = Math.min(pad, FILLER.length());
            b.append(FILLER, 0, n);
            pad -= n;
        }
        return b.append(tail).toString().getBytes(StandardCharsets.US_ASCII);
    }
}
