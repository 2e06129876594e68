package dev.iggysink.benchmarks.micro;

import dev.iggysink.adapters.format.RecordCodecs;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.domain.message.SinkRecord;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Fixed cost of one file, apart from its records: {@code newFile()} + {@code finish()} with {@code records} 1 KiB
 * records, per format. Comparing records = 1 with records = 100 separates the per-file cost (writer set-up, buffers,
 * footer) from the per-record one. Score: µs per file.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class FileSetupBench {
    @Param({"json_lines", "avro", "parquet"})
    public String format;

    @Param({"1", "100"})
    public int records;

    private RecordCodec codec;
    private SinkRecord[] input;

    @Setup
    public void setUp() {
        OutputFormat out = OutputFormat.valueOf(format.toUpperCase(Locale.ROOT));
        codec = RecordCodecs.forStream(Fixtures.stream(PayloadSchema.JSON), Fixtures.output(out, Compression.NONE,
                false), List.of());
        input = Fixtures.records(records, 1024, false);
    }

    @Benchmark
    public FileBytes file() throws BadRecordException {
        FileEncoder file = codec.newFile();
        for (SinkRecord r : input) file.append(codec.decode(r));
        return file.finish();
    }
}
