package dev.iggysink.domain.rotation;

import static dev.iggysink.domain.Seeded.longBetween;
import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.Seeded;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

class RotationSchedulePropertiesTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    @Test
    void daily_boundary_is_the_next_local_midnight() {
        Seeded.check(1000, r -> {
            ZoneId zone = r.nextBoolean() ? NEW_YORK : BERLIN;
            Instant t = Instant.ofEpochSecond(longBetween(r, 0, 4_000_000_000L));
            Instant next = new RotationSchedule(Duration.ofDays(1), zone).nextBoundaryAfter(t);
            ZonedDateTime local = next.atZone(zone);
            assertThat(local.toLocalTime()).as("%s in %s", t, zone).isEqualTo(LocalTime.MIDNIGHT);
            assertThat(local.toLocalDate()).as("%s in %s", t, zone)
                    .isEqualTo(t.atZone(zone).toLocalDate().plusDays(1));
        });
    }

    @Test
    void sub_daily_boundary_is_the_next_local_multiple() {
        int[] minutes = {1, 5, 15, 30, 60};
        Seeded.check(1000, r -> {
            long seconds = longBetween(r, 0, 4_000_000_000L);
            Duration interval = Duration.ofMinutes(minutes[r.nextInt(minutes.length)]);
            Instant t = Instant.ofEpochSecond(seconds);
            Instant next = new RotationSchedule(interval, NEW_YORK).nextBoundaryAfter(t);
            assertThat(next).isAfter(t);
            // New York's gaps and overlaps last a whole hour, so shifted boundaries stay on a multiple of <= 1 h.
            assertThat(next.atZone(NEW_YORK).toLocalTime().toSecondOfDay() % interval.toSeconds())
                    .as("%s every %s", t, interval).isZero();
            assertThat(Duration.between(t, next)).isLessThanOrEqualTo(interval.plusHours(1));
            for (Instant probe = t.plusSeconds(60 - Math.floorMod(seconds, 60)); probe.isBefore(next);
                 probe = probe.plusSeconds(60)) {
                assertThat(probe.atZone(NEW_YORK).toLocalTime().toSecondOfDay() % interval.toSeconds())
                        .as("no boundary skipped at %s", probe).isNotZero();
            }
        });
    }
}
