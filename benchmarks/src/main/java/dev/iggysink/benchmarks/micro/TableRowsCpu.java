package dev.iggysink.benchmarks.micro;

import dev.iggysink.adapters.format.RecordCodecs;
import dev.iggysink.adapters.iceberg.IcebergTables;
import dev.iggysink.adapters.iceberg.TableTemplate;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.benchmarks.Payloads;
import dev.iggysink.domain.message.SinkRecord;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;

/**
 * {@code table-rows-cpu [rounds] [rows] [sizes...]}: the table sink's work per record in one thread, decode by the
 * table sink's codec, conversion to a row and Iceberg's Parquet writer (files of 10,000 rows, staged and dropped),
 * into a table of {@code TableBench}'s schema made with the sink's write properties, on an in-memory catalog. Timed
 * in the thread's CPU time, so other processes on a busy machine do not count; prints the median per round of
 * {@code rows} rows and the bytes the thread allocated. Run it under the launcher's heap to see its collections.
 */
public final class TableRowsCpu {
    private static final int FILE_ROWS = 10_000;
    private static final String TABLE = "bench.events";

    private TableRowsCpu() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int[] sizes = args.length > 2
                ? Arrays.stream(args, 2, args.length).mapToInt(Integer::parseInt).toArray() : new int[] {100, 1024};
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        System.out.printf("%-6s %14s %12s %10s%n", "size", "CPU ns/row", "B/row", "gc ms");
        for (int size : sizes) {
            InMemoryCatalog catalog = new InMemoryCatalog();
            catalog.initialize("bench", Map.of());
            catalog.createNamespace(Namespace.of("bench"));
            Schema schema = dev.iggysink.benchmarks.BenchTable.SCHEMA;
            catalog.createTable(TableIdentifier.parse(TABLE), schema,
                    PartitionSpec.builderFor(schema).day("iggy_timestamp").build(), null,
                    TableTemplate.WRITE_PROPERTIES);
            RecordCodec codec = codec();
            SinkRecord[] records = Fixtures.records(20_000, size, false);
            try (IcebergTables store = new IcebergTables(catalog, "bench")) {
                store.open(TABLE);
                write(store, codec, records, rows); // warm-up
                double[] ns = new double[rounds];
                double[] bytes = new double[rounds];
                double[] gc = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    long gc0 = gcMillis();
                    long cpu0 = threads.getThreadCpuTime(tid);
                    long alloc0 = threads.getThreadAllocatedBytes(tid);
                    write(store, codec, records, rows);
                    ns[r] = (threads.getThreadCpuTime(tid) - cpu0) / (double) rows;
                    bytes[r] = (threads.getThreadAllocatedBytes(tid) - alloc0) / (double) rows;
                    gc[r] = gcMillis() - gc0;
                }
                Arrays.sort(ns);
                Arrays.sort(bytes);
                Arrays.sort(gc);
                System.out.printf(Locale.ROOT, "%-6d %14.0f %12.0f %10.0f%n", size, ns[rounds / 2],
                        bytes[rounds / 2], gc[rounds / 2]);
            }
        }
    }

    /** The codec the table sink builds for a json stream without transforms. */
    private static RecordCodec codec() {
        return RecordCodecs.forTable(Fixtures.stream(PayloadSchema.JSON), List.of(), true);
    }

    private static void write(IcebergTables store, RecordCodec codec, SinkRecord[] records, int rows)
            throws Exception {
        TableStore.RowFile file = store.newFile(TABLE);
        for (int i = 0; i < rows; i++) {
            file.append(codec.decode(records[i % records.length]));
            if (file.count() == FILE_ROWS) {
                store.discard(file.stage());
                file = store.newFile(TABLE);
            }
        }
        if (file.count() > 0) store.discard(file.stage());
    }

    private static long gcMillis() {
        long sum = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) sum += Math.max(0, gc.getCollectionTime());
        return sum;
    }
}
