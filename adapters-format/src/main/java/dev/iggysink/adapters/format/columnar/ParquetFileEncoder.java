package dev.iggysink.adapters.format.columnar;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * A Parquet file built in memory with parquet-avro, without Hadoop at run time. Three settings make that work:
 * a {@link PlainParquetConfiguration} instead of Hadoop's Configuration, the
 * {@code GenericData} data model given explicitly (else parquet-avro asks Hadoop for it), and {@link ParquetCodecs}
 * instead of parquet-hadoop's codec factory.
 *
 * <p>Sizes: Parquet only knows a row's encoded size when its row group is flushed, so {@code append} returns the
 * record's Avro binary size, a stable stand-in that grows with the data (column encoding and the codec usually
 * make the file smaller). Rows are held column-wise until a row group fills ({@link #ROW_GROUP_BYTES}) or the file
 * is finished, then written to the in-memory file; so a file costs about its own size plus one open row group.
 *
 * <p>A record is converted and encoded as Avro before the writer sees it: a record that does not fit is refused
 * with nothing written. A failure inside the parquet writer after that is not a bad record but a broken file.
 */
public final class ParquetFileEncoder implements FileEncoder {
    /**
     * Row group target. Files are tens of MiB (max_file_size): 32 MiB gives one to a few row groups per file, large
     * enough for column pruning and statistics to pay off, small enough to bound the buffer of an open file.
     */
    static final long ROW_GROUP_BYTES = 32L * 1024 * 1024;
    /** Page target: parquet-mr's default (1 MiB); pages are the unit of compression and of page-index skipping. */
    static final int PAGE_BYTES = 1024 * 1024;
    /** Dictionary page limit: parquet-mr's default; past it a column falls back to plain encoding. */
    static final int DICTIONARY_PAGE_BYTES = 1024 * 1024;

    private final AvroRecords records;
    private final InMemoryOutputFile file = new InMemoryOutputFile();
    private final ParquetWriter<GenericRecord> writer;
    private int count;
    private boolean finished;

    public ParquetFileEncoder(AvroRecords records, CompressionCodecName codec) {
        this.records = records;
        try {
            this.writer = AvroParquetWriter.<GenericRecord>builder(file)
                    .withConf(new PlainParquetConfiguration())
                    .withDataModel(GenericData.get())
                    .withSchema(records.written())
                    .withCodecFactory(ParquetCodecs.INSTANCE)
                    .withCompressionCodec(codec)
                    .withRowGroupSize(ROW_GROUP_BYTES)
                    .withPageSize(PAGE_BYTES)
                    .withDictionaryPageSize(DICTIONARY_PAGE_BYTES)
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException("parquet writer into memory failed to open", e);
        }
    }

    @Override
    public long append(DecodedRecord record) throws BadRecordException {
        if (finished) throw new IllegalStateException("file already finished");
        GenericData.Record r = records.toRecord(record);
        records.encode(r, record.source());
        try {
            writer.write(r);
        } catch (IOException e) {
            throw new UncheckedIOException("parquet write into memory failed", e);
        }
        count++;
        return records.length();
    }

    @Override
    public int count() {
        return count;
    }

    /**
     * The file written so far plus the row group still held in column buffers (parquet-mr counts both in its data
     * size): an open Parquet file holds up to {@link #ROW_GROUP_BYTES} before any of it reaches the file.
     */
    @Override
    public long heapBytes() {
        if (finished) return 0;
        long buffered = Math.max(0, writer.getDataSize() - file.size());
        return file.capacity() + buffered;
    }

    @Override
    public FileBytes finish() {
        if (finished) throw new IllegalStateException("file already finished");
        finished = true;
        try {
            writer.close();
        } catch (IOException e) {
            throw new UncheckedIOException("parquet write into memory failed", e);
        }
        return file.take();
    }
}
