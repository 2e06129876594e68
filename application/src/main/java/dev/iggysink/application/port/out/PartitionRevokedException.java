package dev.iggysink.application.port.out;

import dev.iggysink.domain.message.PartitionRef;

/**
 * A commit was refused because the partition now belongs to another member of the group (Iggy error 3022). Never
 * retried: the caller forgets the partition's buffers and pending files; the new owner re-reads from the last commit.
 */
public final class PartitionRevokedException extends SourceException {
    private static final long serialVersionUID = 1L;
    private final transient PartitionRef partition;

    public PartitionRevokedException(PartitionRef partition, Throwable cause) {
        super("partition " + partition + " was moved to another member of the consumer group", false, cause);
        this.partition = partition;
    }

    public PartitionRef partition() {
        return partition;
    }
}
