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
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code FileEncoder.finish()} of a json_lines file of about 8 MiB (the default {@code max_file_size}) of 1 KiB
 * records: none (the final copy), gzip, zstd. The file is filled outside the measurement. Score: ms per file; MB/s
 * = 8.4 / score(s). The output size is printed once per fork so the ratio can be checked.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 15)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class CompressionBench {
    static final int RECORDS = 7_000;

    @Param({"none", "gzip", "zstd"})
    public String compression;

    private RecordCodec codec;
    private SinkRecord[] records;
    private FileEncoder file;
    private boolean reported;

    @Setup(Level.Trial)
    public void setUpTrial() {
        codec = RecordCodecs.forStream(Fixtures.stream(PayloadSchema.JSON), Fixtures.output(OutputFormat.JSON_LINES,
                Compression.valueOf(compression.toUpperCase(Locale.ROOT)), false), List.of());
        records = Fixtures.records(RECORDS, 1024, false);
    }

    @Setup(Level.Invocation)
    public void fill() throws BadRecordException {
        file = codec.newFile();
        for (SinkRecord r : records) file.append(codec.decode(r));
    }

    @Benchmark
    public FileBytes finish() {
        FileBytes out = file.finish();
        if (!reported) {
            reported = true;
            System.out.printf("%n[%s] %d records -> %d bytes%n", compression, RECORDS, out.length());
        }
        return out;
    }
}
