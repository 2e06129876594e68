package dev.iggysink.domain.completeness;

import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * How far a table is complete in record time (issue 44, ADR 0016): per partition, the time before which every record
 * routed to the table is committed to it, and over the topic the least of them. Iggy stamps records on append, so
 * times do not decrease along offsets: once a table holds every record of a partition up to one stamped {@code t},
 * each record not in it yet is stamped {@code t} or later. A partition with nothing past what the table holds when its
 * end offset was read at {@code w} (idle) gets no record stamped before {@code w} less the clock-skew margin. A halted
 * partition commits nothing more, so its time stays and holds the watermark back. Stateless.
 */
public final class Watermark {
    /** The margin for the clocks of Iggy's server and the member that reads a partition's end offset (5 s). */
    public static final long SKEW_MICROS = 5_000_000L;

    private Watermark() {
    }

    /**
     * The complete-before time of a partition: the time of the last record the table now holds of it
     * ({@link Long#MIN_VALUE} when none), or, when it is {@code idle}, at least the time its end offset was read
     * less {@code skewMicros}.
     */
    public static long completeBefore(long lastRecordMicros, boolean idle, long endReadMicros, long skewMicros) {
        return idle ? Math.max(lastRecordMicros, endReadMicros - skewMicros) : lastRecordMicros;
    }

    /** {@code before} with {@code updates}: each partition's time only moves forward (a stale update is ignored). */
    public static Map<Integer, Long> merge(Map<Integer, Long> before, Map<Integer, Long> updates) {
        Map<Integer, Long> out = new TreeMap<>(before);
        updates.forEach((p, t) -> out.merge(p, t, Math::max));
        return out;
    }

    /**
     * The watermark of a topic of {@code partitions} partitions (ids 0..n-1): the least complete-before time; empty
     * while any partition has none.
     */
    public static OptionalLong of(Map<Integer, Long> completeBefore, int partitions) {
        if (partitions <= 0) return OptionalLong.empty();
        long min = Long.MAX_VALUE;
        for (int p = 0; p < partitions; p++) {
            Long t = completeBefore.get(p);
            if (t == null || t == Long.MIN_VALUE) return OptionalLong.empty();
            min = Math.min(min, t);
        }
        return OptionalLong.of(min);
    }
}
