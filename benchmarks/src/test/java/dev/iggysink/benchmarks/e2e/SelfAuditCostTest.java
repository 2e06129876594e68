package dev.iggysink.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The self-audit-cost line built from paired runs, and the sink's meters read from its Prometheus text. */
class SelfAuditCostTest {
    @Test
    void each_scenario_gets_the_audits_shares_and_the_on_off_ratios_over_its_pairs() {
        List<Map<String, String>> rows = List.of(
                row("100b-1000rec", "600", 95_000, 10.5, "0.4", "1.2"),
                row("100b-1000rec", "0", 100_000, 10.0, "-1.0", "-1.0"),
                row("1kib-8mib", "600", 100_000, 5.0, "0.1", "9.0"),
                row("100b-1000rec", "0", 90_000, 12.0, "-1.0", "-1.0"),
                row("100b-1000rec", "600", 90_000, 12.0, "0.6", "1.8"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        boolean any = SelfAuditCost.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), rows);

        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(any).isTrue();
        // Pairs (95k/100k, 10.5/10) and (90k/90k, 12/12); shares of the on runs: (0.4 + 0.6) / 2, (1.2 + 1.8) / 2.
        assertThat(text).contains("self-audit cost 100b-1000rec (budget 600 requests/min): its thread 0.500% of the"
                + " sink's CPU (0.250% from the first record), 1.500% of the store's requests; records/s ratio 0.975, cpu ratio 1.025 over 2 pairs\n");
        assertThat(text).contains("pair 2: records/s 90,000 on / 90,000 off");
        assertThat(text).doesNotContain("self-audit cost 1kib-8mib");
    }

    @Test
    void a_metric_is_the_sum_of_its_samples_and_minus_one_when_absent() {
        String text = """
                # HELP iggysink_audit_cpu_seconds_total CPU time
                # TYPE iggysink_audit_cpu_seconds_total counter
                iggysink_audit_cpu_seconds_total{sink="a"} 0.25
                iggysink_audit_cpu_seconds_total{sink="b"} 1.5
                iggysink_audit_requests_total{sink="a"} 120.0
                """;

        assertThat(SinkChild.metric(text, "iggysink_audit_cpu_seconds_total")).isEqualTo(1.75);
        assertThat(SinkChild.metric(text, "iggysink_audit_requests_total")).isEqualTo(120.0);
        assertThat(SinkChild.metric(text, "iggysink_audit_rounds_total")).isEqualTo(-1);
        assertThat(SinkChild.metric(null, "iggysink_audit_requests_total")).isEqualTo(-1);
    }

    private static Map<String, String> row(String name, String budget, double rps, double cpu, String cpuShare,
                                           String requestShare) {
        return Map.of("name", name, "self_audit_requests_per_minute", budget, "records_per_s", String.valueOf(rps),
                "cpu_total_us_per_record", String.valueOf(cpu), "audit_cpu_s", "0.1",
                "audit_cpu_share_pct", cpuShare, "audit_cpu_share_steady_pct",
                String.valueOf(Double.parseDouble(cpuShare) / 2), "audit_requests", "50",
                "audit_request_share_pct", requestShare);
    }
}
