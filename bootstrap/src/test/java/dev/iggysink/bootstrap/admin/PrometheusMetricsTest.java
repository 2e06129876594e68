package dev.iggysink.bootstrap.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.RotationReason;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PrometheusMetricsTest {
    private final PrometheusMetrics metrics = new PrometheusMetrics();
    private final PartitionRef p0 = new PartitionRef("logs", "api", 0);
    private final PartitionRef p1 = new PartitionRef("logs", "api", 1);

    @AfterEach
    void close() {
        metrics.close();
    }

    private static Map<String, String> labels(String... kv) {
        java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    private static StatusSnapshot status(Health health, long lag0, long budget) {
        PartitionStatus s0 = new PartitionStatus("logs", "api", 0, true, 120, 99, 99 + lag0, 20, 2000, 1, 0,
                Optional.empty(), Optional.empty(), 0, Optional.empty(), false);
        return new StatusSnapshot(health, List.of(), List.of(s0),
                new StatusSnapshot.Totals(120, 12000, 1, 500, 0, 0, 2000, budget, true));
    }

    @Test
    void a_topic_found_missing_is_1_until_found_again_and_a_topic_never_missing_has_no_series() {
        MicrometerSinkMetrics sink = metrics.forSink("s3");
        sink.topicMissing("logs", "gone", true);
        sink.topicMissing("logs", "back", true);
        sink.topicMissing("logs", "back", false);

        PrometheusText text = PrometheusText.parse(metrics.scrape(List.of()));
        assertThat(text.sum("iggysink_topic_missing", labels("sink", "s3", "stream", "logs", "topic", "gone")))
                .isEqualTo(1);
        assertThat(text.sum("iggysink_topic_missing", labels("topic", "back"))).isZero();
        assertThat(text.sum("iggysink_topic_missing", labels("sink", "s3"))).isEqualTo(1);
        assertThat(text.samples("iggysink_topic_missing", labels("topic", "api"))).isEmpty();
    }

    @Test
    void the_callbacks_become_prometheus_series_per_partition_and_reason() {
        MicrometerSinkMetrics sink = metrics.forSink("s3");
        sink.consumed(p0, 100, 10_000);
        sink.consumed(p0, 20, 2_000);
        sink.consumed(p1, 7, 700);
        sink.encoded(p0, 11_000);
        sink.sealed(p0, RotationReason.COUNT, 500);
        sink.sealed(p0, RotationReason.COUNT, 600);
        sink.sealed(p1, RotationReason.SHUTDOWN, 70);
        sink.uploaded(p0, 500, Duration.ofMillis(40));
        sink.uploaded(p0, 600, Duration.ofMillis(60));
        sink.uploadRetried("http_503");
        sink.uploadRetried("http_503");
        sink.uploadRetried("transport");
        sink.deadLettered(p1);
        sink.committed(p0, 99);

        PrometheusText text = PrometheusText.parse(metrics.scrape(List.of()));
        Map<String, String> part0 = labels("sink", "s3", "stream", "logs", "topic", "api", "partition", "0");
        assertThat(text.sum("iggysink_consumed_records_total", part0)).isEqualTo(120);
        assertThat(text.sum("iggysink_consumed_records_total", labels("sink", "s3"))).isEqualTo(127);
        assertThat(text.sum("iggysink_consumed_bytes_total", part0)).isEqualTo(12_000);
        assertThat(text.sum("iggysink_encoded_bytes_total", part0)).isEqualTo(11_000);
        assertThat(text.sum("iggysink_uploaded_bytes_total", part0)).isEqualTo(1_100);
        assertThat(text.sum("iggysink_uploaded_objects_total", part0)).isEqualTo(2);
        assertThat(text.sum("iggysink_rotations_total", labels("reason", "count"))).isEqualTo(2);
        assertThat(text.sum("iggysink_rotations_total", labels("reason", "shutdown"))).isEqualTo(1);
        assertThat(text.sum("iggysink_upload_retries_total", labels("reason", "http_503"))).isEqualTo(2);
        assertThat(text.sum("iggysink_upload_retries_total", labels("reason", "transport"))).isEqualTo(1);
        assertThat(text.sum("iggysink_dead_lettered_records_total", labels("partition", "1"))).isEqualTo(1);
        assertThat(text.sum("iggysink_committed_offset", part0)).isEqualTo(99);
        assertThat(text.sum("iggysink_file_size_bytes_count", labels("sink", "s3"))).isEqualTo(3);
        assertThat(text.sum("iggysink_file_size_bytes_sum", labels("sink", "s3"))).isEqualTo(1170);
    }

    @Test
    void lag_is_defined_as_the_backlog_and_the_oldest_pending_age_is_a_gauge_in_seconds() {
        java.time.Instant stored = java.time.Instant.parse("2026-03-16T14:02:31Z");
        PartitionStatus waiting = new PartitionStatus("logs", "api", 0, true, 150, 99, 449, 50, 500, 1, 0,
                Optional.empty(), Optional.empty(), 0, Optional.empty(), false, Optional.of(stored));
        StatusSnapshot s = new StatusSnapshot(Health.PAUSED, List.of("paused"), List.of(waiting),
                new StatusSnapshot.Totals(150, 0, 1, 0, 0, 0, 500, 1000, true), stored.plusSeconds(75),
                Optional.of(stored), List.of());
        String scraped = metrics.scrape(List.of(new SinkView("s3", s)));
        PrometheusText text = PrometheusText.parse(scraped);
        Map<String, String> part0 = labels("sink", "s3", "partition", "0");
        assertThat(text.sum("iggysink_lag_records", part0)).isEqualTo(350);
        assertThat(text.sum("iggysink_oldest_pending_record_age_seconds", part0)).isEqualTo(75);
        assertThat(text.sum("iggysink_health", labels("sink", "s3"))).isEqualTo(3);
        assertThat(scraped).contains("# HELP iggysink_lag_records the backlog: the partition's end offset in Iggy"
                + " minus the group's committed offset");
    }

    @Test
    void upload_latency_is_a_histogram_with_buckets() {
        MicrometerSinkMetrics sink = metrics.forSink("s3");
        sink.uploaded(p0, 1, Duration.ofMillis(40));
        sink.uploaded(p0, 1, Duration.ofSeconds(3));

        PrometheusText text = PrometheusText.parse(metrics.scrape(List.of()));
        assertThat(text.type("iggysink_upload_duration_seconds")).isEqualTo("histogram");
        assertThat(text.samples("iggysink_upload_duration_seconds_bucket", labels("sink", "s3")).size())
                .isGreaterThan(10);
        assertThat(text.sum("iggysink_upload_duration_seconds_bucket", labels("le", "+Inf"))).isEqualTo(2);
        assertThat(text.sum("iggysink_upload_duration_seconds_count", labels())).isEqualTo(2);
        assertThat(text.sum("iggysink_upload_duration_seconds_sum", labels())).isEqualTo(3.04, within());
        // Only the 40 ms upload is under one second.
        double underOneSecond = text.samples("iggysink_upload_duration_seconds_bucket", labels()).stream()
                .filter(s -> !s.labels().get("le").equals("+Inf") && Double.parseDouble(s.labels().get("le")) <= 1.0)
                .mapToDouble(PrometheusText.Sample::value).max().orElseThrow();
        assertThat(underOneSecond).isEqualTo(1);
    }

    private static org.assertj.core.data.Offset<Double> within() {
        return org.assertj.core.data.Offset.offset(1e-6);
    }

    @Test
    void gauges_from_status_follow_each_scrape() {
        metrics.forSink("s3");
        PrometheusText first = PrometheusText.parse(metrics.scrape(List.of(
                new SinkView("s3", status(Health.DEGRADED, 50, 64L << 20)))));
        assertThat(first.sum("iggysink_lag_records", labels("partition", "0"))).isEqualTo(50);
        assertThat(first.sum("iggysink_buffered_bytes", labels("sink", "s3"))).isEqualTo(2000);
        assertThat(first.sum("iggysink_buffer_budget_bytes", labels("sink", "s3"))).isEqualTo(64L << 20);
        assertThat(first.sum("iggysink_partition_buffered_bytes", labels("partition", "0"))).isEqualTo(2000);
        assertThat(first.sum("iggysink_health", labels("sink", "s3"))).isEqualTo(1);
        assertThat(first.sum("iggysink_paused", labels("sink", "s3"))).isEqualTo(1);
        assertThat(first.sum("iggysink_committed_offset", labels("partition", "0"))).isEqualTo(99);

        PrometheusText second = PrometheusText.parse(metrics.scrape(List.of(
                new SinkView("s3", status(Health.FAILED, 7, 64L << 20)))));
        assertThat(second.sum("iggysink_lag_records", labels("partition", "0"))).isEqualTo(7);
        assertThat(second.sum("iggysink_health", labels("sink", "s3"))).isEqualTo(2);
    }

    @Test
    void two_sinks_reading_the_same_partition_keep_separate_series() {
        metrics.forSink("a").consumed(p0, 3, 30);
        metrics.forSink("b").consumed(p0, 5, 50);
        assertThat(metrics.forSink("a")).isSameAs(metrics.forSink("a"));

        PrometheusText text = PrometheusText.parse(metrics.scrape(List.of()));
        assertThat(text.sum("iggysink_consumed_records_total", labels("sink", "a"))).isEqualTo(3);
        assertThat(text.sum("iggysink_consumed_records_total", labels("sink", "b"))).isEqualTo(5);
    }

    @Test
    void jvm_and_process_meters_are_exposed() {
        PrometheusText text = PrometheusText.parse(metrics.scrape(List.of()));
        assertThat(text.has("jvm_memory_used_bytes")).isTrue();
        assertThat(text.has("jvm_threads_live_threads")).isTrue();
        assertThat(text.has("system_cpu_count")).isTrue();
        assertThat(text.has("process_uptime_seconds")).isTrue();
    }

    @Test
    void each_collectors_collections_and_their_time_are_read_from_the_jvm_when_scraped() {
        PrometheusText before = PrometheusText.parse(metrics.scrape(List.of()));
        List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
        long counted = 0;
        for (GarbageCollectorMXBean gc : collectors) {
            Map<String, String> tag = labels("gc", gc.getName());
            // Read from the bean now: equal to it or behind it by the collections since the scrape, never ahead.
            assertThat(before.sum("jvm_gc_collection_seconds_count", tag))
                    .isLessThanOrEqualTo(gc.getCollectionCount()).isGreaterThanOrEqualTo(0);
            counted += (long) before.sum("jvm_gc_collection_seconds_count", tag);
        }
        assertThat(before.type("jvm_gc_collection_seconds")).isEqualTo("summary");

        System.gc();

        PrometheusText after = PrometheusText.parse(metrics.scrape(List.of()));
        long countedAfter = 0;
        for (GarbageCollectorMXBean gc : collectors) {
            countedAfter += (long) after.sum("jvm_gc_collection_seconds_count", labels("gc", gc.getName()));
        }
        assertThat(countedAfter).isGreaterThan(counted);
        assertThat(after.sum("jvm_gc_collection_seconds_sum", Map.of()))
                .isGreaterThanOrEqualTo(before.sum("jvm_gc_collection_seconds_sum", Map.of()));
    }

    @Test
    void the_test_parser_rejects_what_a_scraper_would_reject() {
        assertThatThrownBy(() -> PrometheusText.parse("metric{a=\"1\" 3\n")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrometheusText.parse("# TYPE x bogus\n")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrometheusText.parse("9metric 1\n")).isInstanceOf(IllegalArgumentException.class);
    }
}
