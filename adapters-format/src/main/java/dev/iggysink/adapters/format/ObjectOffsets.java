package dev.iggysink.adapters.format;

import com.github.luben.zstd.ZstdInputStream;
import dev.iggysink.adapters.format.payload.AvroSchemas;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.domain.naming.ObjectKey;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.zip.GZIPInputStream;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.SeekableByteArrayInput;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Statistics;
import org.apache.parquet.format.Util;

/**
 * Reads back the first and last offset written inside an object the sink wrote, for the audit: every output format
 * ({@link OutputFormat}) and every whole-file compression ({@link Compression}), told apart by the key's extension.
 * Offsets are inside only with {@code include_metadata}: the wrapper's {@code "offset"} in json_lines/json_array, the
 * {@code iggy_offset} column in avro/parquet. raw files have no wrapper, so they never carry offsets.
 *
 * <p>Parquet is read from its footer alone (the {@code iggy_offset} column's min/max statistics, offsets in a file
 * ascend), without Hadoop, which the shipped jar does not have.
 */
public final class ObjectOffsets {
    private static final byte[] OFFSET = "{\"offset\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    private ObjectOffsets() {
    }

    /** What an object's content says about its offsets. */
    public sealed interface Result permits Found, CannotRead {
    }

    /** The first and last offset written inside, inclusive. */
    public record Found(long first, long last) implements Result {
    }

    /** Why the offsets cannot be read: the format carries none, or the content is damaged. */
    public record CannotRead(String reason) implements Result {
        public CannotRead {
            Objects.requireNonNull(reason, "reason");
        }
    }

    public static Result read(String key, byte[] content) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(content, "content");
        String extension = ObjectKey.extension(key).orElse("");
        Compression compression = Compression.NONE;
        for (Compression c : Compression.values()) {
            if (c != Compression.NONE && extension.endsWith(c.suffix())) {
                compression = c;
                extension = extension.substring(0, extension.length() - c.suffix().length());
            }
        }
        OutputFormat format = null;
        for (OutputFormat f : OutputFormat.values()) {
            if (f.extension().equals(extension)) format = f;
        }
        if (format == null) {
            return new CannotRead("not a file the sink writes (extension \"" + ObjectKey.extension(key).orElse("")
                    + "\")");
        }
        byte[] plain;
        try {
            plain = decompress(compression, content);
        } catch (IOException | RuntimeException e) {
            return new CannotRead("damaged " + compression.name().toLowerCase(Locale.ROOT) + " content: "
                    + e.getMessage());
        }
        return switch (format) {
            case JSON_LINES -> json(plain, false);
            case JSON_ARRAY -> json(plain, true);
            case RAW -> new CannotRead("raw files carry no offsets");
            case AVRO -> avro(plain);
            case PARQUET -> parquet(plain);
        };
    }

    private static byte[] decompress(Compression compression, byte[] content) throws IOException {
        if (compression == Compression.NONE) return content;
        try (InputStream in = compression == Compression.GZIP
                ? new GZIPInputStream(new ByteArrayInputStream(content))
                : new ZstdInputStream(new ByteArrayInputStream(content))) {
            return in.readAllBytes();
        }
    }

    /**
     * Walks the top-level records (objects at depth 0 in json_lines, depth 1 in json_array), skipping strings, so a
     * payload that looks like a wrapper never counts. Every record must start with the offset field.
     */
    private static Result json(byte[] b, boolean array) {
        int recordDepth = array ? 1 : 0;
        int depth = 0;
        long first = -1;
        long last = -1;
        for (int i = 0; i < b.length; i++) {
            byte c = b[i];
            if (c == '"') {
                i = endOfString(b, i);
                if (i < 0) return new CannotRead("damaged JSON: a string is not closed");
            } else if (c == '{' || c == '[') {
                if (c == '{' && depth == recordDepth) {
                    long offset = offsetAt(b, i);
                    if (offset < 0) return new CannotRead("written without include_metadata (no \"offset\" field)");
                    if (first < 0) first = offset;
                    last = offset;
                }
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
        }
        return first < 0 ? new CannotRead("holds no records") : new Found(first, last);
    }

    private static int endOfString(byte[] b, int open) {
        for (int i = open + 1; i < b.length; i++) {
            if (b[i] == '\\') i++;
            else if (b[i] == '"') return i;
        }
        return -1;
    }

    /** The number after {@code {"offset":} at {@code at}, or -1 when the object does not start that way. */
    private static long offsetAt(byte[] b, int at) {
        if (at + OFFSET.length >= b.length
                || !Arrays.equals(b, at, at + OFFSET.length, OFFSET, 0, OFFSET.length)) {
            return -1;
        }
        long value = 0;
        int i = at + OFFSET.length;
        int start = i;
        while (i < b.length && b[i] >= '0' && b[i] <= '9' && i - start < 19) {
            value = value * 10 + (b[i] - '0');
            i++;
        }
        return i == start ? -1 : value;
    }

    private static Result avro(byte[] bytes) {
        GenericDatumReader<GenericRecord> datumReader = new GenericDatumReader<>();
        try (DataFileReader<GenericRecord> reader = new DataFileReader<>(new SeekableByteArrayInput(bytes),
                datumReader)) {
            Schema written = reader.getSchema();
            Schema.Field field = written.getType() == Schema.Type.RECORD ? written.getField(AvroSchemas.OFFSET) : null;
            if (field == null || field.schema().getType() != Schema.Type.LONG) {
                return new CannotRead("written without include_metadata (no " + AvroSchemas.OFFSET + " column)");
            }
            // Decode the offset column alone: the reader schema keeps only that field and skips the rest.
            Schema onlyOffset = Schema.createRecord(written.getName(), null, written.getNamespace(), false,
                    List.of(new Schema.Field(AvroSchemas.OFFSET, Schema.create(Schema.Type.LONG))));
            datumReader.setExpected(onlyOffset);
            long first = -1;
            long last = -1;
            GenericRecord record = null;
            while (reader.hasNext()) {
                record = reader.next(record);
                long offset = (Long) record.get(0);
                if (first < 0) first = offset;
                last = offset;
            }
            return first < 0 ? new CannotRead("holds no records") : new Found(first, last);
        } catch (IOException | RuntimeException e) {
            // AvroRuntimeException mostly, but a damaged block can also fail inside a codec or the decoder.
            return new CannotRead("damaged avro file: " + e.getMessage());
        }
    }

    private static Result parquet(byte[] bytes) {
        int n = bytes.length;
        if (n < 12 || !Arrays.equals(bytes, n - 4, n, PARQUET_MAGIC, 0, 4)) {
            return new CannotRead("damaged parquet file: no PAR1 footer");
        }
        int footerLength = ByteBuffer.wrap(bytes, n - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (footerLength <= 0 || footerLength > n - 12) {
            return new CannotRead("damaged parquet file: footer length " + footerLength);
        }
        FileMetaData footer;
        try {
            footer = Util.readFileMetaData(new ByteArrayInputStream(bytes, n - 8 - footerLength, footerLength));
        } catch (IOException | RuntimeException e) {
            return new CannotRead("damaged parquet file: " + e.getMessage());
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (RowGroup group : footer.getRow_groups()) {
            if (group.getNum_rows() == 0) continue;
            ColumnMetaData column = offsetColumn(group);
            if (column == null) {
                return new CannotRead("written without include_metadata (no " + AvroSchemas.OFFSET + " column)");
            }
            Statistics stats = column.getStatistics();
            // min_value/max_value since format 2.4; older writers set only the (for INT64 identical) min/max.
            byte[] min = stats == null ? null : stats.isSetMin_value() ? stats.getMin_value() : stats.getMin();
            byte[] max = stats == null ? null : stats.isSetMax_value() ? stats.getMax_value() : stats.getMax();
            if (min == null || max == null || min.length != 8 || max.length != 8) {
                return new CannotRead("the parquet footer has no statistics for " + AvroSchemas.OFFSET);
            }
            first = Math.min(first, int64(min));
            last = Math.max(last, int64(max));
        }
        return first > last ? new CannotRead("holds no records") : new Found(first, last);
    }

    private static ColumnMetaData offsetColumn(RowGroup group) {
        for (ColumnChunk chunk : group.getColumns()) {
            ColumnMetaData meta = chunk.getMeta_data();
            if (meta != null && meta.getPath_in_schema().equals(List.of(AvroSchemas.OFFSET))) return meta;
        }
        return null;
    }

    private static long int64(byte[] littleEndian) {
        return ByteBuffer.wrap(littleEndian).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }
}
