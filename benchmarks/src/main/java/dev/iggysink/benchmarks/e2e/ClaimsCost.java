package dev.iggysink.benchmarks.e2e;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code claims-cost}: what claims cost, from the results of {@code bench.sh --only claims} (each scenario run with
 * claims on and forced off, interleaved). Per scenario, the i-th run with claims on is paired with the i-th without;
 * R and C are the means over the pairs of on/off records/s and of on/off CPU per record (whole process, start-up
 * included), Q the store's requests per sealed file with claims on (first record to exit).
 */
public final class ClaimsCost {
    private ClaimsCost() {
    }

    public static int run(String[] args) throws IOException {
        List<Map<String, String>> rows = ResultsTable.rows("claims-cost", args);
        if (rows == null) return 2;
        rows.removeIf(r -> !r.containsKey("claims"));
        return print(System.out, rows) ? 0 : 1;
    }

    /** One line per scenario with runs both ways, and its pairs; false when no scenario has a pair. */
    static boolean print(PrintStream out, List<Map<String, String>> rows) {
        Map<String, List<Map<String, String>>> on = new LinkedHashMap<>();
        Map<String, List<Map<String, String>>> off = new LinkedHashMap<>();
        for (Map<String, String> r : rows) {
            // The first-offset layout (ADR 0019) is its own line, against the same runs with claims forced off.
            String layout = r.getOrDefault("key_layout", "offsets");
            if ("off".equals(r.get("claims"))) {
                off.computeIfAbsent(r.get("name"), k -> new ArrayList<>()).add(r);
            } else {
                on.computeIfAbsent(r.get("name") + ("offsets".equals(layout) ? "" : "\0" + layout),
                        k -> new ArrayList<>()).add(r);
            }
        }
        boolean any = false;
        for (Map.Entry<String, List<Map<String, String>>> e : on.entrySet()) {
            List<Map<String, String>> with = e.getValue();
            String scenario = e.getKey().contains("\0") ? e.getKey().substring(0, e.getKey().indexOf('\0')) : e.getKey();
            String label = e.getKey().contains("\0")
                    ? scenario + " (" + e.getKey().substring(e.getKey().indexOf('\0') + 1) + ")" : scenario;
            List<Map<String, String>> without = off.getOrDefault(scenario, List.of());
            int pairs = Math.min(with.size(), without.size());
            if (pairs == 0) continue;
            any = true;
            double r = 0;
            double c = 0;
            double q = 0;
            StringBuilder detail = new StringBuilder();
            for (int i = 0; i < pairs; i++) {
                Map<String, String> a = with.get(i);
                Map<String, String> b = without.get(i);
                double ri = number(a, "records_per_s") / number(b, "records_per_s");
                double ci = number(a, "cpu_total_us_per_record") / number(b, "cpu_total_us_per_record");
                r += ri;
                c += ci;
                q += number(a, "store_requests_per_file");
                detail.append(String.format(Locale.ROOT,
                        "%n  pair %d: records/s %,.0f on / %,.0f off; CPU %.2f / %.2f us/record with start-up"
                                + " (%.2f / %.2f without); requests per file %s / %s; claims written %s, refused %s,"
                                + " deleted %s", i + 1, number(a, "records_per_s"), number(b, "records_per_s"),
                        number(a, "cpu_total_us_per_record"), number(b, "cpu_total_us_per_record"),
                        number(a, "cpu_us_per_record"), number(b, "cpu_us_per_record"),
                        a.get("store_requests_per_file"), b.get("store_requests_per_file"),
                        a.get("claims_written"), a.get("claims_refused"), a.get("claims_deleted")));
            }
            out.printf(Locale.ROOT, "claims cost %s: records/s ratio %.2f, cpu ratio %.2f, requests per file %.2f%s%n",
                    label, r / pairs, c / pairs, q / pairs, detail);
        }
        if (!any) out.println("claims cost: no scenario was run both with claims on and forced off");
        return any;
    }

    static double number(Map<String, String> row, String field) {
        String v = row.get(field);
        return v == null ? Double.NaN : Double.parseDouble(v);
    }
}
