package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.RotationSettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.Health;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 33, item 4: a {@code {field:...}} value of {@code ..}, {@code .} or empty renders a key segment a store
 * refuses (the filesystem store does, as does MinIO). Such a record is a bad record, as a key that is too long is:
 * dead-lettered under {@code errors_tolerance = "all"}, a halt naming the offset under {@code "none"}; never an upload
 * the store refuses, which halts the partition for good whatever the tolerance. One record per file, so each file is
 * uploaded as soon as it is written.
 */
class UnstorableKeySegmentTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String DLQ = "_dlq/application_logs/api_requests/00000-";

    private final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
    private SinkService sink;

    /** As the filesystem store: a key with an empty, "." or ".." segment is refused, and no retry can help. */
    private static boolean refusedByTheDirectoryStore(String key) {
        return Arrays.stream(key.split("/", -1)).anyMatch(s -> s.isEmpty() || s.equals(".") || s.equals(".."));
    }

    private void start(ErrorTolerance tolerance) {
        store.refuseKeys(UnstorableKeySegmentTest::refusedByTheDirectoryStore);
        SinkSettings base = TestSettings.countRotation(stream, 1);
        OutputSettings o = base.output();
        OutputSettings output = new OutputSettings("", "in/{field:city}/out", o.format(), o.compression(), true,
                false, o.timezone(), Optional.empty(), "snappy", "null", "__missing__");
        RotationSettings r = base.rotation();
        RotationSettings rotation = new RotationSettings(r.mode(), r.maxFileSize(), r.maxMessagesPerFile(),
                r.rotateInterval(), r.rotateScheduleInterval(), 2);
        SinkSettings settings = new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(), output,
                rotation, base.retry(), new DeliverySettings(1 << 20, tolerance, "_dlq", Duration.ofSeconds(5), 4),
                base.transforms());
        sink = new SinkService(settings, (s, t, g) -> source, s -> new LinesCodec(), store, InstantSource.system(),
                d -> Thread.sleep(Math.min(d.toMillis(), 20)), SinkMetrics.NONE);
        sink.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (sink != null) sink.stop();
    }

    @Test
    void under_tolerance_all_dot_dotdot_and_empty_field_values_are_dead_lettered_and_the_partition_goes_on()
            throws InterruptedException {
        source.append(0, List.of("city=Pune", "city=..", "city=.", "city=", "city=Pune"));
        start(ErrorTolerance.ALL);

        await().atMost(WAIT).until(() -> store.objects().keySet().containsAll(List.of(
                DLQ + "00000000000000000001.json", DLQ + "00000000000000000002.json",
                DLQ + "00000000000000000003.json")));
        assertThat(sink.stop().clean()).isTrue();
        sink = null;
        assertThat(store.objects()).containsKeys("in/Pune/out/00000-00000000000000000000-00000000000000000000.jsonl",
                "in/Pune/out/00000-00000000000000000004-00000000000000000004.jsonl");
        assertThat(store.putLog()).noneMatch(UnstorableKeySegmentTest::refusedByTheDirectoryStore);
        assertThat(source.stored(0)).hasValue(4);
    }

    @Test
    void under_tolerance_none_a_dotdot_field_value_halts_the_partition_at_that_offset_with_the_reason() {
        source.append(0, List.of("city=Pune", "city=.."));
        start(ErrorTolerance.NONE);

        await().atMost(WAIT).until(() -> sink.status().health() == Health.FAILED);
        assertThat(sink.status().reasons()).anySatisfy(r -> assertThat(r)
                .contains("partition 0, offset 1").contains("\"in/../out\"").contains("\"..\" segment"));
        assertThat(store.putAttempts(UnstorableKeySegmentTest::refusedByTheDirectoryStore)).isZero();
    }

    @Test
    void under_tolerance_none_an_empty_field_value_between_two_slashes_halts_the_partition() {
        source.append(0, List.of("city="));
        start(ErrorTolerance.NONE);

        await().atMost(WAIT).until(() -> sink.status().health() == Health.FAILED);
        assertThat(sink.status().reasons()).anySatisfy(r -> assertThat(r)
                .contains("partition 0, offset 0").contains("\"in//out\"").contains("empty segment"));
        assertThat(store.putAttempts(UnstorableKeySegmentTest::refusedByTheDirectoryStore)).isZero();
    }
}
