package dev.iggysink.application.port.out;

import dev.iggysink.domain.message.SinkRecord;
import java.util.Objects;

/**
 * What an object's content says about the records it holds: its first and last record, as far as the format names
 * them. Lets the recovery check an object that carries no metadata stamps (written by the Rust sink or by an older
 * version of this sink) against the partition, as the stamps are checked.
 */
public sealed interface HeldRecords {

    /**
     * One record as the content names it: its offset and the span its Iggy timestamp (µs) lies in (json prints whole
     * seconds, avro the full microseconds, a parquet footer only the file's earliest and latest).
     */
    record Named(long offset, long earliestMicros, long latestMicros) {
        /** Whether {@code record} can be the record the content names. */
        public boolean is(SinkRecord record) {
            return record.offset() == offset && record.timestampMicros() >= earliestMicros
                    && record.timestampMicros() <= latestMicros;
        }

        @Override
        public String toString() {
            return "offset " + offset + " at " + (earliestMicros == latestMicros ? earliestMicros + " µs"
                    : earliestMicros + "-" + latestMicros + " µs");
        }
    }

    /** The first and last record inside. */
    record Held(Named first, Named last) implements HeldRecords {
        public Held {
            Objects.requireNonNull(first, "first");
            Objects.requireNonNull(last, "last");
        }
    }

    /**
     * The content names no record (raw or text files, json without {@code include_metadata}): only the key can say
     * what the object holds.
     */
    record Unnamed(String why) implements HeldRecords {
        public Unnamed {
            Objects.requireNonNull(why, "why");
        }
    }

    /** The format names its records but this content could not be read (damaged, empty). */
    record Unreadable(String why) implements HeldRecords {
        public Unreadable {
            Objects.requireNonNull(why, "why");
        }
    }
}
