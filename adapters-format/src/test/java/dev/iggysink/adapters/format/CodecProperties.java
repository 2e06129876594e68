package dev.iggysink.adapters.format;

import dev.iggysink.domain.Seeded;
import static dev.iggysink.adapters.format.Generators.bytes;
import static dev.iggysink.domain.Seeded.longBetween;
import static dev.iggysink.adapters.format.Generators.validText;
import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.adapters.format.json.Json;
import dev.iggysink.adapters.format.json.JsonOut;

import com.github.luben.zstd.Zstd;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.PayloadSchema;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CodecProperties {

    @Test
    void random_bytes_through_every_decoder_and_format_fail_only_as_bad_records() {
        PayloadSchema[] schemas = PayloadSchema.values();
        List<OutputFormat> formats = Arrays.stream(OutputFormat.values())
                .filter(f -> f != OutputFormat.AVRO && f != OutputFormat.PARQUET).toList();
        Seeded.check(300, r -> {
            byte[] payload = bytes(r, 64);
            PayloadSchema schema = schemas[r.nextInt(schemas.length)];
            OutputFormat format = formats.get(r.nextInt(formats.size()));
            RecordCodec codec = Fixtures.codec(schema, Fixtures.output(format, Compression.NONE, true, true));
            try {
                FileEncoder file = codec.newFile();
                file.append(codec.decode(Fixtures.record(1, payload, List.of())));
                file.finish().toByteArray();
            } catch (BadRecordException expected) {
                // the only failure allowed
            } catch (RuntimeException e) {
                throw new AssertionError(schema + " into " + format + " of " + Arrays.toString(payload), e);
            }
        });
    }

    @Test
    void json_payloads_round_trip_through_json_lines() {
        Seeded.check(300, r -> jsonRoundTrip(json(r, 0)));
    }

    private static void jsonRoundTrip(Object value) {
        ByteBuf doc = new ByteBuf(64);
        JsonOut.value(doc, value, JsonOut.Keys.INSERTION);
        RecordCodec codec = Fixtures.codec(PayloadSchema.JSON, Fixtures.jsonLines(true, false));
        String line;
        Map<String, Object> wrapper;
        try {
            line = Fixtures.fileOf(codec, Fixtures.record(9, doc.toByteArray(), List.of()));
            @SuppressWarnings("unchecked")
            Map<String, Object> parsed = (Map<String, Object>) Json.parse(
                    line.trim().getBytes(StandardCharsets.UTF_8), Json.Dialect.SIMD);
            wrapper = parsed;
        } catch (Exception e) {
            throw new AssertionError("payload " + new String(doc.toByteArray(), StandardCharsets.UTF_8), e);
        }
        assertThat(line).endsWith("\n").doesNotContain("\n{");
        assertThat(Json.same(wrapper.get("payload"), value)).as("payload of %s", line).isTrue();
    }

    @Test
    void compressed_files_decompress_to_the_uncompressed_file() {
        Seeded.check(50, r -> {
            try {
                compressedRoundTrip(json(r, 0));
            } catch (IOException | BadRecordException e) {
                throw new AssertionError(e);
            }
        });
    }

    private static void compressedRoundTrip(Object value) throws IOException, BadRecordException {
        ByteBuf doc = new ByteBuf(64);
        JsonOut.value(doc, value, JsonOut.Keys.INSERTION);
        byte[] plain = encode(Compression.NONE, doc.toByteArray());
        byte[] gz = encode(Compression.GZIP, doc.toByteArray());
        byte[] zst = encode(Compression.ZSTD, doc.toByteArray());
        assertThat(gunzip(gz)).isEqualTo(plain);
        assertThat(Zstd.decompress(zst, plain.length)).isEqualTo(plain);
    }

    private static byte[] encode(Compression compression, byte[] payload) throws BadRecordException {
        RecordCodec codec = Fixtures.codec(PayloadSchema.JSON,
                Fixtures.output(OutputFormat.JSON_LINES, compression, true, false));
        FileEncoder file = codec.newFile();
        file.append(codec.decode(Fixtures.record(3, payload, List.of())));
        file.append(codec.decode(Fixtures.record(4, payload, List.of())));
        return file.finish().toByteArray();
    }

    private static byte[] gunzip(byte[] bytes) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
            return in.readAllBytes();
        }
    }

    /** Any JSON value as the parser returns it: strings, longs, finite doubles, booleans, null, lists, objects. */
    static Object json(Random r, int depth) {
        switch (r.nextInt(depth >= 3 ? 4 : 6)) {
            case 0: return validText(r, 12);
            case 1: return longBetween(r, Long.MIN_VALUE, Long.MAX_VALUE);
            case 2: return finiteDouble(r);
            case 3: return List.of(Boolean.TRUE, Boolean.FALSE, Json.NULL).get(r.nextInt(3));
            case 4: {
                List<Object> list = new ArrayList<>();
                for (int i = r.nextInt(5); i > 0; i--) list.add(json(r, depth + 1));
                return list;
            }
            default: {
                Map<String, Object> map = new LinkedHashMap<>();
                for (int i = r.nextInt(5); i > 0; i--) map.put(validText(r, 6), json(r, depth + 1));
                return map;
            }
        }
    }

    static double finiteDouble(Random r) {
        double d;
        do {
            d = switch (r.nextInt(4)) {
                case 0 -> Double.longBitsToDouble(r.nextLong());
                case 1 -> List.of(0.0, -0.0, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 1.0)
                        .get(r.nextInt(6));
                case 2 -> r.nextInt(2001) / 10.0 - 100;
                default -> (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20);
            };
        } while (!Double.isFinite(d));
        return d;
    }
}
