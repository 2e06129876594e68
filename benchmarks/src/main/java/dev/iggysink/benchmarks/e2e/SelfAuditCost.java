package dev.iggysink.benchmarks.e2e;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code self-audit-cost}: what the self-audit costs, from the results of {@code bench.sh --only self-audit} (each
 * scenario run with the default budget and with the self-audit off, interleaved). Records/s pairs alone cannot show
 * 2% on a shared machine (their spread is far wider), so the line leads with what noise does not drown: the CPU time
 * of the self-audit's own thread as a share of the sink's CPU time, and its store requests as a share of all the
 * store served, both from the runs with it on. Then, per scenario, the means over the pairs of on/off records/s and
 * of on/off CPU per record (whole process, start-up included), which should only be within noise of 1.
 */
public final class SelfAuditCost {
    private static final String FIELD = "self_audit_requests_per_minute";

    private SelfAuditCost() {
    }

    public static int run(String[] args) throws IOException {
        List<Map<String, String>> rows = ResultsTable.rows("self-audit-cost", args);
        if (rows == null) return 2;
        rows.removeIf(r -> !r.containsKey(FIELD) || "default".equals(r.get(FIELD)));
        return print(System.out, rows) ? 0 : 1;
    }

    /** One line per scenario with runs both ways, and its pairs; false when no scenario has a pair. */
    static boolean print(PrintStream out, List<Map<String, String>> rows) {
        Map<String, List<Map<String, String>>> on = new LinkedHashMap<>();
        Map<String, List<Map<String, String>>> off = new LinkedHashMap<>();
        for (Map<String, String> r : rows) {
            ("0".equals(r.get(FIELD)) ? off : on).computeIfAbsent(r.get("name"), k -> new ArrayList<>()).add(r);
        }
        boolean any = false;
        for (Map.Entry<String, List<Map<String, String>>> e : on.entrySet()) {
            List<Map<String, String>> with = e.getValue();
            List<Map<String, String>> without = off.getOrDefault(e.getKey(), List.of());
            int pairs = Math.min(with.size(), without.size());
            if (pairs == 0) continue;
            any = true;
            double r = 0;
            double c = 0;
            double cpuShare = 0;
            double steadyShare = 0;
            double requestShare = 0;
            StringBuilder detail = new StringBuilder();
            for (int i = 0; i < pairs; i++) {
                Map<String, String> a = with.get(i);
                Map<String, String> b = without.get(i);
                double ri = ClaimsCost.number(a, "records_per_s") / ClaimsCost.number(b, "records_per_s");
                double ci = ClaimsCost.number(a, "cpu_total_us_per_record")
                        / ClaimsCost.number(b, "cpu_total_us_per_record");
                r += ri;
                c += ci;
                cpuShare += ClaimsCost.number(a, "audit_cpu_share_pct");
                steadyShare += ClaimsCost.number(a, "audit_cpu_share_steady_pct");
                requestShare += ClaimsCost.number(a, "audit_request_share_pct");
                detail.append(String.format(Locale.ROOT,
                        "%n  pair %d: records/s %,.0f on / %,.0f off; CPU %.2f / %.2f us/record with start-up;"
                                + " self-audit thread %s s of CPU (%s%%; %s%% from the first record), %s store requests (%s%%)",
                        i + 1,
                        ClaimsCost.number(a, "records_per_s"), ClaimsCost.number(b, "records_per_s"),
                        ClaimsCost.number(a, "cpu_total_us_per_record"),
                        ClaimsCost.number(b, "cpu_total_us_per_record"), a.get("audit_cpu_s"),
                        a.get("audit_cpu_share_pct"), a.get("audit_cpu_share_steady_pct"), a.get("audit_requests"),
                        a.get("audit_request_share_pct")));
            }
            out.printf(Locale.ROOT, "self-audit cost %s (budget %s requests/min): its thread %.3f%% of the sink's"
                            + " CPU (%.3f%% from the first record), %.3f%% of the store's requests; records/s ratio %.3f, cpu ratio %.3f over %d"
                            + " pairs%s%n", e.getKey(), with.get(0).get(FIELD), cpuShare / pairs, steadyShare / pairs,
                    requestShare / pairs,
                    r / pairs, c / pairs, pairs, detail);
        }
        if (!any) out.println("self-audit cost: no scenario was run both with the self-audit on and off");
        return any;
    }
}
