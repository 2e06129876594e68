package dev.iggysink.application.service;

import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.PartitionRevokedException;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import java.util.List;
import java.util.OptionalLong;

/**
 * Stores each partition's commit point as the group's offset once it moved. A commit refused because the partition
 * moved away makes its writer lose it, and so does a group offset that another member moved past this member's last
 * commit; any other failure is noted on that partition and retried on the next turn
 * (the offset only ever moves forward). Used by one consumer loop thread.
 */
final class Committer {
    private final MessageSource source;
    private final SinkMetrics metrics;
    private final Uploader uploader;
    private final Completeness completeness;
    /** Reads back each object a commit passed (the self-audit), or null. */
    SelfAudit selfAudit;

    Committer(MessageSource source, SinkMetrics metrics) {
        this(source, metrics, null);
    }

    /** @param uploader removes the claims of committed files, or null */
    Committer(MessageSource source, SinkMetrics metrics, Uploader uploader) {
        this(source, metrics, uploader, null);
    }

    /** @param completeness publishes progress before each commit (completeness markers), or null */
    Committer(MessageSource source, SinkMetrics metrics, Uploader uploader, Completeness completeness) {
        this.source = source;
        this.metrics = metrics;
        this.uploader = uploader;
        this.completeness = completeness;
    }

    void commitAll(List<PartitionWriter> writers) {
        // A marker may list a file only once its offsets are committed, so progress goes out first (ADR 0016).
        if (completeness != null) completeness.publishAndCombine(writers);
        for (PartitionWriter w : writers) {
            OptionalLong offset = w.committable();
            if (completeness != null) offset = completeness.allowed(w, offset);
            if (offset.isEmpty()) continue;
            try {
                // A partition can move away and back between two polls of this member (a member joins and leaves
                // while this one's uploads are retried and it does not poll): then another member has committed
                // since, and this member's view is stale. Committing it would move the group's offset backwards.
                long stored = source.committedOffset(w.partition()).orElse(-1);
                if (stored > w.lastCommitted()) {
                    w.lost();
                    continue;
                }
                source.commit(w.partition(), offset.getAsLong());
                w.committed(offset.getAsLong());
                metrics.committed(w.partition(), offset.getAsLong());
                // Claims at or below the committed offset decide nothing any more (see Claims).
                if (uploader != null) uploader.removeClaims(w.claimsDoneUpTo(offset.getAsLong()));
                if (selfAudit != null) selfAudit.committed(w.durableUpTo(offset.getAsLong()));
            } catch (PartitionRevokedException e) {
                w.lost();
            } catch (SourceException e) {
                w.error("commit failed: " + e.getMessage());
            }
        }
        if (uploader != null) uploader.removeDueClaims();
    }
}
