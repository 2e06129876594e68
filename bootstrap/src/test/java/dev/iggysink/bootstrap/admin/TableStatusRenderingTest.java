package dev.iggysink.bootstrap.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import dev.iggysink.application.status.TableStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** How a table sink's {@link TableStatus} shows in {@code /status} and {@code /metrics}. */
class TableStatusRenderingTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final PrometheusMetrics metrics = new PrometheusMetrics();

    @AfterEach
    void close() {
        metrics.close();
    }

    private static TableStatus tables(long commits, long failuresInRow) {
        TableStatus.Totals totals = new TableStatus.Totals(commits, 2, failuresInRow,
                failuresInRow == 0 ? Optional.empty() : Optional.of("table lake.events: read timed out"), 3, 1,
                Optional.of(Duration.ofMillis(40)), Duration.ofMillis(90), Duration.ofMillis(40 * commits), 12,
                4096, 700, 5, 4, Optional.of("s3://letters/app/events/00001-00000000000000000010.json"));
        return new TableStatus(totals, List.of(
                new TableStatus.Lane("app", "events", 0, "lake.events", 699, 599, 599, 750, 2, 100,
                        Optional.empty()),
                new TableStatus.Lane("app", "events", 1, "lake.events", 9, 9, 9, -1, 0, 0,
                        Optional.of("bad record at offset 10: field 'n' is not a long"))));
    }

    private static SinkView view(TableStatus tables) {
        PartitionStatus p0 = new PartitionStatus("app", "events", 0, true, 700, 599, 750, 100, 2048, 1, 2,
                Optional.empty(), Optional.empty(), 0, Optional.empty(), false);
        StatusSnapshot snapshot = new StatusSnapshot(Health.OK, List.of(), List.of(p0),
                new StatusSnapshot.Totals(700, 7000, 12, 4096, 2, 0, 2048, 1 << 20, false));
        return new SinkView("lake", snapshot, Map.of("schedule", 4L), Optional.of(tables));
    }

    private static Map<String, String> labels(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    @Test
    void status_shows_each_table_watermark_of_each_topic() {
        TableStatus base = tables(10, 0);
        TableStatus marked = new TableStatus(base.totals(), base.lanes(), List.of(), 0, List.of(
                new TableStatus.Watermark("app", "events", "lake.events",
                        java.time.Instant.parse("2026-12-05T13:59:55Z"))));
        JsonNode t = JSON.readTree(StatusJson.status(List.of(view(marked)))).get("sinks").get(0).get("tables");
        assertThat(t.get("watermarks")).hasSize(1);
        JsonNode w = t.get("watermarks").get(0);
        assertThat(w.get("stream").asString()).isEqualTo("app");
        assertThat(w.get("topic").asString()).isEqualTo("events");
        assertThat(w.get("table").asString()).isEqualTo("lake.events");
        assertThat(w.get("watermark").asString()).isEqualTo("2026-12-05T13:59:55Z");
        assertThat(JSON.readTree(StatusJson.status(List.of(view(base)))).get("sinks").get(0).get("tables")
                .get("watermarks")).as("none before a commit recorded one").isEmpty();
    }

    @Test
    void status_shows_the_table_totals_and_each_lane_with_nulls_for_what_is_absent() {
        JsonNode sink = JSON.readTree(StatusJson.status(List.of(view(tables(10, 1))))).get("sinks").get(0);

        assertThat(sink.get("kind").asString()).isEqualTo("table");
        JsonNode t = sink.get("tables");
        assertThat(t.get("commits").asLong()).isEqualTo(10);
        assertThat(t.get("failed_commits").asLong()).isEqualTo(2);
        assertThat(t.get("failures_in_row").asLong()).isEqualTo(1);
        assertThat(t.get("last_failure").asString()).contains("read timed out");
        assertThat(t.get("conflicts").asLong()).isEqualTo(3);
        assertThat(t.get("refused_partitions").asLong()).isEqualTo(1);
        assertThat(t.get("last_commit_millis").asLong()).isEqualTo(40);
        assertThat(t.get("avg_commit_millis").asLong()).isEqualTo(40);
        assertThat(t.get("max_commit_millis").asLong()).isEqualTo(90);
        assertThat(t.get("data_files").asLong()).isEqualTo(12);
        assertThat(t.get("data_bytes").asLong()).isEqualTo(4096);
        assertThat(t.get("rows_committed").asLong()).isEqualTo(700);
        assertThat(t.get("bad_records").asLong()).isEqualTo(5);
        assertThat(t.get("dead_lettered").asLong()).isEqualTo(4);
        assertThat(t.get("last_dead_letter").asString())
                .isEqualTo("s3://letters/app/events/00001-00000000000000000010.json");

        JsonNode lane0 = t.get("lanes").get(0);
        assertThat(lane0.get("table").asString()).isEqualTo("lake.events");
        assertThat(lane0.get("partition").asInt()).isZero();
        assertThat(lane0.get("read_offset").asLong()).isEqualTo(699);
        assertThat(lane0.get("table_offset").asLong()).isEqualTo(599);
        assertThat(lane0.get("group_offset").asLong()).isEqualTo(599);
        assertThat(lane0.get("end_offset").asLong()).isEqualTo(750);
        assertThat(lane0.get("lag").asLong()).isEqualTo(151);
        assertThat(lane0.get("sealed_files").asInt()).isEqualTo(2);
        assertThat(lane0.get("open_records").asLong()).isEqualTo(100);
        assertThat(lane0.get("halted").isNull()).isTrue();
        JsonNode lane1 = t.get("lanes").get(1);
        assertThat(lane1.get("lag").asLong()).isZero(); // end not known yet
        assertThat(lane1.get("halted").asString()).contains("offset 10");

        JsonNode ok = JSON.readTree(StatusJson.status(List.of(view(tables(0, 0))))).get("sinks").get(0);
        assertThat(ok.get("tables").get("last_failure").isNull()).isTrue();
    }

    @Test
    void an_object_sink_has_no_tables() {
        SinkView object = new SinkView("s3", new StatusSnapshot(Health.OK, List.of(), List.of(),
                new StatusSnapshot.Totals(0, 0, 0, 0, 0, 0, 0, 1, false)));
        JsonNode sink = JSON.readTree(StatusJson.status(List.of(object))).get("sinks").get(0);
        assertThat(sink.get("kind").asString()).isEqualTo("object");
        assertThat(sink.get("tables").isNull()).isTrue();
    }

    @Test
    void metrics_count_commits_and_time_them_and_show_each_lane_and_the_lag() {
        MicrometerTableMetrics table = metrics.forTables("lake");
        table.commitTook(Duration.ofMillis(40));
        table.commitTook(Duration.ofMillis(90));

        PrometheusText text = PrometheusText.parse(metrics.scrape(List.of(view(tables(10, 1)))));
        Map<String, String> sink = labels("sink", "lake");
        assertThat(text.sum("iggysink_table_commits_total", sink)).isEqualTo(10);
        assertThat(text.type("iggysink_table_commits_total")).isEqualTo("counter");
        assertThat(text.sum("iggysink_table_commit_failures_total", sink)).isEqualTo(2);
        assertThat(text.sum("iggysink_table_commit_failures_in_row", sink)).isEqualTo(1);
        assertThat(text.sum("iggysink_table_commit_conflicts_total", sink)).isEqualTo(3);
        assertThat(text.sum("iggysink_table_commit_refusals_total", sink)).isEqualTo(1);
        assertThat(text.sum("iggysink_table_data_files_total", sink)).isEqualTo(12);
        assertThat(text.sum("iggysink_table_data_bytes_total", sink)).isEqualTo(4096);
        assertThat(text.sum("iggysink_table_rows_total", sink)).isEqualTo(700);
        assertThat(text.sum("iggysink_table_bad_records_total", sink)).isEqualTo(5);
        assertThat(text.type("iggysink_table_commit_duration_seconds")).isEqualTo("histogram");
        assertThat(text.sum("iggysink_table_commit_duration_seconds_count", sink)).isEqualTo(2);
        assertThat(text.sum("iggysink_table_commit_duration_seconds_sum", sink)).isEqualTo(0.13, within());
        assertThat(text.sum("iggysink_table_offset", labels("sink", "lake", "partition", "0", "table",
                "lake.events"))).isEqualTo(599);
        // the backlog per partition is the object sink's series, from the same snapshot
        assertThat(text.sum("iggysink_lag_records", labels("sink", "lake", "partition", "0"))).isEqualTo(151);
        assertThat(text.sum("iggysink_committed_offset", labels("sink", "lake", "partition", "0"))).isEqualTo(599);

        // counters follow the status: a later scrape shows the later totals
        text = PrometheusText.parse(metrics.scrape(List.of(view(tables(11, 0)))));
        assertThat(text.sum("iggysink_table_commits_total", sink)).isEqualTo(11);
        assertThat(text.sum("iggysink_table_commit_failures_in_row", sink)).isZero();
    }

    @Test
    void a_replaced_table_is_told_in_status_and_counted_in_metrics() {
        TableStatus base = tables(3, 0);
        String line = "table lake.events was replaced (uuid-a -> uuid-b) at 2026-12-05T11:00:00Z; reading resumes"
                + " from the group's offset: app/events/0 at 599";
        TableStatus replaced = new TableStatus(base.totals(), base.lanes(), List.of(line), 2);

        JsonNode t = JSON.readTree(StatusJson.status(List.of(view(replaced)))).get("sinks").get(0).get("tables");
        assertThat(t.get("replacements").asLong()).isEqualTo(2);
        assertThat(t.get("replaced").get(0).asString()).isEqualTo(line);
        JsonNode none = JSON.readTree(StatusJson.status(List.of(view(base)))).get("sinks").get(0).get("tables");
        assertThat(none.get("replaced").isEmpty()).isTrue();

        metrics.forTables("lake");
        PrometheusText text = PrometheusText.parse(metrics.scrape(List.of(view(replaced))));
        assertThat(text.sum("iggysink_table_replacements_total", labels("sink", "lake"))).isEqualTo(2);
    }

    private static org.assertj.core.data.Offset<Double> within() {
        return org.assertj.core.data.Offset.offset(1e-9);
    }
}
