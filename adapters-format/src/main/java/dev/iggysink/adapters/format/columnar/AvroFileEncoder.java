package dev.iggysink.adapters.format.columnar;

import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.domain.message.SinkRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;

/**
 * An Avro object container file built in memory. Each record is encoded once (by {@link AvroRecords}) and the
 * encoded datum appended as is, so a record that does not fit is refused before anything reaches the file.
 *
 * <p>{@code append} returns the record's Avro binary size, before the block codec. The 16-byte sync marker is
 * derived from the schema and the first record's partition and offset instead of being random, so re-writing the
 * same records (a retry after a crash) produces the same bytes under the same key.
 */
public final class AvroFileEncoder implements FileEncoder {
    /** Avro's default block size; blocks are compressed one by one. */
    private static final int SYNC_INTERVAL = 64 * 1024;

    private final AvroRecords records;
    private final CodecFactory codec;
    /** The file grows by chunks and is handed over as they are (see {@link ByteBuf}). */
    private final ByteBuf out = new ByteBuf(64 * 1024 - ByteBuf.HEADER_SLACK);
    private DataFileWriter<Object> writer;
    private int count;
    private boolean finished;

    public AvroFileEncoder(AvroRecords records, CodecFactory codec) {
        this.records = records;
        this.codec = codec;
    }

    @Override
    public long append(DecodedRecord record) throws BadRecordException {
        if (finished) throw new IllegalStateException("file already finished");
        GenericData.Record r = records.toRecord(record);
        SinkRecord source = record.source();
        records.encode(r, source);
        try {
            if (writer == null) open(source.partition() + "@" + source.offset());
            writer.appendEncoded(ByteBuffer.wrap(records.bytes(), 0, records.length()));
        } catch (IOException e) {
            throw new UncheckedIOException("avro write into memory failed", e); // cannot happen with a byte array
        }
        count++;
        return records.length();
    }

    @Override
    public int count() {
        return count;
    }

    /** The file's buffer plus the block the writer holds until it is full ({@link #SYNC_INTERVAL}) and its copy. */
    @Override
    public long heapBytes() {
        if (finished) return 0;
        return out.capacity() + (writer == null ? 0 : 2L * SYNC_INTERVAL);
    }

    @Override
    public FileBytes finish() {
        if (finished) throw new IllegalStateException("file already finished");
        finished = true;
        try {
            if (writer == null) open("empty");
            writer.close();
        } catch (IOException e) {
            throw new UncheckedIOException("avro write into memory failed", e);
        }
        return out.takeFileBytes();
    }

    private void open(String seed) throws IOException {
        writer = new DataFileWriter<>(new GenericDatumWriter<>(records.written(), GenericData.get()));
        writer.setCodec(codec);
        writer.setSyncInterval(SYNC_INTERVAL);
        writer.create(records.written(), out.asOutputStream(), sync(records.written().toString() + "\n" + seed));
    }

    private static byte[] sync(String seed) {
        try {
            byte[] md5 = MessageDigest.getInstance("MD5").digest(seed.getBytes(StandardCharsets.UTF_8));
            return Arrays.copyOf(md5, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is a required JDK algorithm", e);
        }
    }
}
