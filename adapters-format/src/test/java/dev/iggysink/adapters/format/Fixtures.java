package dev.iggysink.adapters.format;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

/** The upstream S3 sink guide's example (stream application_logs/api_requests, partition 1, offset 42) and small builders. */
final class Fixtures {
    static final Instant SEED_TIME = Instant.parse("2026-03-16T14:02:31Z");
    /** Sub-second part that the whole-second timestamp must drop. */
    static final long SEED_MICROS = SEED_TIME.getEpochSecond() * 1_000_000L + 987_654L;
    static final String SEED_PAYLOAD = "{\"method\":\"GET\",\"path\":\"/api/users\",\"status\":200}";
    static final String SEED_LINE = "{\"offset\":42,\"timestamp\":\"2026-03-16T14:02:31Z\",\"stream\":\"application_logs\","
            + "\"topic\":\"api_requests\",\"partition_id\":1,\"payload\":" + SEED_PAYLOAD + "}";
    static final InstantSource FIXED_CLOCK = InstantSource.fixed(Instant.parse("2026-03-16T14:02:31.5Z"));

    private Fixtures() {
    }

    static StreamSettings stream(PayloadSchema schema) {
        return new StreamSettings("application_logs", List.of("api_requests"), schema, 1000, Duration.ofMillis(100),
                "s3_sink", Optional.empty());
    }

    static OutputSettings output(OutputFormat format, Compression compression, boolean metadata, boolean headers) {
        return new OutputSettings("", "{stream}/{topic}", format, compression, metadata, headers, ZoneId.of("UTC"),
                Optional.empty(), "snappy", "null", "__missing__");
    }

    static OutputSettings jsonLines(boolean metadata, boolean headers) {
        return output(OutputFormat.JSON_LINES, Compression.NONE, metadata, headers);
    }

    static RecordCodec codec(PayloadSchema schema, OutputSettings output, TransformSettings... transforms) {
        return RecordCodecs.forStream(stream(schema), output, List.of(transforms), FIXED_CLOCK);
    }

    static SinkRecord record(long offset, byte[] payload, List<RecordHeader> headers) {
        return new SinkRecord(new PartitionRef("application_logs", "api_requests", 1), offset, SEED_MICROS,
                SEED_MICROS, MessageId.ZERO, headers, payload);
    }

    static SinkRecord record(String payload) {
        return record(42, payload.getBytes(StandardCharsets.UTF_8), List.of());
    }

    /** One record through decode and a fresh file; the file's bytes as UTF-8. */
    static String fileOf(RecordCodec codec, SinkRecord... records) throws BadRecordException {
        FileEncoder file = codec.newFile();
        for (SinkRecord r : records) file.append(codec.decode(r));
        return new String(file.finish().toByteArray(), StandardCharsets.UTF_8);
    }

    /** The payload part of a one-record json_lines file without metadata. */
    static String payloadOf(RecordCodec codec, SinkRecord record) throws BadRecordException {
        String line = fileOf(codec, record);
        String prefix = "{\"payload\":";
        if (!line.startsWith(prefix) || !line.endsWith("}\n")) throw new AssertionError("unexpected line " + line);
        return line.substring(prefix.length(), line.length() - 2);
    }

    static DecodedRecord decoded(RecordCodec codec, String payload) throws BadRecordException {
        return codec.decode(record(payload));
    }
}
