package dev.iggysink.domain.completeness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.naming.PathTemplate;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MarkersTest {
    private static final PathTemplate HOURS = PathTemplate.parse("{stream}/{topic}/{date}/{hour}");
    private static final ZoneId UTC = ZoneId.of("UTC");

    private static long at(String iso) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse(iso));
    }

    private static FileEntry file(int partition, long first, long last, String firstTime, String lastTime) {
        String folder = "raw/s/t/2026-12-05/13";
        return new FileEntry(folder, folder + "/" + String.format("%05d-%020d-%020d.jsonl", partition, first, last),
                partition, first, last, last - first + 1, 100 + first, 0xcafe + first, at(firstTime), at(lastTime));
    }

    private static PartitionProgress progress(int partition, long committed, String before, FileEntry... files) {
        return new PartitionProgress(partition, committed, committed, at(before), Long.MIN_VALUE, Optional.empty(),
                List.of(files));
    }

    private static Markers.Plan plan(Map<Integer, PartitionProgress> progress) {
        return Markers.plan(List.of(0, 1), progress, first -> HOURS.window(first, UTC));
    }

    @Test
    void a_folder_is_due_once_every_partition_passed_its_window() {
        FileEntry a = file(0, 0, 9, "2026-12-05T13:05:00Z", "2026-12-05T13:40:00Z");
        FileEntry b = file(1, 0, 4, "2026-12-05T13:10:00Z", "2026-12-05T13:50:00Z");
        Markers.Plan waiting = plan(Map.of(0, progress(0, 9, "2026-12-05T14:00:00Z", a),
                1, progress(1, 4, "2026-12-05T13:50:00Z", b)));
        assertThat(waiting.due()).isEmpty();
        assertThat(waiting.oldestWaiting()).hasValueSatisfying(w -> assertThat(w)
                .contains("raw/s/t/2026-12-05/13 (2026-12-05T13:00:00Z to 2026-12-05T14:00:00Z)",
                        "partition 1 is complete only up to 2026-12-05T13:50:00Z at offset 4"));

        Markers.Plan due = plan(Map.of(0, progress(0, 9, "2026-12-05T14:00:00Z", a),
                1, progress(1, 4, "2026-12-05T14:00:01Z", b)));
        assertThat(due.due()).singleElement().satisfies(m -> {
            assertThat(m.folder()).isEqualTo("raw/s/t/2026-12-05/13");
            assertThat(m.files()).containsExactly(a, b);
            assertThat(m.records()).isEqualTo(15);
        });
        assertThat(due.oldestWaiting()).isEmpty();
    }

    @Test
    void a_partition_without_progress_or_held_holds_the_folder_back() {
        FileEntry a = file(0, 0, 9, "2026-12-05T13:05:00Z", "2026-12-05T13:40:00Z");
        assertThat(plan(Map.of(0, progress(0, 9, "2026-12-05T15:00:00Z", a))).oldestWaiting())
                .hasValueSatisfying(w -> assertThat(w).contains("partition 1 has published no progress yet"));
        PartitionProgress halted = new PartitionProgress(1, 3, 3, at("2026-12-05T13:20:00Z"), Long.MIN_VALUE,
                Optional.of("bad record at offset 4"), List.of());
        Markers.Plan plan = plan(Map.of(0, progress(0, 9, "2026-12-05T15:00:00Z", a), 1, halted));
        assertThat(plan.due()).isEmpty();
        assertThat(plan.oldestWaiting()).hasValueSatisfying(w -> assertThat(w)
                .contains("partition 1 is complete only up to 2026-12-05T13:20:00Z", "held: bad record at offset 4"));
    }

    @Test
    void the_status_tells_an_idle_partition_waiting_for_the_clock_from_one_with_records_not_yet_committed() {
        FileEntry a = file(0, 0, 9, "2026-12-05T13:05:00Z", "2026-12-05T13:40:00Z");
        PartitionProgress idle = new PartitionProgress(1, 3, 3, at("2026-12-05T13:59:00Z"), Long.MIN_VALUE,
                Optional.empty(), true, List.of());
        assertThat(plan(Map.of(0, progress(0, 9, "2026-12-05T15:00:00Z", a), 1, idle)).oldestWaiting())
                .hasValueSatisfying(w -> assertThat(w).contains("partition 1 is complete only up to"
                        + " 2026-12-05T13:59:00Z at offset 3; it is idle (nothing past that offset when its end was"
                        + " read): it passes the window once the clock, less a margin for clock skew, does"));
        PartitionProgress busy = new PartitionProgress(1, 3, 3, at("2026-12-05T13:59:00Z"), Long.MIN_VALUE,
                Optional.empty(), false, List.of());
        assertThat(plan(Map.of(0, progress(0, 9, "2026-12-05T15:00:00Z", a), 1, busy)).oldestWaiting())
                .hasValueSatisfying(w -> assertThat(w).contains("partition 1 is complete only up to"
                        + " 2026-12-05T13:59:00Z at offset 3; its records past that offset are not committed yet"
                        + " (being read, in an open file or uploading, or its member is behind)"));
    }

    @Test
    void a_partition_known_only_after_the_window_starts_never_lets_it_be_marked() {
        FileEntry a = file(0, 0, 9, "2026-12-05T13:05:00Z", "2026-12-05T13:40:00Z");
        PartitionProgress late = new PartitionProgress(1, 20, 20, at("2026-12-05T15:00:00Z"),
                at("2026-12-05T13:30:00Z"), Optional.empty(), List.of());
        assertThat(plan(Map.of(0, progress(0, 9, "2026-12-05T15:00:00Z", a), 1, late)).due()).isEmpty();
    }

    @Test
    void a_file_listed_but_not_committed_holds_its_folder_back() {
        FileEntry a = file(0, 0, 9, "2026-12-05T13:05:00Z", "2026-12-05T13:40:00Z");
        PartitionProgress listedAhead = new PartitionProgress(0, 5, 9, at("2026-12-05T15:00:00Z"), Long.MIN_VALUE,
                Optional.empty(), List.of(a));
        assertThat(plan(Map.of(0, listedAhead, 1, progress(1, -1, "2026-12-05T15:00:00Z"))).due()).isEmpty();
    }

    @Test
    void the_body_lists_every_object_and_reads_back() {
        FileEntry a = file(0, 0, 9, "2026-12-05T13:05:00Z", "2026-12-05T13:40:00Z");
        FileEntry b = file(1, 0, 4, "2026-12-05T13:10:00Z", "2026-12-05T13:50:00Z");
        Markers.Marker m = new Markers.Marker("raw/s/t/2026-12-05/13", at("2026-12-05T13:00:00Z"),
                at("2026-12-05T14:00:00Z"), List.of(b, a));
        byte[] body = m.json(new Markers.Header("_COMPLETE", "s3", "group \"g\"", "s", "t"), 1);
        String text = new String(body, StandardCharsets.UTF_8);
        assertThat(text).contains("\"group\": \"group \\\"g\\\"\"", "\"records\": 15,",
                "{\"partition\": 0, \"first_offset\": 0, \"last_offset\": 9, \"records\": 10}",
                "\"window\": {\"from\": \"2026-12-05T13:00:00Z\", \"to\": \"2026-12-05T14:00:00Z\"}",
                "\"crc32c\": \"0000cafe\"");
        assertThat(Markers.objectsOf(body, m.folder())).containsExactly(a, b);
        assertThat(Markers.versionOf(body)).isEqualTo(1);
        assertThat(m.json(new Markers.Header("_COMPLETE", "s3", "group \"g\"", "s", "t"), 1))
                .as("the same files give the same bytes").isEqualTo(body);
        assertThat(m.key("_SUCCESS")).isEqualTo("raw/s/t/2026-12-05/13/_SUCCESS");
    }

    @Test
    void progress_reads_back_what_it_wrote() {
        FileEntry a = new FileEntry("raw/a\tb", "raw/a\tb/00000-1-2.jsonl", 3, 1, 2, 2, 10, -1, 5, 6);
        PartitionProgress idle = new PartitionProgress(3, 2, 2, 99, Long.MIN_VALUE, Optional.empty(), true, List.of());
        assertThat(PartitionProgress.decode(idle.encode())).contains(idle);
        PartitionProgress p = new PartitionProgress(3, 2, 7, 99, Long.MIN_VALUE, Optional.of("halted\nhere"),
                List.of(a));
        assertThat(PartitionProgress.decode(p.encode())).contains(p);
        assertThat(PartitionProgress.decode("something else".getBytes(StandardCharsets.UTF_8))).isEmpty();
    }

    @Test
    void windows_follow_the_finest_time_variable() {
        long t = at("2026-12-05T13:47:12Z");
        assertThat(HOURS.window(t, UTC)).containsExactly(at("2026-12-05T13:00:00Z"), at("2026-12-05T14:00:00Z"));
        assertThat(PathTemplate.parse("{date}").window(t, UTC))
                .containsExactly(at("2026-12-05T00:00:00Z"), at("2026-12-06T00:00:00Z"));
        assertThat(PathTemplate.parse("{date}/{hour}/{minute}").window(t, UTC))
                .containsExactly(at("2026-12-05T13:47:00Z"), at("2026-12-05T13:48:00Z"));
        assertThat(PathTemplate.parse("{year}/{month}").window(t, UTC))
                .containsExactly(at("2026-12-01T00:00:00Z"), at("2027-01-01T00:00:00Z"));
        assertThat(PathTemplate.parse("{date}").window(t, ZoneId.of("Europe/Paris")))
                .containsExactly(at("2026-12-04T23:00:00Z"), at("2026-12-05T23:00:00Z"));
        assertThat(HOURS.windowProblem()).isEmpty();
        assertThat(PathTemplate.parse("{stream}/{hour}").windowProblem()).hasValueSatisfying(p ->
                assertThat(p).contains("no {date}"));
        assertThat(PathTemplate.parse("{year}/{day}/{hour}").windowProblem()).hasValueSatisfying(p ->
                assertThat(p).contains("{day} needs {month}"));
        assertThat(PathTemplate.parse("{date}/{timestamp}").windowProblem()).isPresent();
    }
}
