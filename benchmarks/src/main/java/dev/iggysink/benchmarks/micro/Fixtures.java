package dev.iggysink.benchmarks.micro;

import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.benchmarks.Payloads;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

/** Settings and records as the sink would see them, for the micro-benchmarks. */
final class Fixtures {
    static final PartitionRef PARTITION = new PartitionRef("application_logs", "api_requests", 3);
    /** 2026-01-15T10:20:30Z in microseconds. */
    static final long T0_MICROS = 1_768_472_430_000_000L;

    private Fixtures() {
    }

    static StreamSettings stream(PayloadSchema schema) {
        return new StreamSettings(PARTITION.stream(), List.of(PARTITION.topic()), schema, 1000, Duration.ofMillis(5),
                "bench", Optional.empty());
    }

    static OutputSettings output(OutputFormat format, Compression compression, boolean headers) {
        boolean columnar = format == OutputFormat.AVRO || format == OutputFormat.PARQUET;
        return new OutputSettings("iggy/raw", "{stream}/{topic}/{date}/{hour}", format, compression, true, headers,
                ZoneId.of("UTC"), columnar ? Optional.of(Payloads.AVRO_SCHEMA) : Optional.empty(), "snappy", "null",
                "__missing__");
    }

    /** {@code count} records of consecutive offsets, 1 ms apart, optionally with two string headers each. */
    static SinkRecord[] records(int count, int payloadSize, boolean headers) {
        return records(count, payloadSize, headers, Payloads.Shape.AS_PRODUCED);
    }

    static SinkRecord[] records(int count, int payloadSize, boolean headers, Payloads.Shape shape) {
        List<RecordHeader> h = headers
                ? List.of(RecordHeader.ofStrings("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"),
                        RecordHeader.ofStrings("source", "gateway-eu-1"))
                : List.of();
        SinkRecord[] out = new SinkRecord[count];
        for (int i = 0; i < count; i++) {
            out[i] = new SinkRecord(PARTITION, 1_000_000L + i, T0_MICROS + i * 1_000L, T0_MICROS + i * 1_000L,
                    new MessageId(0, 1_000_000L + i), h, Payloads.json(i, payloadSize, shape));
        }
        return out;
    }
}
