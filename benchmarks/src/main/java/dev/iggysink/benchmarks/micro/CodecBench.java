package dev.iggysink.benchmarks.micro;

import dev.iggysink.adapters.format.RecordCodecs;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.benchmarks.Payloads;
import dev.iggysink.domain.message.SinkRecord;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One record through {@code RecordCodecs.forStream(...)}: decode the JSON payload, wrap it (metadata, headers) and
 * encode it into the open file, as the consumer loop does. Measured per record over files of {@value #FILE} records,
 * the file's {@code finish()} included (amortised over its records), so buffer growth counts.
 * Formats: json_lines, json_array, raw (schema raw, so the payload bytes pass through), and avro/parquet with the
 * payloads' schema. Score: ns per record; bytes per record with {@code -prof gc}.
 *
 * <p>{@code shape}: payload keys in the producer's order ({@code as_produced}: the JSON pass-through reorders the
 * members), sorted ({@code sorted}: the bytes are copied as they are) or with spaces ({@code spaced}: parsed into a
 * tree and printed again). {@code passThrough=false} forces the tree for every payload, the path before the
 * pass-through. The pass-through compared with the tree:
 * {@code jmh CodecBench -p format=json_lines -p headers=false -p passThrough=true,false -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
// Parquet needs several seconds of warm-up: with 2 x 1 s its first files (about 1 s each, cold) were measured.
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class CodecBench {
    static final int FILE = 1000;

    @Param({"json_lines", "json_array", "raw", "avro", "parquet"})
    public String format;

    @Param({"100", "1024"})
    public int payloadSize;

    @Param({"false", "true"})
    public boolean headers;

    @Param({"as_produced", "sorted", "spaced"})
    public String shape;

    @Param({"true"})
    public boolean passThrough;

    private RecordCodec codec;
    private SinkRecord[] records;

    @Setup
    public void setUp() {
        OutputFormat out = OutputFormat.valueOf(format.toUpperCase(Locale.ROOT));
        PayloadSchema schema = out == OutputFormat.RAW ? PayloadSchema.RAW : PayloadSchema.JSON;
        codec = RecordCodecs.forStream(Fixtures.stream(schema), Fixtures.output(out, Compression.NONE, headers),
                List.of(), InstantSource.system(), passThrough);
        records = Fixtures.records(FILE, payloadSize, headers,
                Payloads.Shape.valueOf(shape.toUpperCase(Locale.ROOT)));
    }

    @Benchmark
    @OperationsPerInvocation(FILE)
    public FileBytes decodeWrapEncode() throws BadRecordException {
        FileEncoder file = codec.newFile();
        for (SinkRecord r : records) file.append(codec.decode(r));
        return file.finish();
    }
}
