package dev.iggysink.domain.rotation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class RotationSchedulePropertiesTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    @Property
    void daily_boundary_is_the_next_local_midnight(@ForAll @LongRange(min = 0, max = 4_000_000_000L) long seconds,
                                                   @ForAll boolean newYork) {
        ZoneId zone = newYork ? NEW_YORK : BERLIN;
        Instant t = Instant.ofEpochSecond(seconds);
        Instant next = new RotationSchedule(Duration.ofDays(1), zone).nextBoundaryAfter(t);
        ZonedDateTime local = next.atZone(zone);
        assertThat(local.toLocalTime()).isEqualTo(LocalTime.MIDNIGHT);
        assertThat(local.toLocalDate()).isEqualTo(t.atZone(zone).toLocalDate().plusDays(1));
    }

    @Property
    void sub_daily_boundary_is_the_next_local_multiple(@ForAll @LongRange(min = 0, max = 4_000_000_000L) long seconds,
                                                       @ForAll @IntRange(min = 0, max = 4) int which) {
        int[] minutes = {1, 5, 15, 30, 60};
        Duration interval = Duration.ofMinutes(minutes[which]);
        Instant t = Instant.ofEpochSecond(seconds);
        Instant next = new RotationSchedule(interval, NEW_YORK).nextBoundaryAfter(t);
        assertThat(next).isAfter(t);
        // New York's gaps and overlaps last a whole hour, so shifted boundaries stay on a multiple of <= 1 h.
        assertThat(next.atZone(NEW_YORK).toLocalTime().toSecondOfDay() % interval.toSeconds()).isZero();
        assertThat(Duration.between(t, next)).isLessThanOrEqualTo(interval.plusHours(1));
        for (Instant probe = t.plusSeconds(60 - Math.floorMod(seconds, 60)); probe.isBefore(next);
             probe = probe.plusSeconds(60)) {
            assertThat(probe.atZone(NEW_YORK).toLocalTime().toSecondOfDay() % interval.toSeconds())
                    .as("no boundary skipped at %s", probe).isNotZero();
        }
    }
}
