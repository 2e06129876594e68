package dev.iggysink.domain.rotation;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;

/**
 * Wall-clock rotation boundaries (Kafka Connect's {@code rotate.schedule.interval.ms} with {@code timezone}).
 *
 * <p>An interval that divides a day is aligned to local midnight and follows the local clock: an hourly schedule
 * seals at every local :00 (both :00s of a fall-back hour, one fewer on a spring-forward day), a daily one at every
 * local midnight (a 23 h or 25 h day around a change). A boundary that falls into a DST gap moves forward by the
 * gap, as {@link java.time.ZonedDateTime#ofLocal} does. Other intervals are aligned to the epoch and ignore the zone.
 */
public record RotationSchedule(Duration interval, ZoneId zone) {
    private static final long DAY_NANOS = Duration.ofDays(1).toNanos();
    // Wide enough to hold every offset a boundary search can touch: it never looks further than a day and a gap.
    private static final Duration WINDOW_BEFORE = Duration.ofDays(2);
    private static final Duration WINDOW_AFTER = Duration.ofDays(3);

    public RotationSchedule {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(zone, "zone");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("schedule interval must be > 0, was " + interval);
        }
    }

    public static RotationSchedule utc(Duration interval) {
        return new RotationSchedule(interval, ZoneOffset.UTC);
    }

    /** True when boundaries follow the local clock from midnight; false when they are aligned to the epoch. */
    public boolean alignedToLocalMidnight() {
        return interval.compareTo(Duration.ofDays(1)) <= 0 && DAY_NANOS % interval.toNanos() == 0;
    }

    /** The first boundary strictly after {@code t}. */
    public Instant nextBoundaryAfter(Instant t) {
        Objects.requireNonNull(t, "t");
        return alignedToLocalMidnight() ? nextLocalBoundary(t) : nextEpochBoundary(t);
    }

    private Instant nextEpochBoundary(Instant t) {
        Duration sinceEpoch = Duration.between(Instant.EPOCH, t);
        long whole = sinceEpoch.dividedBy(interval);
        if (interval.multipliedBy(whole).compareTo(sinceEpoch) > 0) {
            whole--; // dividedBy truncates towards zero; before the epoch we need the floor
        }
        return Instant.EPOCH.plus(interval.multipliedBy(whole + 1));
    }

    private Instant nextLocalBoundary(Instant t) {
        ZoneRules rules = zone.getRules();
        int offMin;
        int offMax;
        if (rules.isFixedOffset()) {
            offMin = offMax = rules.getOffset(t).getTotalSeconds();
        } else {
            Instant from = t.minus(WINDOW_BEFORE);
            Instant to = t.plus(WINDOW_AFTER);
            offMin = offMax = rules.getOffset(from).getTotalSeconds();
            for (ZoneOffsetTransition tr = rules.nextTransition(from);
                 tr != null && !tr.getInstant().isAfter(to);
                 tr = rules.nextTransition(tr.getInstant())) {
                int after = tr.getOffsetAfter().getTotalSeconds();
                offMin = Math.min(offMin, after);
                offMax = Math.max(offMax, after);
            }
        }
        // A boundary b > t has local time L = b + offset > t + offMin, so the scan can start there; it can stop
        // once even the largest offset maps the local time past the best candidate found so far.
        long step = interval.toNanos();
        long perDay = DAY_NANOS / step;
        LocalDateTime start = LocalDateTime.ofEpochSecond(t.getEpochSecond() + offMin, t.getNano(), ZoneOffset.UTC);
        LocalDate date = start.toLocalDate();
        long k = start.toLocalTime().toNanoOfDay() / step;
        ZoneOffset maxOffset = ZoneOffset.ofTotalSeconds(offMax);
        Instant best = null;
        while (true) {
            LocalDateTime local = date.atStartOfDay().plusNanos(k * step);
            if (best != null && !local.toInstant(maxOffset).isBefore(best)) {
                return best;
            }
            var valid = rules.getValidOffsets(local);
            if (valid.isEmpty()) {
                best = better(best, local.toInstant(rules.getTransition(local).getOffsetBefore()), t);
            } else {
                for (ZoneOffset offset : valid) {
                    best = better(best, local.toInstant(offset), t);
                }
            }
            if (++k == perDay) {
                k = 0;
                date = date.plusDays(1);
            }
        }
    }

    private static Instant better(Instant best, Instant candidate, Instant t) {
        if (!candidate.isAfter(t)) return best;
        return best == null || candidate.isBefore(best) ? candidate : best;
    }
}
