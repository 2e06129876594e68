package dev.iggysink.benchmarks.e2e;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code e2e-table}: the summary tables of one bench run, read back from the results file: every throughput scenario
 * (records/s, MB/s, raw-PUT ratio, CPU per record, peak RSS), the scaling scenarios (names starting {@code scale-})
 * on their own, and the latency scenarios.
 */
public final class ResultsTable {
    private static final Pattern FIELD = Pattern.compile("\"([a-z_0-9]+)\":(\"(?:[^\"\\\\]|\\\\.)*\"|[^,}]+)");

    private ResultsTable() {
    }

    public static int run(String[] args) throws IOException {
        List<Map<String, String>> rows = rows("e2e-table", args);
        if (rows == null) return 2;
        print(System.out, rows);
        return 0;
    }

    /**
     * The rows of the results file ({@code --results FILE}, default {@code bench-results/results.jsonl}) written at or
     * after {@code --since EPOCH_SECONDS}; null, with the reason on stderr, for other options or a missing file.
     */
    static List<Map<String, String>> rows(String command, String[] args) throws IOException {
        String results = "bench-results/results.jsonl";
        Instant since = Instant.EPOCH;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--results" -> results = args[++i];
                case "--since" -> since = Instant.ofEpochSecond(Long.parseLong(args[++i]));
                default -> {
                    System.err.println("usage: " + command + " [--results FILE] [--since EPOCH_SECONDS]");
                    return null;
                }
            }
        }
        Path file = Path.of(results);
        if (!Files.isRegularFile(file)) {
            System.err.println(command + ": no results file " + file);
            return null;
        }
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            Map<String, String> row = parse(line);
            String at = row.get("at");
            if (at != null && !Instant.parse(at).isBefore(since)) rows.add(row);
        }
        return rows;
    }

    static Map<String, String> parse(String jsonLine) {
        Map<String, String> row = new LinkedHashMap<>();
        Matcher m = FIELD.matcher(jsonLine);
        while (m.find()) {
            String v = m.group(2).trim();
            if (v.startsWith("\"")) v = v.substring(1, v.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
            row.put(m.group(1), v);
        }
        return row;
    }

    static void print(PrintStream out, List<Map<String, String>> rows) {
        String head = "%-22s %6s %4s %10s %8s %9s %9s %9s %9s %9s %9s %8s%n";
        boolean throughput = rows.stream()
                .anyMatch(r -> !"latency".equals(r.get("scenario")) && !r.get("name").startsWith("scale-"));
        if (throughput) {
                out.println("== throughput (CPU = sink user+system per record from first record to last commit;"
                    + " '+startup' from process start; '2nd half' over the run's second half, from the reading with"
                    + " half the records read to the last commit: raw-PUT ratio and CPU; 'CPU bound' the best ratio"
                    + " the CPU of the sink, MinIO and the broker allowed on these cores)");
            out.printf(Locale.ROOT, head, "scenario", "parts", "uc", "records/s", "MB/s", "vs rawPUT", "2nd half",
                    "CPU bound", "CPU us/r", "+startup", "2nd half", "RSS MiB");
            for (Map<String, String> r : rows) {
                if ("latency".equals(r.get("scenario")) || r.get("name").startsWith("scale-")) continue;
                row(out, head, r);
            }
        }
        boolean scaling = rows.stream().anyMatch(r -> r.get("name").startsWith("scale-"));
        if (scaling) {
            out.println("== scaling (1 KiB json_lines, 8 MiB files; partitions and upload_concurrency)");
            out.printf(Locale.ROOT, head, "scenario", "parts", "uc", "records/s", "MB/s", "vs rawPUT", "2nd half",
                    "CPU bound", "CPU us/r", "+startup", "2nd half", "RSS MiB");
            for (Map<String, String> r : rows) if (r.get("name").startsWith("scale-")) row(out, head, r);
        }
        boolean latency = rows.stream().anyMatch(r -> "latency".equals(r.get("scenario")));
        if (latency) {
            out.println("== latency (time from send acknowledged to offset committed, i.e. object durable)");
            out.printf(Locale.ROOT, "%-22s %9s %8s %8s %8s %8s %8s%n", "scenario", "schedule", "rate/s", "last ms",
                    "p50 ms", "max ms", "RSS MiB");
            for (Map<String, String> r : rows) {
                if (!"latency".equals(r.get("scenario"))) continue;
                out.printf(Locale.ROOT, "%-22s %9s %8s %8s %8s %8s %8s%n", r.get("name"),
                        r.get("rotate_schedule_interval"), r.get("trickle_per_s"), r.get("latency_last_ms"),
                        r.get("latency_p50_ms"), r.get("latency_max_ms"), r.get("peak_rss_mib"));
            }
        }
    }

    private static void row(PrintStream out, String format, Map<String, String> r) {
        out.printf(Locale.ROOT, format, r.get("name"), r.get("partitions"), r.get("upload_concurrency"),
                whole(r.get("records_per_s")), r.getOrDefault("payload_mb_per_s", "-"),
                r.getOrDefault("sink_vs_raw_put", "-"), r.getOrDefault("sink_vs_raw_put_second_half", "-"),
                r.getOrDefault("cpu_bound_ratio", "-"), r.getOrDefault("cpu_us_per_record", "-"),
                r.getOrDefault("cpu_total_us_per_record", "-"),
                r.getOrDefault("cpu_second_half_us_per_record", "-"), r.getOrDefault("peak_rss_mib", "-"));
    }

    private static String whole(String number) {
        if (number == null) return "-";
        try {
            return String.format(Locale.ROOT, "%,.0f", Double.parseDouble(number));
        } catch (NumberFormatException e) {
            return number;
        }
    }
}
