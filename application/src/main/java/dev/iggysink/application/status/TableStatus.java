package dev.iggysink.application.status;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What an Iceberg table sink adds to its {@link StatusSnapshot}: totals of its table commits and, per (partition,
 * table) this member holds, how far it read, how far the table's offset map holds it, and how far the group's offset.
 * {@code replaced}: one line per table found dropped and created again (the latest few, the latest last), saying when
 * and from which group offsets reading resumed; {@code replacements} how many since start.
 */
public record TableStatus(Totals totals, List<Lane> lanes, List<String> replaced, long replacements,
                          List<Watermark> watermarks) {
    public TableStatus {
        Objects.requireNonNull(totals, "totals");
        lanes = List.copyOf(lanes);
        replaced = List.copyOf(replaced);
        watermarks = List.copyOf(watermarks);
    }

    /** A sink whose commits have recorded no watermark yet. */
    public TableStatus(Totals totals, List<Lane> lanes, List<String> replaced, long replacements) {
        this(totals, lanes, replaced, replacements, List.of());
    }

    /**
     * How far {@code table} is complete in record time for {@code stream}/{@code topic}, as this member's last commit
     * to it recorded: every record of the topic stamped before {@code before} is in the table.
     */
    public record Watermark(String stream, String topic, String table, java.time.Instant before) {
        public Watermark {
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(before, "before");
        }
    }

    /** A sink that has found no table replaced. */
    public TableStatus(Totals totals, List<Lane> lanes) {
        this(totals, lanes, List.of(), 0, List.of());
    }

    /**
     * Since start, over every table of the sink. {@code failuresInRow}: commits that failed since the last one that
     * went through (0 while commits go through); {@code lastFailure} the message of the last failed one.
     * {@code conflicts}: catalog retries after another writer's snapshot landed first; {@code refusedPartitions}:
     * partitions a commit left out because the table's map had moved past what this member expected.
     * {@code deadLetters}: bad records written as dead letters; {@code lastDeadLetter} where the last one lies (the
     * store's full URI, below the {@code dlq_location} when one is set).
     */
    public record Totals(long commits, long failedCommits, long failuresInRow, Optional<String> lastFailure,
                         long conflicts, long refusedPartitions, Optional<Duration> lastCommit, Duration maxCommit,
                         Duration commitTime, long dataFiles, long dataBytes, long rowsCommitted, long badRecords,
                         long deadLetters, Optional<String> lastDeadLetter) {
        public Totals {
            Objects.requireNonNull(lastFailure, "lastFailure");
            Objects.requireNonNull(lastCommit, "lastCommit");
            Objects.requireNonNull(maxCommit, "maxCommit");
            Objects.requireNonNull(commitTime, "commitTime");
            Objects.requireNonNull(lastDeadLetter, "lastDeadLetter");
        }

        /** Totals without dead letters. */
        public Totals(long commits, long failedCommits, long failuresInRow, Optional<String> lastFailure,
                      long conflicts, long refusedPartitions, Optional<Duration> lastCommit, Duration maxCommit,
                      Duration commitTime, long dataFiles, long dataBytes, long rowsCommitted, long badRecords) {
            this(commits, failedCommits, failuresInRow, lastFailure, conflicts, refusedPartitions, lastCommit,
                    maxCommit, commitTime, dataFiles, dataBytes, rowsCommitted, badRecords, 0, Optional.empty());
        }

        /** The mean time of a commit that went through; zero before the first. */
        public Duration averageCommit() {
            return commits == 0 ? Duration.ZERO : commitTime.dividedBy(commits);
        }
    }

    /**
     * One table's share of one partition. {@code read}: the last offset read (−1 none); {@code tableOffset}: the last
     * offset the table's map holds for the partition as this member knows it (−1 none); {@code groupOffset}: the
     * group's committed offset (−1 none); {@code endOffset}: the partition's last offset in Iggy (−1 empty or not yet
     * known); {@code sealedFiles} files sealed and not yet committed, {@code openRecords} records in the open file.
     * The backlog is the partition's ({@link PartitionStatus#lag()}, end minus group offset): with routing by a
     * field, a table's map moves only when records are routed to it, so end minus {@code tableOffset} is no lag.
     */
    public record Lane(String stream, String topic, int partition, String table, long read, long tableOffset,
                       long groupOffset, long endOffset, int sealedFiles, long openRecords, Optional<String> halted) {
        public Lane {
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(halted, "halted");
        }
    }
}
