package dev.iggysink.benchmarks.micro;

import dev.iggysink.adapters.format.RecordCodecs;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.benchmarks.Payloads;
import dev.iggysink.domain.message.SinkRecord;
import java.lang.management.ManagementFactory;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code codec-cpu}: {@link CodecBench}'s json_lines work (decode, wrap, encode, finish a file of 1,000 records)
 * timed in thread CPU time rather than wall time, with the bytes the thread allocated. On a machine shared with
 * other busy processes wall-clock scores swing by more than their size; the CPU time of the measuring thread does
 * not count the time other processes hold the core. Prints the median of the rounds per case.
 */
public final class CodecCpu {
    private CodecCpu() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        System.out.printf("%-8s %-12s %-12s %14s %12s%n", "size", "shape", "path", "CPU ns/record", "B/record");
        for (int size : new int[] {100, 1024}) {
            for (Payloads.Shape shape : Payloads.Shape.values()) {
                for (boolean passThrough : new boolean[] {false, true}) {
                    RecordCodec codec = RecordCodecs.forStream(Fixtures.stream(PayloadSchema.JSON),
                            Fixtures.output(OutputFormat.JSON_LINES, Compression.NONE, false), List.of(),
                            InstantSource.system(), passThrough);
                    SinkRecord[] records = Fixtures.records(CodecBench.FILE, size, false, shape);
                    for (int i = 0; i < 300; i++) file(codec, records); // warm-up: about 300,000 records
                    double[] ns = new double[rounds];
                    double[] bytes = new double[rounds];
                    int files = 50;
                    for (int r = 0; r < rounds; r++) {
                        long cpu0 = threads.getThreadCpuTime(tid);
                        long alloc0 = threads.getThreadAllocatedBytes(tid);
                        for (int i = 0; i < files; i++) file(codec, records);
                        long n = (long) files * records.length;
                        ns[r] = (threads.getThreadCpuTime(tid) - cpu0) / (double) n;
                        bytes[r] = (threads.getThreadAllocatedBytes(tid) - alloc0) / (double) n;
                    }
                    Arrays.sort(ns);
                    Arrays.sort(bytes);
                    System.out.printf(Locale.ROOT, "%-8d %-12s %-12s %14.0f %12.0f%n", size,
                            shape.name().toLowerCase(Locale.ROOT), passThrough ? "pass-through" : "tree",
                            ns[rounds / 2], bytes[rounds / 2]);
                }
            }
        }
    }

    private static FileBytes file(RecordCodec codec, SinkRecord[] records) throws Exception {
        FileEncoder file = codec.newFile();
        for (SinkRecord r : records) file.append(codec.decode(r));
        return file.finish();
    }
}
