package dev.iggysink.application.port.out;

import java.util.Optional;

/**
 * How one stream's records become file bytes: decode the payload per the stream's {@code schema}, apply the
 * transforms, then encode in the output format. One instance per stream; thread-safe ({@link #decode} may run on
 * several consumer loops); each {@link FileEncoder} is used by one thread.
 */
public interface RecordCodec {
    /** Decodes and transforms; a payload that does not decode for the schema is a {@link BadRecordException}. */
    DecodedRecord decode(dev.iggysink.domain.message.SinkRecord record) throws BadRecordException;

    FileEncoder newFile();

    /** File extension without the dot, compression included: {@code jsonl}, {@code json}, {@code bin}, {@code jsonl.gz}. */
    String extension();

    String contentType();

    /**
     * What decides the bytes each record counts for size rotation ({@link FileEncoder#append}), as a text equal on
     * every member of one configuration and different wherever two configurations could count a record otherwise:
     * members whose texts are equal cut the same files by size from the same start. Empty when a record's count may
     * differ between members of one configuration (a value computed at write time, such as the current time), and
     * then no member relies on another's size cuts (docs/adr/0022-run-claims-of-size-cuts.md).
     */
    default Optional<String> sizeRule() {
        return Optional.empty();
    }

    /**
     * What {@code object}, a file in this codec's format (written by this sink, an older version of it or the Rust
     * sink), says about its first and last record, read with as few bytes as the format allows: the start (and end)
     * of a json file by ranged reads, an avro or parquet file, or a compressed one, whole.
     */
    default HeldRecords held(ObjectStore store, StoredObject object) throws StoreException {
        return new HeldRecords.Unnamed("the format names no records");
    }
}
