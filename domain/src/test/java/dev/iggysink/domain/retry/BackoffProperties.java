package dev.iggysink.domain.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class BackoffProperties {

    @Property
    void never_above_the_cap_and_never_negative(
            @ForAll @LongRange(min = 0, max = 10_000_000) long baseMillis,
            @ForAll @LongRange(min = 0, max = 600_000) long capMillis,
            @ForAll @DoubleRange(min = 0, max = 1) double jitter,
            @ForAll @IntRange(min = 1, max = 10_000) int retry,
            @ForAll @LongRange(min = -1, max = Long.MAX_VALUE / 2) long retryAfterSeconds,
            @ForAll @DoubleRange(min = 0, max = 1, maxIncluded = false) double random) {
        Backoff backoff = new Backoff(Duration.ofMillis(baseMillis), Duration.ofMillis(capMillis), jitter);
        Optional<Duration> retryAfter = retryAfterSeconds < 0 ? Optional.empty()
                : Optional.of(Duration.ofSeconds(retryAfterSeconds));
        Duration delay = backoff.delay(retry, retryAfter, random);
        assertThat(delay).isBetween(Duration.ZERO, backoff.cap());
        // Retry-After is honoured up to the cap
        retryAfter.ifPresent(ra -> assertThat(delay).isGreaterThanOrEqualTo(ra.compareTo(backoff.cap()) < 0
                ? ra : backoff.cap()));
    }

    @Property
    void without_jitter_delays_never_shrink(@ForAll @LongRange(min = 1, max = 5_000) long baseMillis,
                                            @ForAll @IntRange(min = 1, max = 200) int retry) {
        Backoff backoff = new Backoff(Duration.ofMillis(baseMillis), Duration.ofSeconds(60), 0);
        assertThat(backoff.delay(retry + 1, Optional.empty(), 0))
                .isGreaterThanOrEqualTo(backoff.delay(retry, Optional.empty(), 0));
    }
}
