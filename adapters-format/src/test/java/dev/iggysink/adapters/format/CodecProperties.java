package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

class CodecProperties {

    @Property(tries = 300)
    void random_bytes_through_every_decoder_and_format_fail_only_as_bad_records(
            @ForAll @Size(max = 64) byte[] payload, @ForAll PayloadSchema schema, @ForAll OutputFormat format) {
        if (format == OutputFormat.AVRO || format == OutputFormat.PARQUET) return;
        RecordCodec codec = Fixtures.codec(schema, Fixtures.output(format, Compression.NONE, true, true));
        try {
            FileEncoder file = codec.newFile();
            file.append(codec.decode(Fixtures.record(1, payload, List.of())));
            file.finish();
        } catch (BadRecordException expected) {
            // the only failure allowed
        }
    }

    @Property(tries = 300)
    void json_payloads_round_trip_through_json_lines(@ForAll("json") Object value) throws Exception {
        ByteBuf doc = new ByteBuf(64);
        JsonOut.value(doc, value, JsonOut.Keys.INSERTION);
        RecordCodec codec = Fixtures.codec(PayloadSchema.JSON, Fixtures.jsonLines(true, false));
        String line = Fixtures.fileOf(codec, Fixtures.record(9, doc.toByteArray(), List.of()));
        assertThat(line).endsWith("\n").doesNotContain("\n{");
        @SuppressWarnings("unchecked")
        Map<String, Object> wrapper = (Map<String, Object>) Json.parse(
                line.trim().getBytes(StandardCharsets.UTF_8), Json.Dialect.SIMD);
        assertThat(Json.same(wrapper.get("payload"), value)).as("payload of %s", line).isTrue();
    }

    @Property(tries = 50)
    void compressed_files_decompress_to_the_uncompressed_file(@ForAll("json") Object value) throws Exception {
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
        return file.finish();
    }

    private static byte[] gunzip(byte[] bytes) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
            return in.readAllBytes();
        }
    }

    @Provide
    Arbitrary<Object> json() {
        return Arbitraries.lazyOf(
                () -> Arbitraries.strings().ofMaxLength(12).map(s -> (Object) s),
                () -> Arbitraries.longs().map(l -> (Object) l),
                () -> Arbitraries.doubles().filter(Double::isFinite).map(d -> (Object) d),
                () -> Arbitraries.of(Boolean.TRUE, Boolean.FALSE, Json.NULL),
                () -> json().list().ofMaxSize(4).map(l -> (Object) new ArrayList<>(l)),
                () -> Arbitraries.maps(Arbitraries.strings().ofMaxLength(6), json()).ofMaxSize(4)
                        .map(m -> (Object) new LinkedHashMap<>(m)));
    }
}
