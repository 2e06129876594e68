package dev.iggysink.adapters.format.columnar;

import dev.iggysink.adapters.format.json.RawJson;
import dev.iggysink.adapters.format.payload.CodecRecord;
import dev.iggysink.adapters.format.payload.Payload;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * One file's record building for avro and parquet: payload tree → record of the user schema → written record (with
 * the metadata columns) → its Avro binary encoding. The encoding doubles as the final check that the record fits
 * and as the size {@code append} reports. Not thread-safe (one per file: the scratch buffer is reused).
 */
public final class AvroRecords {
    private final Schema user;
    private final Schema written;
    private final boolean metadata;
    private final GenericDatumWriter<Object> writer;
    private final Scratch scratch = new Scratch();
    private BinaryEncoder encoder;

    public AvroRecords(Schema user, Schema written, boolean metadata) {
        this.user = user;
        this.written = written;
        this.metadata = metadata;
        this.writer = new GenericDatumWriter<>(written, GenericData.get());
    }

    Schema written() {
        return written;
    }

    /** @throws BadRecordException the payload is not a JSON object, or does not fit the schema (field named) */
    GenericData.Record toRecord(DecodedRecord decoded) throws BadRecordException {
        if (!(decoded instanceof CodecRecord r)) {
            throw new IllegalArgumentException("record was not decoded by this codec: " + decoded);
        }
        SinkRecord source = r.source();
        Object tree = tree(r.payload());
        if (!(tree instanceof Map)) {
            throw bad(source, "payload must be a JSON object to become a " + user.getFullName() + " record, was "
                    + (tree == null ? "not JSON" : JsonToAvro.describe(tree)), null);
        }
        GenericData.Record userRecord;
        try {
            userRecord = JsonToAvro.record(user, tree);
        } catch (JsonToAvro.Mismatch e) {
            throw bad(source, e.getMessage(), e);
        }
        if (!metadata) return userRecord;
        GenericData.Record out = new GenericData.Record(written);
        int n = user.getFields().size();
        for (int i = 0; i < n; i++) out.put(i, userRecord.get(i));
        PartitionRef p = source.partition();
        out.put(n, source.offset());
        out.put(n + 1, source.timestampMicros());
        out.put(n + 2, p.stream());
        out.put(n + 3, p.topic());
        out.put(n + 4, p.partitionId());
        return out;
    }

    /**
     * Encodes the record as one Avro binary datum into the scratch buffer; {@link #bytes()} and {@link #length()}
     * read it until the next call.
     */
    void encode(GenericData.Record record, SinkRecord source) throws BadRecordException {
        scratch.reset();
        encoder = EncoderFactory.get().directBinaryEncoder(scratch, encoder);
        try {
            writer.write(record, encoder);
            encoder.flush();
        } catch (IOException | RuntimeException e) {
            // Conversion already checked every value; this is the last line of defence, so the file stays whole.
            throw bad(source, "record does not encode as " + written.getFullName() + ": " + e, e);
        }
    }

    byte[] bytes() {
        return scratch.array();
    }

    int length() {
        return scratch.size();
    }

    private static Object tree(Payload payload) {
        if (payload instanceof Payload.JsonDoc doc) return doc.value();
        if (payload instanceof Payload.Raw raw) return RawJson.parseOrNull(raw.bytes());
        return null; // text: a string has no fields
    }

    private static BadRecordException bad(SinkRecord source, String message, Throwable cause) {
        return new BadRecordException("offset " + source.offset() + " of " + source.partition() + ": " + message,
                cause);
    }

    /** A byte array stream whose buffer can be read without a copy. */
    private static final class Scratch extends ByteArrayOutputStream {
        Scratch() {
            super(1024);
        }

        byte[] array() {
            return buf;
        }
    }
}
