package dev.iggysink.domain.naming;

/** The partition and inclusive offset range recovered from an object key's file name. */
public record KeyRange(int partitionId, long firstOffset, long lastOffset) {
    public KeyRange {
        if (partitionId < 0) throw new IllegalArgumentException("partition id must be >= 0, was " + partitionId);
        if (firstOffset < 0) throw new IllegalArgumentException("first offset must be >= 0, was " + firstOffset);
        if (lastOffset < firstOffset) {
            throw new IllegalArgumentException("last offset " + lastOffset + " < first offset " + firstOffset);
        }
    }
}
