package dev.iggysink.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The store's request counters as MinIO publishes them, and the claims-cost line built from paired runs. */
class ClaimsCostTest {

    @Test
    void the_store_counters_are_read_per_s3_api_and_subtracted_between_readings() {
        StoreRequests before = StoreRequests.parse("""
                # HELP minio_api_requests_total Total number of requests
                minio_api_requests_total{name="PutBucket",server="127.0.0.1:9000",type="s3"} 1
                minio_api_requests_4xx_errors_total{name="PutObject",server="127.0.0.1:9000",type="s3"} 1
                minio_api_requests_total{name="PutObject",server="127.0.0.1:9000",type="s3"} 3
                minio_api_requests_total{name="ServerInfo",server="127.0.0.1:9000",type="admin"} 7
                minio_api_requests_ttfb_seconds_distribution{le="+Inf",name="PutObject",type="s3"} 3
                """);
        StoreRequests after = StoreRequests.parse("""
                minio_api_requests_total{name="PutBucket",server="127.0.0.1:9000",type="s3"} 1
                minio_api_requests_4xx_errors_total{name="PutObject",server="127.0.0.1:9000",type="s3"} 4
                minio_api_requests_total{name="PutObject",server="127.0.0.1:9000",type="s3"} 1.013e+03
                minio_api_requests_total{name="DeleteObject",server="127.0.0.1:9000",type="s3"} 504
                """);

        StoreRequests run = after.since(before);

        assertThat(before.all()).isEqualTo(4);
        assertThat(run.of("PutObject")).isEqualTo(1010);
        assertThat(run.refusedOf("PutObject")).isEqualTo(3);
        assertThat(run.of("PutBucket")).isZero();
        assertThat(run.all()).isEqualTo(1514);
        assertThat(run.breakdown()).isEqualTo("PutObject 1010, DeleteObject 504");
    }

    @Test
    void each_scenario_gets_one_line_of_on_off_ratios_over_its_pairs() {
        List<Map<String, String>> rows = List.of(
                row("100b-1000rec", "on", 80_000, 14.0, 3.0),
                row("100b-1000rec", "off", 100_000, 10.0, 1.0),
                row("1kib-8mib", "on", 100_000, 5.0, 4.0),
                row("100b-1000rec", "off", 90_000, 12.0, 1.0),
                row("100b-1000rec", "on", 90_000, 12.0, 3.5));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        boolean any = ClaimsCost.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), rows);

        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(any).isTrue();
        // Pairs (80k/100k, 14/10) and (90k/90k, 12/12): R = (0.8 + 1.0) / 2, C = (1.4 + 1.0) / 2, Q = (3 + 3.5) / 2.
        assertThat(text).contains("claims cost 100b-1000rec: records/s ratio 0.90, cpu ratio 1.20,"
                + " requests per file 3.25\n");
        assertThat(text).contains("pair 2: records/s 90,000 on / 90,000 off");
        assertThat(text).doesNotContain("claims cost 1kib-8mib");
    }

    /** Runs under key_layout = "first_offset" get their own line, against the same runs with claims forced off. */
    @Test
    void the_first_offset_layout_gets_its_own_line_against_the_same_runs_without_claims() {
        Map<String, String> first = new java.util.HashMap<>(row("100b-1000rec", "on", 100_000, 11.0, 1.0));
        first.put("key_layout", "first_offset");
        List<Map<String, String>> rows = List.of(row("100b-1000rec", "on", 80_000, 14.0, 3.0), first,
                row("100b-1000rec", "off", 100_000, 10.0, 1.0));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        ClaimsCost.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), rows);

        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("claims cost 100b-1000rec: records/s ratio 0.80, cpu ratio 1.40,"
                + " requests per file 3.00\n");
        assertThat(text).contains("claims cost 100b-1000rec (first_offset): records/s ratio 1.00, cpu ratio 1.10,"
                + " requests per file 1.00\n");
    }

    @Test
    void without_a_pair_it_says_so() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        boolean any = ClaimsCost.print(new PrintStream(bytes, true, StandardCharsets.UTF_8),
                List.of(row("1kib-8mib", "on", 100_000, 5.0, 4.0)));

        assertThat(any).isFalse();
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("no scenario was run both");
    }

    private static Map<String, String> row(String name, String claims, double rps, double cpu, double perFile) {
        return Map.of("name", name, "claims", claims, "records_per_s", String.valueOf(rps),
                "cpu_total_us_per_record", String.valueOf(cpu), "cpu_us_per_record", String.valueOf(cpu - 1),
                "store_requests_per_file", String.valueOf(perFile), "claims_written", "504",
                "claims_refused", "0", "claims_deleted", "504");
    }
}
