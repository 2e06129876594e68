package dev.iggysink.domain.retry;

import static dev.iggysink.domain.Seeded.intBetween;
import static dev.iggysink.domain.Seeded.longBetween;
import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.Seeded;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BackoffProperties {

    @Test
    void never_above_the_cap_and_never_negative() {
        Seeded.check(1000, r -> {
            long baseMillis = longBetween(r, 0, 10_000_000);
            long capMillis = longBetween(r, 0, 600_000);
            double jitter = r.nextInt(5) == 0 ? r.nextInt(2) : r.nextDouble();
            int retry = intBetween(r, 1, 10_000);
            long retryAfterSeconds = longBetween(r, -1, Long.MAX_VALUE / 2);
            double random = r.nextInt(5) == 0 ? Math.nextDown(1.0) : r.nextDouble();
            Backoff backoff = new Backoff(Duration.ofMillis(baseMillis), Duration.ofMillis(capMillis), jitter);
            Optional<Duration> retryAfter = retryAfterSeconds < 0 ? Optional.empty()
                    : Optional.of(Duration.ofSeconds(retryAfterSeconds));
            Duration delay = backoff.delay(retry, retryAfter, random);
            String given = backoff + ", retry " + retry + ", retry-after " + retryAfter + ", random " + random;
            assertThat(delay).as(given).isBetween(Duration.ZERO, backoff.cap());
            // Retry-After is honoured up to the cap
            retryAfter.ifPresent(ra -> assertThat(delay).as(given)
                    .isGreaterThanOrEqualTo(ra.compareTo(backoff.cap()) < 0 ? ra : backoff.cap()));
        });
    }

    @Test
    void without_jitter_delays_never_shrink() {
        Seeded.check(1000, r -> {
            long baseMillis = longBetween(r, 1, 5_000);
            int retry = intBetween(r, 1, 200);
            Backoff backoff = new Backoff(Duration.ofMillis(baseMillis), Duration.ofSeconds(60), 0);
            assertThat(backoff.delay(retry + 1, Optional.empty(), 0)).as("base %d ms, retry %d", baseMillis, retry)
                    .isGreaterThanOrEqualTo(backoff.delay(retry, Optional.empty(), 0));
        });
    }
}
