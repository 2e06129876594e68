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

    /** A JSON document of exactly {@code size} bytes (at least the size of the fixed fields, about 80 B). */
    public static byte[] json(long id, int size) {
        String head = "{\"id\":" + id + ",\"level\":\"" + LEVELS[(int) (id & 3)] + "\",\"user\":\"user-"
                + (id % 9973) + "\",\"latency_ms\":" + ((id % 1000) / 10.0) + ",\"msg\":\"";
        String tail = "\"}";
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
