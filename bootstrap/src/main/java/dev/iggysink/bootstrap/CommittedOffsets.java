package dev.iggysink.bootstrap;

import dev.iggysink.adapters.iggy.IggyGroupOffsets;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.domain.message.PartitionRef;
import java.util.OptionalLong;

/**
 * A group's committed offset, read inside a use case's lookup that cannot throw a checked exception ({@code audit},
 * {@code redrive}): a failed read leaves as {@link Unreadable}, which the command turns back into its one line.
 */
final class CommittedOffsets {
    private CommittedOffsets() {
    }

    /** A committed offset that could not be read; carries the source's one-line message. */
    static final class Unreadable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unreadable(SourceException e) {
            super(e.getMessage(), e);
        }
    }

    static OptionalLong of(IggyGroupOffsets offsets, PartitionRef p) {
        try {
            return offsets.committedOffset(p);
        } catch (SourceException e) {
            throw new Unreadable(e);
        }
    }
}
