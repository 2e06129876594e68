package dev.iggysink.benchmarks;

import dev.iggysink.benchmarks.e2e.EndToEndBench;
import dev.iggysink.benchmarks.e2e.ResultsTable;
import java.util.Arrays;

/**
 * Entry point of {@code benchmarks.jar}: {@code jmh [JMH options]} runs the micro-benchmarks (all JMH options work,
 * e.g. {@code jmh CodecBench -prof gc}); {@code e2e [options]} runs the end-to-end bench (see {@code e2e --help}).
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        String command = args.length == 0 ? "--help" : args[0];
        String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
        switch (command) {
            case "jmh" -> org.openjdk.jmh.Main.main(rest);
            case "e2e" -> System.exit(EndToEndBench.run(rest));
            case "e2e-table" -> System.exit(ResultsTable.run(rest));
            case "claims-cost" -> System.exit(dev.iggysink.benchmarks.e2e.ClaimsCost.run(rest));
            case "self-audit-cost" -> System.exit(dev.iggysink.benchmarks.e2e.SelfAuditCost.run(rest));
            case "tables" -> System.exit(dev.iggysink.benchmarks.e2e.TableBench.run(rest));
            case "codec-cpu" -> dev.iggysink.benchmarks.micro.CodecCpu.main(rest);
            case "table-rows-cpu" -> dev.iggysink.benchmarks.micro.TableRowsCpu.main(rest);
            case "table-writer" -> System.exit(dev.iggysink.benchmarks.micro.TableWriterHeap.run(rest));
            default -> {
                System.out.println("""
                        usage: java -jar benchmarks.jar jmh [JMH options]     micro-benchmarks (jmh -h for options)
                               java -jar benchmarks.jar e2e [options]         end-to-end bench (e2e --help)
                               java -jar benchmarks.jar e2e-table [--since S] summary tables of the results file
                               java -jar benchmarks.jar claims-cost [--since S] claims on against forced off
                               java -jar benchmarks.jar self-audit-cost [--since S] self-audit on against off
                               java -jar benchmarks.jar tables [--messages N] [--size S] [--partitions P] [--rounds R]
                                      [--catalogs jdbc,rest] [--freshness-seconds S] [--freshness-share F,... (1,0.4)]
                                      [--freshness-rate N (with --rounds 0: freshness only, at N records/s)]
                                      [--xmx HEAP] [--jfr] [--table-property K=V]... [--launcher F] [--sink-jar J]
                                      [--smoke] [--local-files (the JDBC warehouse and the object sink's files in
                                      local folders, not MinIO: what the sinks' S3 clients cost)]
                                                                         the Iceberg table sink beside the object sink
                                                                         (100 B and 1 KiB unless --size; the launcher's
                                                                         JVM options unless --xmx)
                               java -jar benchmarks.jar tables --idle S [--partitions P] [--sink-jar J] [--xmx HEAP]
                                                                         an idle table sink's CPU over S seconds
                               java -jar benchmarks.jar tables --self-audit-pairs N [--messages N] [--size S]
                                      [--partitions P] [--catalogs C]   the table sink's self-audit at its default
                                                                         budget against off, N interleaved pairs
                               java -jar benchmarks.jar codec-cpu [rounds]    json_lines codec in thread CPU time
                               java -jar benchmarks.jar table-rows-cpu [rounds] [rows] [sizes...]
                                                                         the table sink's decode, row and Parquet
                                                                         write in thread CPU time
                               java -jar benchmarks.jar table-writer [--rows N] [--size B] [--text repeated|random]
                                      [--close-every ROWS] [--variants heap,file-1m,file-4m,heap-1m] [--rounds R]
                                      [--jvm "OPTIONS" (instead of the launcher's heap and collector)]
                                                                         Iceberg's Parquet writer alone, 8 writers,
                                                                         each variant in a JVM with the launcher's heap""");
                System.exit("--help".equals(command) || "-h".equals(command) ? 0 : 2);
            }
        }
    }
}
