package dev.iggysink.bootstrap.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.application.status.StatusSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class StatusJsonTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static StatusSnapshot.Totals totals(long records, long buffered, long budget, boolean paused) {
        return new StatusSnapshot.Totals(records, records * 10, 3, 2048, 1, 2, buffered, budget, paused);
    }

    private static PartitionStatus uploaded() {
        return new PartitionStatus("logs", "api", 0, true, 1500, 999, 1600, 500, 5000, 1, 2,
                Optional.of("iggy/raw/logs/api/00000-00000000000000000000-00000000000000000999.jsonl"),
                Optional.of(Instant.parse("2026-03-16T14:02:31Z")), 42, Optional.empty(), false);
    }

    private static PartitionStatus fresh() {
        return new PartitionStatus("logs", "api", 1, false, 0, -1, -1, 0, 0, 0, 0, Optional.empty(),
                Optional.empty(), 0, Optional.of("poll failed: connection reset"), true);
    }

    @Test
    void an_ok_process_answers_exactly_status_ok() {
        var overall = StatusJson.overall(List.of(new SinkView("s3", new StatusSnapshot(Health.OK, List.of(),
                List.of(uploaded()), totals(1, 0, 100, false)))));
        assertThat(StatusJson.health(overall)).isEqualTo("{\"status\":\"ok\"}");
    }

    @Test
    void degraded_and_failed_are_distinct_and_carry_their_reasons() {
        var degraded = StatusJson.overall(List.of(new SinkView("s3", new StatusSnapshot(Health.DEGRADED,
                List.of("object store failing since 2026-03-16T14:02:31Z: 503"), List.of(), totals(0, 0, 1, false)))));
        var failed = StatusJson.overall(List.of(new SinkView("s3", new StatusSnapshot(Health.FAILED,
                List.of("403 Forbidden on PutObject"), List.of(), totals(0, 0, 1, false)))));

        JsonNode d = JSON.readTree(StatusJson.health(degraded));
        JsonNode f = JSON.readTree(StatusJson.health(failed));
        assertThat(d.get("status").asString()).isEqualTo("degraded");
        assertThat(d.get("reasons").get(0).asString()).startsWith("object store failing since");
        assertThat(f.get("status").asString()).isEqualTo("failed");
        assertThat(f.get("reasons").get(0).asString()).isEqualTo("403 Forbidden on PutObject");
    }

    @Test
    void several_sinks_report_the_worst_health_and_name_the_sink_in_each_reason() {
        var overall = StatusJson.overall(List.of(
                new SinkView("a", new StatusSnapshot(Health.DEGRADED, List.of("store down"), List.of(),
                        totals(0, 0, 1, false))),
                new SinkView("b", new StatusSnapshot(Health.FAILED, List.of("halted"), List.of(),
                        totals(0, 0, 1, false))),
                new SinkView("c", new StatusSnapshot(Health.OK, List.of(), List.of(), totals(0, 0, 1, false)))));
        assertThat(overall.health()).isEqualTo(Health.FAILED);
        assertThat(overall.reasons()).containsExactly("sink a: store down", "sink b: halted");
    }

    @Test
    void while_a_sink_starts_health_is_degraded_naming_what_it_waits_for_even_beside_a_running_one() {
        String waiting = "sink b: waiting for Iggy at 10.0.0.5:8090 (connection refused; 4 attempts, next in 8 s)";
        var starting = StatusJson.overall(List.of(), List.of(waiting));
        assertThat(starting.health()).isEqualTo(Health.DEGRADED);
        assertThat(starting.reasons()).containsExactly(waiting);

        var oneRunning = StatusJson.overall(List.of(new SinkView("a", new StatusSnapshot(Health.OK, List.of(),
                List.of(), totals(0, 0, 1, false)))), List.of(waiting));
        assertThat(oneRunning.health()).isEqualTo(Health.DEGRADED);
        assertThat(JSON.readTree(StatusJson.status(List.of(), List.of(waiting), false)).get("reasons").get(0)
                .asString()).isEqualTo(waiting);
    }

    @Test
    void paused_ranks_between_ok_and_degraded_and_its_since_is_in_the_status() {
        Instant since = Instant.parse("2026-03-16T14:02:31Z");
        StatusSnapshot paused = new StatusSnapshot(Health.PAUSED, List.of("paused since " + since), List.of(),
                totals(0, 0, 1, true), since.plusSeconds(60), Optional.of(since), List.of());
        var alone = StatusJson.overall(List.of(new SinkView("a", paused)));
        assertThat(JSON.readTree(StatusJson.health(alone)).get("status").asString()).isEqualTo("paused");
        var withDegraded = StatusJson.overall(List.of(new SinkView("a", paused), new SinkView("b",
                new StatusSnapshot(Health.DEGRADED, List.of("store down"), List.of(), totals(0, 0, 1, false)))));
        assertThat(withDegraded.health()).isEqualTo(Health.DEGRADED);
        assertThat(withDegraded.reasons()).containsExactly("sink a: paused since " + since, "sink b: store down");
        JsonNode sink = JSON.readTree(StatusJson.status(List.of(new SinkView("a", paused)))).get("sinks").get(0);
        assertThat(sink.get("paused_since").asString()).isEqualTo("2026-03-16T14:02:31Z");
    }

    @Test
    void the_age_of_the_oldest_pending_record_is_per_partition_and_the_largest_in_the_totals() {
        Instant stored = Instant.parse("2026-03-16T14:02:31Z");
        PartitionStatus waiting = new PartitionStatus("logs", "api", 0, true, 150, 99, 149, 50, 500, 1, 0,
                Optional.empty(), Optional.empty(), 0, Optional.empty(), false, Optional.of(stored));
        StatusSnapshot snapshot = new StatusSnapshot(Health.OK, List.of(), List.of(waiting, fresh()),
                totals(150, 0, 1, false), stored.plusSeconds(95), Optional.empty(), List.of());
        JsonNode root = JSON.readTree(StatusJson.status(List.of(new SinkView("s3", snapshot))));
        JsonNode partitions = root.get("sinks").get(0).get("partitions");
        assertThat(partitions.get(0).get("oldest_pending_record_age_seconds").asLong()).isEqualTo(95);
        assertThat(partitions.get(1).get("oldest_pending_record_age_seconds").asLong()).isZero();
        assertThat(root.get("totals").get("oldest_pending_record_age_seconds").asLong()).isEqualTo(95);
        assertThat(root.get("sinks").get(0).get("totals").get("oldest_pending_record_age_seconds").asLong())
                .isEqualTo(95);
    }

    @Test
    void live_is_alive_or_stuck_with_the_loops_that_stopped() {
        assertThat(StatusJson.live(List.of())).isEqualTo("{\"status\":\"alive\"}");
        JsonNode stuck = JSON.readTree(StatusJson.live(List.of("the consumer loop of logs/api has not come round")));
        assertThat(stuck.get("status").asString()).isEqualTo("stuck");
        assertThat(stuck.get("reasons").get(0).asString()).contains("logs/api");
    }

    @Test
    void no_running_sink_is_not_healthy() {
        var overall = StatusJson.overall(List.of());
        assertThat(overall.health()).isEqualTo(Health.DEGRADED);
        assertThat(overall.reasons()).containsExactly(StatusJson.NO_SINK);
    }

    @Test
    void status_renders_every_partition_field_with_nulls_for_what_is_absent() {
        String body = StatusJson.status(List.of(
                new SinkView("s3", new StatusSnapshot(Health.FAILED, List.of("poll failed: connection reset"),
                        List.of(uploaded(), fresh()), totals(1500, 5000, 64L << 20, true)))));
        JsonNode root = JSON.readTree(body);

        assertThat(root.get("status").asString()).isEqualTo("failed");
        JsonNode sink = root.get("sinks").get(0);
        assertThat(sink.get("key").asString()).isEqualTo("s3");
        JsonNode p0 = sink.get("partitions").get(0);
        assertThat(p0.get("stream").asString()).isEqualTo("logs");
        assertThat(p0.get("topic").asString()).isEqualTo("api");
        assertThat(p0.get("partition").asInt()).isZero();
        assertThat(p0.get("owned").asBoolean()).isTrue();
        assertThat(p0.get("position").asLong()).isEqualTo(1500);
        assertThat(p0.get("committed").asLong()).isEqualTo(999);
        assertThat(p0.get("current_offset").asLong()).isEqualTo(1600);
        assertThat(p0.get("lag").asLong()).isEqualTo(601);
        assertThat(p0.get("buffered_records").asLong()).isEqualTo(500);
        assertThat(p0.get("buffered_bytes").asLong()).isEqualTo(5000);
        assertThat(p0.get("open_files").asInt()).isEqualTo(1);
        assertThat(p0.get("pending_uploads").asInt()).isEqualTo(2);
        assertThat(p0.get("last_upload_key").asString()).endsWith("00000000000000000999.jsonl");
        assertThat(p0.get("last_upload_at").asString()).isEqualTo("2026-03-16T14:02:31Z");
        assertThat(p0.get("last_upload_millis").asLong()).isEqualTo(42);
        assertThat(p0.get("last_error").isNull()).isTrue();
        assertThat(p0.get("halted").asBoolean()).isFalse();

        JsonNode p1 = sink.get("partitions").get(1);
        assertThat(p1.get("committed").asLong()).isEqualTo(-1);
        assertThat(p1.get("lag").asLong()).isZero();
        assertThat(p1.get("last_upload_key").isNull()).isTrue();
        assertThat(p1.get("last_upload_at").isNull()).isTrue();
        assertThat(p1.get("last_upload_millis").isNull()).isTrue();
        assertThat(p1.get("last_error").asString()).isEqualTo("poll failed: connection reset");
        assertThat(p1.get("halted").asBoolean()).isTrue();

        JsonNode t = root.get("totals");
        assertThat(t.get("records_consumed").asLong()).isEqualTo(1500);
        assertThat(t.get("bytes_consumed").asLong()).isEqualTo(15000);
        assertThat(t.get("objects_uploaded").asLong()).isEqualTo(3);
        assertThat(t.get("bytes_uploaded").asLong()).isEqualTo(2048);
        assertThat(t.get("upload_retries").asLong()).isEqualTo(1);
        assertThat(t.get("dead_lettered").asLong()).isEqualTo(2);
        assertThat(t.get("buffered_bytes").asLong()).isEqualTo(5000);
        assertThat(t.get("max_buffered_bytes").asLong()).isEqualTo(64L << 20);
        assertThat(t.get("paused").asBoolean()).isTrue();
    }

    @Test
    void process_totals_add_up_the_sinks() {
        String body = StatusJson.status(List.of(
                new SinkView("a", new StatusSnapshot(Health.OK, List.of(), List.of(), totals(10, 100, 1000, false))),
                new SinkView("b", new StatusSnapshot(Health.OK, List.of(), List.of(), totals(5, 50, 500, true)))));
        JsonNode t = JSON.readTree(body).get("totals");
        assertThat(t.get("records_consumed").asLong()).isEqualTo(15);
        assertThat(t.get("bytes_consumed").asLong()).isEqualTo(150);
        assertThat(t.get("objects_uploaded").asLong()).isEqualTo(6);
        assertThat(t.get("buffered_bytes").asLong()).isEqualTo(150);
        assertThat(t.get("max_buffered_bytes").asLong()).isEqualTo(1500);
        assertThat(t.get("paused").asBoolean()).isTrue();
        assertThat(JSON.readTree(body).get("sinks")).hasSize(2);
    }

    /** The README's Operations table names every /status field; a renamed field must not drift from it. */
    @Test
    void the_status_fields_are_the_ones_the_readme_names() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String row = readme.lines().filter(l -> l.startsWith("| `GET /status`")).findFirst().orElseThrow();
        // "totals (`a`, `b`) and per sink and partition `c`, `d`; plus ..."
        int totalsStart = row.indexOf("totals (");
        int split = row.indexOf("per sink and partition");
        Set<String> totalsNamed = backticked(row.substring(totalsStart, split));
        Set<String> partitionNamed = backticked(row.substring(split, row.indexOf(';', split)));

        JsonNode root = JSON.readTree(StatusJson.status(List.of(new SinkView("s3", new StatusSnapshot(Health.OK,
                List.of(), List.of(uploaded()), totals(1, 0, 100, false))))));
        assertThat(fieldNames(root.get("totals"))).isEqualTo(totalsNamed);
        Set<String> partitionFields = fieldNames(root.get("sinks").get(0).get("partitions").get(0));
        // stream, topic and partition identify the row; the README names what is reported about it.
        partitionFields.removeAll(Set.of("stream", "topic", "partition"));
        assertThat(partitionFields).isEqualTo(partitionNamed);
    }

    private static Set<String> backticked(String text) {
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("`([^`]+)`").matcher(text);
        while (m.find()) names.add(m.group(1));
        return names;
    }

    private static Set<String> fieldNames(JsonNode node) {
        Set<String> names = new TreeSet<>();
        node.propertyNames().forEach(names::add);
        return names;
    }
}
