package dev.iggysink.domain.rotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.domain.buffer.OpenFile;
import dev.iggysink.domain.message.PartitionRef;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RotationPolicyTest {
    private static final PartitionRef P = new PartitionRef("s", "t", 0);
    private static final Instant OPENED = Instant.parse("2026-03-16T14:10:00Z");

    private static OpenFile fileWith(long... recordSizes) {
        OpenFile file = new OpenFile(P, "s/t", OPENED);
        for (int i = 0; i < recordSizes.length; i++) file.add(i, 1_000L * i, recordSizes[i]);
        return file;
    }

    @ParameterizedTest(name = "maxBytes={0} maxRecords={1} sizes={2} -> {3}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # maxBytes | maxRecords | record sizes   | reason
            1000       | -          | 500            | -
            1000       | -          | 500 499        | -
            1000       | -          | 500 500        | SIZE
            1000       | -          | 500 600        | SIZE
            1000       | -          | 1500           | SIZE
            -          | 3          | 1 1            | -
            -          | 3          | 1 1 1          | COUNT
            1000       | 3          | 1 1 1          | COUNT
            1000       | 3          | 999 1          | SIZE
            1000       | 2          | 999 1          | SIZE
            -          | -          | 9999999 1 1 1  | -
            """)
    void after_append_seals_at_the_first_limit_reached(Long maxBytes, Long maxRecords, String sizes,
                                                        RotationReason expected) {
        RotationPolicy policy = new RotationPolicy(
                maxBytes == null ? OptionalLong.empty() : OptionalLong.of(maxBytes),
                maxRecords == null ? OptionalLong.empty() : OptionalLong.of(maxRecords),
                Optional.empty(), Optional.empty());
        OpenFile file = fileWith(Arrays.stream(sizes.split(" ")).mapToLong(Long::parseLong).toArray());
        assertThat(policy.afterAppend(file)).isEqualTo(Optional.ofNullable(expected));
    }

    @ParameterizedTest(name = "span={0} first={1}us next={2}us -> {3}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # span | first ts (us)   | record ts (us)     | reason
            PT1H   | 1000000         | 3600999999         | -
            PT1H   | 1000000         | 3601000000         | RECORD_TIME
            PT1H   | 1000000         | 9000000000         | RECORD_TIME
            PT1H   | 5000000000      | 1000000            | -
            PT0.5S | 0               | 499999             | -
            PT0.5S | 0               | 500000             | RECORD_TIME
            """)
    void before_append_seals_when_the_record_is_a_full_span_later(Duration span, long first, long next,
                                                                  RotationReason expected) {
        OpenFile file = new OpenFile(P, "d", OPENED);
        file.add(7, first, 10);
        RotationPolicy policy = RotationPolicy.bySize(1 << 20).withRecordSpan(span);
        assertThat(policy.beforeAppend(file, next)).isEqualTo(Optional.ofNullable(expected));
    }

    @ParameterizedTest(name = "opened {0}, now {1} -> {2}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            2026-03-16T14:10:00Z | 2026-03-16T14:59:59.999Z | -
            2026-03-16T14:10:00Z | 2026-03-16T15:00:00Z     | SCHEDULE
            2026-03-16T14:10:00Z | 2026-03-17T09:00:00Z     | SCHEDULE
            2026-03-16T14:00:00Z | 2026-03-16T14:30:00Z     | -
            """)
    void on_tick_seals_once_a_wall_clock_boundary_passed(Instant opened, Instant now, RotationReason expected) {
        OpenFile file = new OpenFile(P, "d", opened);
        file.add(0, 0, 1);
        RotationPolicy policy = RotationPolicy.byCount(100)
                .withSchedule(new RotationSchedule(Duration.ofHours(1), ZoneId.of("UTC")));
        assertThat(policy.onTick(file, now)).isEqualTo(Optional.ofNullable(expected));
    }

    @Test
    void an_empty_file_is_never_sealed() {
        RotationPolicy everything = RotationPolicy.bySize(1).withMaxRecords(1).withRecordSpan(Duration.ofNanos(1))
                .withSchedule(RotationSchedule.utc(Duration.ofSeconds(1)));
        OpenFile empty = new OpenFile(P, "d", Instant.EPOCH);
        assertThat(everything.afterAppend(empty)).isEmpty();
        assertThat(everything.beforeAppend(empty, Long.MAX_VALUE)).isEmpty();
        assertThat(everything.onTick(empty, Instant.EPOCH.plus(Duration.ofDays(10_000)))).isEmpty();
    }

    @Test
    void a_policy_without_the_rule_never_answers_for_it() {
        OpenFile file = fileWith(5, 5);
        assertThat(RotationPolicy.bySize(100).beforeAppend(file, Long.MAX_VALUE)).isEmpty();
        assertThat(RotationPolicy.bySize(100).onTick(file, Instant.MAX)).isEmpty();
        assertThat(RotationPolicy.none().afterAppend(file)).isEmpty();
    }

    @Test
    void limits_must_be_positive() {
        assertThatThrownBy(() -> RotationPolicy.bySize(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RotationPolicy.byCount(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RotationPolicy.none().withRecordSpan(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
