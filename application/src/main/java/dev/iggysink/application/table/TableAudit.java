package dev.iggysink.application.table;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.domain.message.PartitionRef;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@code audit} says of one partition in one table: the group's committed offset against the table's offset map
 * and the offsets the table's rows hold. A bad record dead-lettered under {@code errors_tolerance = "all"} is
 * delivered: its offset is no gap, and a map that stops before dead letters only is not behind. Offsets up to the
 * committed one in neither a row nor a dead letter are gaps; offsets held by more than one row are overlaps.
 *
 * @param tableOffset  the table's map entry, −1 when it has none
 * @param committed    the group's stored offset, −1 when none
 * @param rows         the offsets the rows hold, empty when the table has no {@code iggy_offset} column to read
 * @param deadLettered the offsets in a dead letter and in no row of this table, ascending
 */
public record TableAudit(String table, PartitionRef partition, long committed, long tableOffset,
                         Optional<List<Long>> rows, List<String> gaps, List<Long> overlaps, List<Long> deadLettered) {
    /** At most this many gap ranges and overlapping offsets are listed; the counts are exact. */
    static final int LISTED = 20;

    public TableAudit {
        Objects.requireNonNull(rows, "rows");
        gaps = List.copyOf(gaps);
        overlaps = List.copyOf(overlaps);
        deadLettered = List.copyOf(deadLettered);
    }

    /** {@code <dlq>/<stream>/<topic>/}: where the dead letters of one topic are, relative to the warehouse. */
    public static String deadLetterPrefix(String dlqPrefix, String stream, String topic) {
        return DeadLetters.topicPrefix("", dlqPrefix, stream, topic);
    }

    /** The offsets of {@code partition}'s dead letters among {@code keys}, all below {@code topicPrefix}; ascending. */
    public static List<Long> deadLettered(Collection<String> keys, String topicPrefix, int partition) {
        List<Long> out = new ArrayList<>();
        for (String key : keys) {
            if (!key.startsWith(topicPrefix)) continue;
            DeadLetters.offset(key.substring(topicPrefix.length()), partition).ifPresent(out::add);
        }
        Collections.sort(out);
        return out;
    }

    public static TableAudit of(String table, PartitionRef partition, long committed, long tableOffset,
                                Optional<List<Long>> rowOffsets) {
        return of(table, partition, committed, tableOffset, rowOffsets, List.of());
    }

    /** @param deadLetters the offsets of the partition's dead letters (of any table of the topic) */
    public static TableAudit of(String table, PartitionRef partition, long committed, long tableOffset,
                                Optional<List<Long>> rowOffsets, Collection<Long> deadLetters) {
        List<String> gaps = new ArrayList<>();
        List<Long> overlaps = new ArrayList<>();
        // A record another table refused has a dead letter and a row here: it is this table's row.
        Set<Long> inRows = new HashSet<>(rowOffsets.orElse(List.of()));
        List<Long> lettered = new ArrayList<>(new TreeSet<>(deadLetters));
        lettered.removeIf(inRows::contains);
        if (rowOffsets.isPresent()) {
            List<Long> sorted = new ArrayList<>(rowOffsets.get());
            sorted.addAll(lettered);
            Collections.sort(sorted);
            long expected = 0;
            Long previous = null;
            for (long o : sorted) {
                if (previous != null && previous == o) {
                    if (overlaps.isEmpty() || overlaps.get(overlaps.size() - 1) != o) overlaps.add(o);
                    continue;
                }
                if (o > expected && expected <= committed) gaps.add(range(expected, Math.min(o - 1, committed)));
                expected = o + 1;
                previous = o;
            }
            if (expected <= committed) gaps.add(range(expected, committed));
        }
        return new TableAudit(table, partition, committed, tableOffset, rowOffsets, gaps, overlaps, lettered);
    }

    private static String range(long from, long to) {
        return from == to ? Long.toString(from) : from + "-" + to;
    }

    /** No gap and no overlap below the committed offset, and the table holds at least what the group committed. */
    public boolean ok() {
        return gaps.isEmpty() && overlaps.isEmpty() && covered() >= committed;
    }

    /**
     * The last offset the table's map covers: its entry, and the dead letters right after it (the map moves past
     * dead letters only with the table's next data file).
     */
    private long covered() {
        long covered = tableOffset;
        while (covered < committed && Collections.binarySearch(deadLettered, covered + 1) >= 0) covered++;
        return covered;
    }

    /** One line for {@code audit}. */
    public String line() {
        StringBuilder b = new StringBuilder();
        b.append(partition).append(" in ").append(table).append(": committed=").append(committed)
                .append(" table=").append(tableOffset);
        if (rows.isEmpty()) {
            b.append(" rows=unchecked (the table has no iggy_offset and iggy_partition_id columns)");
            if (!deadLettered.isEmpty()) b.append(" dead_lettered=").append(deadLettered.size());
        } else {
            b.append(" rows=").append(rows.get().size());
            if (!deadLettered.isEmpty()) b.append(" dead_lettered=").append(deadLettered.size());
            b.append(" gaps=")
                    .append(gaps.subList(0, Math.min(LISTED, gaps.size()))).append(" overlaps=").append(overlaps.size());
        }
        if (!deadLettered.isEmpty()) {
            b.append(" (dead letters: ").append(deadLettered.subList(0, Math.min(LISTED, deadLettered.size())))
                    .append(')');
        }
        if (covered() < committed) {
            b.append(" (the group is ahead of the table's map: offsets ").append(covered() + 1).append('-')
                    .append(committed).append(" were not committed to this table by the sink)");
        } else if (tableOffset > committed) {
            b.append(" (the table is ahead of the group: the next member to take the partition commits ")
                    .append(tableOffset).append(" to the group)");
        }
        return b.toString();
    }
}
