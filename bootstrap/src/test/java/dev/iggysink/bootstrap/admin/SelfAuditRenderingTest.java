package dev.iggysink.bootstrap.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.StatusSnapshot;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The self-audit in {@code /status} ({@code self_audit}) and in the metrics ({@code iggysink_audit_*}). */
class SelfAuditRenderingTest {
    private static final Instant AT = Instant.parse("2026-03-16T14:05:00Z");
    private static final String GAP = "logs/api/0: offsets 100-199 are committed and in no object (between a and b)";

    private static AuditStatus found() {
        return new AuditStatus(600, Optional.of(AT), 7, 130, 41, 2,
                List.of(new AuditStatus.Covered("logs", "api", 0, 0, 299, 3, AT)), List.of(GAP),
                List.of("logs/api/0: the claim of the file from offset 100 is still in the store"),
                new AuditStatus.Counts(1, 0, 0, 0, 1), Optional.empty());
    }

    private static SinkView view(Optional<AuditStatus> audit) {
        StatusSnapshot snapshot = new StatusSnapshot(Health.FAILED, List.of("self-audit: " + GAP), List.of(),
                new StatusSnapshot.Totals(0, 0, 0, 0, 0, 0, 0, 1, false));
        return new SinkView("s3", snapshot, Map.of(), Optional.empty(), audit);
    }

    @Test
    void status_says_when_the_last_round_ran_what_it_covered_and_what_it_found() {
        JsonNode sink = JsonMapper.builder().build().readTree(StatusJson.status(List.of(view(Optional.of(found())))))
                .get("sinks").get(0);

        JsonNode audit = sink.get("self_audit");
        assertThat(audit.get("last_round").asString()).isEqualTo("2026-03-16T14:05:00Z");
        assertThat(audit.get("requests_per_minute").asInt()).isEqualTo(600);
        assertThat(audit.get("objects_verified").asLong()).isEqualTo(41);
        assertThat(audit.get("findings").get("gaps").asInt()).isEqualTo(1);
        assertThat(audit.get("findings").get("claims_left_behind").asInt()).isEqualTo(1);
        assertThat(audit.get("problems").get(0).asString()).isEqualTo(GAP);
        JsonNode covered = audit.get("covered").get(0);
        assertThat(covered.get("partition").asInt()).isZero();
        assertThat(covered.get("from_offset").asLong()).isZero();
        assertThat(covered.get("to_offset").asLong()).isEqualTo(299);
        assertThat(covered.get("objects").asInt()).isEqualTo(3);
    }

    @Test
    void a_sink_without_self_audit_has_null_there() {
        JsonNode sink = JsonMapper.builder().build().readTree(StatusJson.status(List.of(view(Optional.empty()))))
                .get("sinks").get(0);
        assertThat(sink.get("self_audit").isNull()).isTrue();
    }

    @Test
    void the_metrics_count_rounds_requests_and_findings_by_kind() {
        try (PrometheusMetrics metrics = new PrometheusMetrics()) {
            PrometheusText text = PrometheusText.parse(metrics.scrape(List.of(view(Optional.of(found())))));
            Map<String, String> sink = Map.of("sink", "s3");
            assertThat(text.sum("iggysink_audit_rounds_total", sink)).isEqualTo(7);
            assertThat(text.sum("iggysink_audit_requests_total", sink)).isEqualTo(130);
            assertThat(text.sum("iggysink_audit_objects_verified_total", sink)).isEqualTo(41);
            assertThat(text.sum("iggysink_audit_findings", Map.of("sink", "s3", "kind", "gap"))).isEqualTo(1);
            assertThat(text.sum("iggysink_audit_findings", Map.of("sink", "s3", "kind", "overlap"))).isZero();
            assertThat(text.sum("iggysink_audit_last_round_timestamp_seconds", sink))
                    .isEqualTo(AT.getEpochSecond());
        }
    }
    @Test
    void the_cpu_metric_is_the_cpu_time_of_the_sinks_self_audit_thread() throws Exception {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        java.util.concurrent.atomic.AtomicLong burnt = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch scraped = new java.util.concurrent.CountDownLatch(1);
        Thread audit = new Thread(() -> {
            while (mx.getCurrentThreadCpuTime() < 50_000_000L) {
                Thread.onSpinWait();
            }
            burnt.set(mx.getCurrentThreadCpuTime());
            done.countDown();
            try {
                scraped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, dev.iggysink.application.status.AuditStatus.threadName("s3"));
        audit.start();
        try (PrometheusMetrics metrics = new PrometheusMetrics()) {
            done.await();
            PrometheusText text = PrometheusText.parse(metrics.scrape(List.of(view(Optional.of(found())))));
            double seconds = text.sum("iggysink_audit_cpu_seconds_total", Map.of("sink", "s3"));
            assertThat(seconds).isGreaterThanOrEqualTo(burnt.get() / 1e9).isLessThan(burnt.get() / 1e9 + 1);
        } finally {
            scraped.countDown();
            audit.join();
        }
    }
}
