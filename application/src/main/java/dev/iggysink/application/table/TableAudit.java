package dev.iggysink.application.table;

import dev.iggysink.domain.message.PartitionRef;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@code audit} says of one partition in one table: the group's committed offset against the table's offset map
 * and the offsets the table's rows hold. Offsets up to the committed one that no row holds are gaps (records skipped
 * as bad under {@code errors_tolerance = "all"} show up here too: the table sink keeps no dead letters); offsets held
 * by more than one row are overlaps.
 *
 * @param tableOffset the table's map entry, −1 when it has none
 * @param committed   the group's stored offset, −1 when none
 * @param rows        the offsets the rows hold, empty when the table has no {@code iggy_offset} column to read
 */
public record TableAudit(String table, PartitionRef partition, long committed, long tableOffset,
                         Optional<List<Long>> rows, List<String> gaps, List<Long> overlaps) {
    /** At most this many gap ranges and overlapping offsets are listed; the counts are exact. */
    static final int LISTED = 20;

    public TableAudit {
        Objects.requireNonNull(rows, "rows");
        gaps = List.copyOf(gaps);
        overlaps = List.copyOf(overlaps);
    }

    public static TableAudit of(String table, PartitionRef partition, long committed, long tableOffset,
                                Optional<List<Long>> rowOffsets) {
        List<String> gaps = new ArrayList<>();
        List<Long> overlaps = new ArrayList<>();
        if (rowOffsets.isPresent()) {
            List<Long> sorted = new ArrayList<>(rowOffsets.get());
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
        return new TableAudit(table, partition, committed, tableOffset, rowOffsets, gaps, overlaps);
    }

    private static String range(long from, long to) {
        return from == to ? Long.toString(from) : from + "-" + to;
    }

    /** No gap and no overlap below the committed offset, and the table holds at least what the group committed. */
    public boolean ok() {
        return gaps.isEmpty() && overlaps.isEmpty() && tableOffset >= committed;
    }

    /** One line for {@code audit}. */
    public String line() {
        StringBuilder b = new StringBuilder();
        b.append(partition).append(" in ").append(table).append(": committed=").append(committed)
                .append(" table=").append(tableOffset);
        if (rows.isEmpty()) {
            b.append(" rows=unchecked (the table has no iggy_offset and iggy_partition_id columns)");
        } else {
            b.append(" rows=").append(rows.get().size()).append(" gaps=")
                    .append(gaps.subList(0, Math.min(LISTED, gaps.size()))).append(" overlaps=").append(overlaps.size());
        }
        if (tableOffset < committed) {
            b.append(" (the group is ahead of the table's map: offsets ").append(tableOffset + 1).append('-')
                    .append(committed).append(" were not committed to this table by the sink)");
        } else if (tableOffset > committed) {
            b.append(" (the table is ahead of the group: the next member to take the partition commits ")
                    .append(tableOffset).append(" to the group)");
        }
        return b.toString();
    }
}
