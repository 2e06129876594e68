package dev.iggysink.adapters.format;

import static dev.iggysink.adapters.format.Fixtures.codec;
import static dev.iggysink.adapters.format.Fixtures.fileOf;
import static dev.iggysink.adapters.format.Fixtures.jsonLines;
import static dev.iggysink.adapters.format.Fixtures.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.service.Redrive;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.domain.message.HeaderKind;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * A redriven record is the record it was (issue 48): json_lines with {@code include_headers} writes its headers into
 * the redriven object exactly as into the object it would have landed in the first time.
 */
class RedriveHeadersTest {
    @Test
    void a_redriven_object_holds_the_bytes_the_sink_writes_for_the_record_headers_included() throws Exception {
        OutputSettings output = jsonLines(true, true);
        RecordCodec codec = codec(PayloadSchema.JSON, output);
        SinkRecord original = record(42, "{\"status\":200}".getBytes(StandardCharsets.UTF_8), List.of(
                RecordHeader.ofStrings("tenant", "acme"),
                new RecordHeader(HeaderKind.STRING, "attempt".getBytes(StandardCharsets.UTF_8), HeaderKind.INT32,
                        new byte[] {3, 0, 0, 0}),
                new RecordHeader(HeaderKind.STRING, "trace".getBytes(StandardCharsets.UTF_8), HeaderKind.RAW,
                        new byte[] {(byte) 0xDE, (byte) 0xAD, 0, 1})));
        InMemoryObjectStore store = new InMemoryObjectStore();
        String letter = DeadLetters.key(output.prefix(), "_dlq", original);
        store.seed(letter, DeadLetters.content(original, "old schema refused it"), Map.of());

        List<Redrive.Outcome> outcomes = new Redrive(store, codec, output, "_dlq", "application_logs",
                "api_requests", Fixtures.FIXED_CLOCK).run(p -> OptionalLong.of(100), Redrive.Filter.ALL, false);

        assertThat(outcomes).singleElement().extracting(Redrive.Outcome::action).isEqualTo(Redrive.Action.REDRIVEN);
        String firstTime = fileOf(codec, original);
        assertThat(firstTime).contains("\"headers\":{\"attempt\":3,\"tenant\":\"acme\",\"trace\":\"3q0AAQ==\"}");
        assertThat(new String(store.get(outcomes.get(0).detail()), StandardCharsets.UTF_8)).isEqualTo(firstTime);
    }
}
