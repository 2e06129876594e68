package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.FileRotation;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TimeAndFieldPartitioningTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final long T_1359_50 = Instant.parse("2026-03-16T13:59:50Z").toEpochMilli() * 1000;
    private static final long T_1400_10 = Instant.parse("2026-03-16T14:00:10Z").toEpochMilli() * 1000;

    private final StreamSettings stream = TestSettings.stream("app", "clicks");
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("app", "clicks", 1);
    private SinkService sink;

    private SinkSettings settings(String template, RotationSettings rotation, ZoneId zone) {
        SinkSettings base = TestSettings.countRotation(stream, 1000);
        OutputSettings o = base.output();
        OutputSettings output = new OutputSettings("", template, o.format(), o.compression(), true, false, zone,
                Optional.empty(), "snappy", "null", "__missing__");
        return new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(), output, rotation,
                base.retry(), new DeliverySettings(1 << 20, ErrorTolerance.NONE, "_dlq", Duration.ofSeconds(5), 4),
                List.of());
    }

    private static RotationSettings count(long n, int maxOpenFiles) {
        return new RotationSettings(FileRotation.MESSAGES, 8 << 20, OptionalLong.of(n), Optional.empty(),
                Optional.empty(), maxOpenFiles);
    }

    private void start(SinkSettings settings, InstantSource clock) {
        sink = new SinkService(settings, (s, t, g) -> source, s -> new LinesCodec(), store, clock,
                d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sink.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (sink != null) sink.stop();
    }

    private void stopNow() throws InterruptedException {
        assertThat(sink.stop().clean()).isTrue();
        sink = null;
    }

    @Test
    void by_default_a_file_keeps_the_path_of_its_first_record_as_upstream_does() throws InterruptedException {
        source.recordTimeMicros(T_1359_50);
        source.append(0, 5, i -> "r" + i);
        source.recordTimeMicros(T_1400_10);
        source.append(0, 5, i -> "r" + i);
        start(settings("{stream}/{topic}/{date}/{hour}", count(1000, 1), ZoneId.of("UTC")), InstantSource.system());
        await().atMost(WAIT).until(() -> sink.status().partitions().stream().anyMatch(p -> p.position() == 10));
        stopNow();

        assertThat(store.objects().keySet())
                .containsExactly("app/clicks/2026-03-16/13/00000-00000000000000000000-00000000000000000009.jsonl");
    }

    @Test
    void with_several_open_files_each_record_lands_in_the_folder_of_its_own_hour() throws InterruptedException {
        source.recordTimeMicros(T_1359_50);
        source.append(0, 5, i -> "r" + i);
        source.recordTimeMicros(T_1400_10);
        source.append(0, 5, i -> "r" + i);
        source.recordTimeMicros(T_1359_50); // a late record of the previous hour
        source.append(0, List.of("late"));
        start(settings("year={year}/month={month}/day={day}/hour={hour}", count(1000, 4), ZoneId.of("UTC")),
                InstantSource.system());
        await().atMost(WAIT).until(() -> sink.status().partitions().stream().anyMatch(p -> p.position() == 11));
        stopNow();

        assertThat(store.objects().keySet()).containsExactlyInAnyOrder(
                "year=2026/month=03/day=16/hour=13/00000-00000000000000000000-00000000000000000010.jsonl",
                "year=2026/month=03/day=16/hour=14/00000-00000000000000000005-00000000000000000009.jsonl");
        assertThat(LinesCodec.offsets(store.objects().get(
                "year=2026/month=03/day=16/hour=13/00000-00000000000000000000-00000000000000000010.jsonl")))
                .containsExactly(0, 1, 2, 3, 4, 10);
        assertThat(source.stored(0).getAsLong()).isEqualTo(10);
    }

    @Test
    void the_time_zone_applies_to_every_time_variable() throws InterruptedException {
        source.recordTimeMicros(T_1359_50);
        source.append(0, 2, i -> "r" + i);
        start(settings("{date}/{hour}-{minute}", count(1000, 1), ZoneId.of("Asia/Kolkata")), InstantSource.system());
        await().atMost(WAIT).until(() -> sink.status().partitions().stream().anyMatch(p -> p.position() == 2));
        stopNow();

        assertThat(store.objects().keySet())
                .containsExactly("2026-03-16/19-29/00000-00000000000000000000-00000000000000000001.jsonl");
    }

    @Test
    void field_paths_render_payload_values_and_the_open_file_bound_seals_the_oldest() throws InterruptedException {
        source.append(0, List.of("city=Hyderabad", "city=Mumbai", "city=Hyderabad", "city=Pune", "n=1",
                "city=Mumbai"));
        start(settings("city={field:city}", count(1000, 2), ZoneId.of("UTC")), InstantSource.system());
        await().atMost(WAIT).until(() -> sink.status().partitions().stream().anyMatch(p -> p.position() == 6));
        // Two files may be open: Pune pushes out the oldest (Hyderabad 0,2), __missing__ pushes out Mumbai (1),
        // and Mumbai again pushes out Pune (3).
        await().atMost(WAIT).until(() -> store.objects().size() == 3);
        assertThat(store.objects().keySet()).containsExactlyInAnyOrder(
                "city=Hyderabad/00000-00000000000000000000-00000000000000000002.jsonl",
                "city=Mumbai/00000-00000000000000000001-00000000000000000001.jsonl",
                "city=Pune/00000-00000000000000000003-00000000000000000003.jsonl");
        assertThat(sink.rotationCounts()).containsEntry("open_file_limit", 3L);
        stopNow();
        assertThat(store.objects().keySet()).contains(
                "city=__missing__/00000-00000000000000000004-00000000000000000004.jsonl",
                "city=Mumbai/00000-00000000000000000005-00000000000000000005.jsonl");
        assertThat(source.stored(0).getAsLong()).isEqualTo(5);
    }

    @Test
    void record_time_rotation_seals_before_the_record_that_would_exceed_the_span() throws InterruptedException {
        long t0 = T_1359_50;
        for (int i = 0; i < 6; i++) {
            source.recordTimeMicros(t0 + i * 4_000_000L); // every 4 s
            source.append(0, List.of("r" + i));
        }
        RotationSettings rotation = new RotationSettings(FileRotation.SIZE, 8 << 20, OptionalLong.empty(),
                Optional.of(Duration.ofSeconds(10)), Optional.empty(), 1);
        start(settings("{stream}", rotation, ZoneId.of("UTC")), InstantSource.system());
        // 0 s, 4 s, 8 s fit in 10 s; the record at 12 s opens the next file.
        await().atMost(WAIT).until(() -> store.objects().containsKey(
                "app/00000-00000000000000000000-00000000000000000002.jsonl"));
        assertThat(sink.rotationCounts()).containsEntry("record_time", 1L);
        stopNow();
        assertThat(new TreeSet<>(store.objects().keySet())).containsExactly(
                "app/00000-00000000000000000000-00000000000000000002.jsonl",
                "app/00000-00000000000000000003-00000000000000000005.jsonl");
    }

    @Test
    void a_quiet_partition_is_sealed_by_the_wall_clock_schedule_without_new_records() {
        ManualClock clock = new ManualClock(Instant.parse("2026-03-16T13:59:00Z"));
        source.append(0, 3, i -> "r" + i);
        RotationSettings rotation = new RotationSettings(FileRotation.SIZE, 8 << 20, OptionalLong.empty(),
                Optional.empty(), Optional.of(Duration.ofHours(1)), 1);
        start(settings("{stream}", rotation, ZoneId.of("UTC")), clock);
        await().atMost(WAIT).until(() -> sink.status().partitions().stream().anyMatch(p -> p.bufferedRecords() == 3));
        assertThat(store.objects()).isEmpty();

        clock.advance(Duration.ofSeconds(61)); // past 14:00, the next aligned boundary
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 2);
        assertThat(store.objects().keySet()).containsExactly("app/00000-00000000000000000000-00000000000000000002.jsonl");
        assertThat(sink.rotationCounts()).containsEntry("schedule", 1L);
    }
}
