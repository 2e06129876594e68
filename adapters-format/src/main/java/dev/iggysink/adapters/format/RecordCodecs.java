package dev.iggysink.adapters.format;

import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.settings.TransformSettings;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/** Builds the {@link RecordCodec} of one stream from its settings: decoder, transforms in file order, file format. */
public final class RecordCodecs {
    private RecordCodecs() {
    }

    /** As {@link #forStream(StreamSettings, OutputSettings, List, InstantSource)} with the system clock. */
    public static RecordCodec forStream(StreamSettings stream, OutputSettings output,
                                        List<TransformSettings> transforms) {
        return forStream(stream, output, transforms, InstantSource.system());
    }

    /**
     * @param clock "now" of computed transform values (date_time, timestamp_*, uuid_v7)
     * @throws IllegalArgumentException a format or schema this adapter cannot write yet (avro and parquet output,
     *                                  avro payloads with a schema), or a transform that cannot be built (bad regex)
     */
    public static RecordCodec forStream(StreamSettings stream, OutputSettings output,
                                        List<TransformSettings> transforms, InstantSource clock) {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(transforms, "transforms");
        Objects.requireNonNull(clock, "clock");
        Supplier<FileEncoder> files = switch (output.format()) {
            case JSON_LINES -> () -> new JsonWrapperEncoder(false, output.includeMetadata(), output.includeHeaders(),
                    output.compression());
            case JSON_ARRAY -> () -> new JsonWrapperEncoder(true, output.includeMetadata(), output.includeHeaders(),
                    output.compression());
            case RAW -> () -> new RawFileEncoder(output.compression());
            case AVRO, PARQUET -> throw new IllegalArgumentException(
                    "output_format " + output.format() + " is not supported yet");
        };
        return new PipelineCodec(PayloadDecoders.forSchema(stream.schema(), stream.avroSchemaJson()),
                PayloadTransforms.build(transforms, clock), files, output.format(), output.compression());
    }
}
