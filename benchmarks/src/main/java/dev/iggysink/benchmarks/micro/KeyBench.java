package dev.iggysink.benchmarks.micro;

import dev.iggysink.domain.naming.FieldLookup;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.domain.naming.PathTemplate;
import java.time.ZoneId;
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
 * Rendering an object key: {@code PathTemplate.render} of the file's first record, then {@code ObjectKey.of}. Runs
 * once per file with one open file per partition, but once per record when {@code max_open_files_per_partition > 1}
 * (each record is routed by its rendered path), so its cost matters against the per-record codec cost.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class KeyBench {
    @Param({"{stream}/{topic}/{date}/{hour}", "{topic}/year={year}/month={month}/day={day}/hour={hour}/{minute}"})
    public String template;

    private PathTemplate parsed;
    private final ZoneId utc = ZoneId.of("UTC");
    private long micros = Fixtures.T0_MICROS;
    private long offset;

    @Setup
    public void setUp() {
        parsed = PathTemplate.parse(template);
    }

    @Benchmark
    public String renderAndKey() {
        micros += 1_000;
        offset += 1_000;
        String path = parsed.render(Fixtures.PARTITION, micros, utc, FieldLookup.NONE, "__missing__");
        return ObjectKey.of("iggy/raw", path, Fixtures.PARTITION.partitionId(), offset, offset + 999, "jsonl");
    }

    @Benchmark
    public String renderOnly() {
        micros += 1_000;
        return parsed.render(Fixtures.PARTITION, micros, utc, FieldLookup.NONE, "__missing__");
    }
}
