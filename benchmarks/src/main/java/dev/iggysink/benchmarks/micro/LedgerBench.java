package dev.iggysink.benchmarks.micro;

import dev.iggysink.domain.buffer.SealedFile;
import dev.iggysink.domain.delivery.DeliveryLedger;
import dev.iggysink.domain.rotation.RotationReason;
import java.util.ArrayDeque;
import java.util.OptionalLong;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * One file's life in the {@code DeliveryLedger}: opened, every record read, sealed, durable, then the
 * commit query and the commit, with {@code inFlight} files sealed but not yet durable ahead of it (the upload pool's
 * depth), so the commit-point scan sees a realistic map. Score: ns per file (divide by {@code recordsPerFile} for
 * the per-record share).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class LedgerBench {
    @Param({"1", "1000"})
    public int recordsPerFile;

    @Param({"0", "4"})
    public int inFlight;

    private DeliveryLedger ledger;
    private final ArrayDeque<SealedFile> sealed = new ArrayDeque<>();
    private long next;

    @Setup
    public void setUp() {
        ledger = new DeliveryLedger(Fixtures.PARTITION, -1);
        next = 0;
        sealed.clear();
        for (int i = 0; i < inFlight; i++) sealed.add(fill());
    }

    private SealedFile fill() {
        long first = next;
        ledger.opened(first);
        for (int i = 0; i < recordsPerFile; i++) ledger.read(next++);
        SealedFile file = new SealedFile(Fixtures.PARTITION, "k/" + first, first, next - 1, recordsPerFile,
                recordsPerFile * 100L, Fixtures.T0_MICROS, RotationReason.COUNT);
        ledger.sealed(file);
        return file;
    }

    @Benchmark
    public void fileCycle(Blackhole bh) {
        sealed.add(fill());
        SealedFile oldest = sealed.poll();
        ledger.durable(oldest.firstOffset());
        OptionalLong c = ledger.committable();
        if (c.isPresent()) ledger.committed(c.getAsLong());
        bh.consume(c);
    }
}
