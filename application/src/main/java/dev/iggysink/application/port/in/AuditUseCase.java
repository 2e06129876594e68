package dev.iggysink.application.port.in;

import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.domain.message.PartitionRef;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * Proves delivery from the bucket itself: which offsets of each partition the objects cover, where the coverage has
 * gaps below the group's committed offset (lost records), where objects overlap (duplicates), and which objects hold
 * other offsets than their key says. What the {@code audit} command asks; counters and a clean stop prove nothing,
 * this does.
 */
public interface AuditUseCase {

    /** Reads the first and last offset written inside an object; empty when the format does not record them. */
    @FunctionalInterface
    interface ContentOffsets {
        Optional<long[]> firstAndLast(String key, byte[] content);
    }

    /** A continuous run of offsets covered by objects, inclusive. */
    record Range(long first, long last) {
        @Override
        public String toString() {
            return first == last ? Long.toString(first) : first + "-" + last;
        }
    }

    /**
     * @param trustedByKey the objects that carry no metadata and whose content names no offsets: a restart of the sink
     *                     cannot check them against the partition and takes them by their key
     */
    record PartitionAudit(PartitionRef partition, long committed, int objects, List<Range> covered, List<Range> gaps,
                          List<String> overlaps, List<String> mismatches, List<Long> deadLettered,
                          List<String> trustedByKey) {
        /** No record below the committed offset is missing and no object disagrees with its key. */
        public boolean ok() {
            return gaps.isEmpty() && mismatches.isEmpty();
        }
    }

    /**
     * The key prefix under which a topic's objects live: the output prefix plus the template up to the first
     * variable that is not {@code {stream}} or {@code {topic}}.
     */
    String listPrefix(String prefix, String template, String stream, String topic);

    /** Where the dead-letter objects of one topic live: {@code [prefix/]<dlq>/<stream>/<topic>/}. */
    String deadLetterPrefix(String prefix, String dlqPrefix, String stream, String topic);

    /**
     * Audits the partitions whose objects are listed under {@code listPrefix} (keys with the segment
     * {@code excludeSegment} left out), against their committed offsets. Dead-letter objects under
     * {@code deadLetterPrefix} count as delivered and are reported as dead-lettered. {@code content} reads the offsets
     * inside an object, to check it against its key.
     */
    List<PartitionAudit> audit(String listPrefix, String excludeSegment, String deadLetterPrefix,
                               List<PartitionRef> partitions, Function<PartitionRef, OptionalLong> committedOffsets,
                               ContentOffsets content) throws StoreException;
}
