package dev.iggysink.domain.rotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RotationScheduleTest {

    @ParameterizedTest(name = "{0} every {1} after {2} -> {3}")
    @CsvSource(delimiter = '|', textBlock = """
            # zone           | interval | after                  | next boundary
            UTC              | PT1H     | 2026-03-16T14:05:00Z   | 2026-03-16T15:00:00Z
            UTC              | PT1H     | 2026-03-16T14:00:00Z   | 2026-03-16T15:00:00Z
            UTC              | PT15M    | 2026-03-16T14:44:59Z   | 2026-03-16T14:45:00Z
            UTC              | P1D      | 2026-03-16T23:59:59Z   | 2026-03-17T00:00:00Z
            Asia/Kolkata     | PT1H     | 2024-01-01T00:10:00Z   | 2024-01-01T00:30:00Z
            Asia/Kolkata     | P1D      | 2024-01-01T12:00:00Z   | 2024-01-01T18:30:00Z
            # Berlin spring forward 2024-03-31: 02:00 CET -> 03:00 CEST (01:00Z)
            Europe/Berlin    | PT1H     | 2024-03-31T00:30:00Z   | 2024-03-31T01:00:00Z
            Europe/Berlin    | PT1H     | 2024-03-31T01:00:00Z   | 2024-03-31T02:00:00Z
            Europe/Berlin    | PT2H     | 2024-03-31T00:30:00Z   | 2024-03-31T01:00:00Z
            Europe/Berlin    | PT2H     | 2024-03-31T01:00:00Z   | 2024-03-31T02:00:00Z
            Europe/Berlin    | P1D      | 2024-03-30T11:00:00Z   | 2024-03-30T23:00:00Z
            Europe/Berlin    | P1D      | 2024-03-31T10:00:00Z   | 2024-03-31T22:00:00Z
            # Berlin fall back 2024-10-27: 03:00 CEST (01:00Z) -> 02:00 CET, local 02:00 happens twice
            Europe/Berlin    | PT1H     | 2024-10-26T23:30:00Z   | 2024-10-27T00:00:00Z
            Europe/Berlin    | PT1H     | 2024-10-27T00:30:00Z   | 2024-10-27T01:00:00Z
            Europe/Berlin    | PT1H     | 2024-10-27T01:30:00Z   | 2024-10-27T02:00:00Z
            Europe/Berlin    | P1D      | 2024-10-26T10:00:00Z   | 2024-10-26T22:00:00Z
            Europe/Berlin    | P1D      | 2024-10-27T11:00:00Z   | 2024-10-27T23:00:00Z
            # New York spring forward 2024-03-10: 02:00 EST -> 03:00 EDT (07:00Z)
            America/New_York | PT1H     | 2024-03-10T06:30:00Z   | 2024-03-10T07:00:00Z
            America/New_York | PT30M    | 2024-03-10T06:45:00Z   | 2024-03-10T07:00:00Z
            America/New_York | P1D      | 2024-03-10T12:00:00Z   | 2024-03-11T04:00:00Z
            # New York fall back 2024-11-03: 02:00 EDT (06:00Z) -> 01:00 EST, local 01:00 happens twice
            America/New_York | PT1H     | 2024-11-03T04:30:00Z   | 2024-11-03T05:00:00Z
            America/New_York | PT1H     | 2024-11-03T05:30:00Z   | 2024-11-03T06:00:00Z
            America/New_York | PT1H     | 2024-11-03T06:30:00Z   | 2024-11-03T07:00:00Z
            America/New_York | P1D      | 2024-11-02T16:00:00Z   | 2024-11-03T04:00:00Z
            America/New_York | P1D      | 2024-11-03T17:00:00Z   | 2024-11-04T05:00:00Z
            # Santiago springs forward at midnight 2024-09-08: local midnight does not exist, 01:00 -03 does
            America/Santiago | P1D      | 2024-09-07T16:00:00Z   | 2024-09-08T04:00:00Z
            # 7 h does not divide a day: aligned to the epoch, the zone is ignored
            Europe/Berlin    | PT7H     | 1970-01-01T00:00:01Z   | 1970-01-01T07:00:00Z
            Europe/Berlin    | PT7H     | 2024-03-31T00:30:00Z   | 2024-03-31T05:00:00Z
            UTC              | P2D      | 1970-01-02T00:00:00Z   | 1970-01-03T00:00:00Z
            UTC              | PT7H     | 1969-12-31T16:00:00Z   | 1969-12-31T17:00:00Z
            UTC              | PT7H     | 1969-12-31T20:00:00Z   | 1970-01-01T00:00:00Z
            """)
    void next_boundary_follows_the_local_clock(String zone, Duration interval, Instant after, Instant expected) {
        RotationSchedule schedule = new RotationSchedule(interval, ZoneId.of(zone));
        assertThat(schedule.nextBoundaryAfter(after)).isEqualTo(expected);
    }

    @Test
    void hourly_berlin_boundaries_through_the_fall_back_day_are_one_hour_apart() {
        // Berlin's offsets are whole hours, so every local :00 is a UTC :00 too: 25 boundaries on that day.
        RotationSchedule hourly = new RotationSchedule(Duration.ofHours(1), ZoneId.of("Europe/Berlin"));
        Instant t = Instant.parse("2024-10-26T22:00:00Z");
        int count = 0;
        while (t.isBefore(Instant.parse("2024-10-27T23:00:00Z"))) {
            Instant next = hourly.nextBoundaryAfter(t);
            assertThat(Duration.between(t, next)).isEqualTo(Duration.ofHours(1));
            t = next;
            count++;
        }
        assertThat(count).isEqualTo(25);
    }

    @Test
    void epoch_aligned_schedule_in_a_fixed_zone() {
        var schedule = RotationSchedule.utc(Duration.ofMinutes(7));
        assertThat(schedule.alignedToLocalMidnight()).isFalse();
        assertThat(RotationSchedule.utc(Duration.ofMinutes(20)).alignedToLocalMidnight()).isTrue();
        assertThat(schedule.nextBoundaryAfter(Instant.ofEpochSecond(7 * 60))).isEqualTo(Instant.ofEpochSecond(14 * 60));
        assertThat(new RotationSchedule(Duration.ofHours(1), ZoneOffset.ofHoursMinutes(5, 45))
                .nextBoundaryAfter(Instant.parse("2026-01-01T00:00:00Z"))).isEqualTo("2026-01-01T00:15:00Z");
    }

    @Test
    void interval_must_be_positive() {
        assertThatThrownBy(() -> RotationSchedule.utc(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RotationSchedule.utc(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
