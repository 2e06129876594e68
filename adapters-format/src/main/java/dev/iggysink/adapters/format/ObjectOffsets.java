package dev.iggysink.adapters.format;

import com.github.luben.zstd.ZstdInputStream;
import dev.iggysink.adapters.format.payload.AvroSchemas;
import dev.iggysink.application.port.out.HeldRecords;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.domain.naming.ObjectKey;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
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
 *
 * <p>{@link #held} reads the same places for the recovery, with the time of the first and last record beside their
 * offsets (json's {@code "timestamp"} in whole seconds, avro's {@code iggy_timestamp}, the parquet footer's
 * {@code iggy_timestamp} min/max): of an uncompressed json file only its first and last bytes (ranged reads), of
 * anything else the whole object.
 */
public final class ObjectOffsets {
    private static final byte[] OFFSET = "{\"offset\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TIMESTAMP = ",\"timestamp\":\"".getBytes(StandardCharsets.US_ASCII);
    /** Bytes read from the start of a json file: its first record's offset and timestamp are in the first ~60. */
    static final int HEAD = 4096;
    /** Bytes read from the end of a json file to find its last record; a longer record is found in the whole file. */
    static final int TAIL = 64 * 1024;
    /** A timestamp the content does not name: any time matches. */
    private static final long ANY_EARLIEST = Long.MIN_VALUE;
    private static final long ANY_LATEST = Long.MAX_VALUE;

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
        Objects.requireNonNull(content, "content");
        Object read = ends(key, content);
        return read instanceof Ends e ? new Found(e.first.offset(), e.last.offset()) : (CannotRead) read;
    }

    /**
     * The first and last record {@code object} names, read from {@code store} with as few bytes as its format
     * allows: {@link HeldRecords.Unnamed} when the format carries no offsets or timestamps (raw, json without
     * include_metadata, a file the sink does not write), {@link HeldRecords.Unreadable} when it does but this
     * content cannot be read.
     */
    public static HeldRecords held(ObjectStore store, StoredObject object) throws StoreException {
        Kind kind = kind(object.key());
        Object read;
        if (kind.format != null && kind.compression == Compression.NONE
                && (kind.format == OutputFormat.JSON_LINES || kind.format == OutputFormat.JSON_ARRAY)) {
            read = jsonEnds(store, object, kind.format == OutputFormat.JSON_ARRAY);
        } else if (kind.format == null || kind.format == OutputFormat.RAW) {
            read = kind.unknown();
        } else {
            read = ends(object.key(), store.get(object.key()));
        }
        if (read instanceof Ends e) {
            if (e.first.earliestMicros() == ANY_EARLIEST || e.last.earliestMicros() == ANY_EARLIEST) {
                return new HeldRecords.Unnamed("its records name their offset but not their time");
            }
            return new HeldRecords.Held(e.first, e.last);
        }
        String reason = ((CannotRead) read).reason();
        boolean unnamed = kind.format == null || kind.format == OutputFormat.RAW
                || reason.startsWith("written without include_metadata");
        return unnamed ? new HeldRecords.Unnamed(reason) : new HeldRecords.Unreadable(reason);
    }

    /** A file's format and whole-file compression, told by its key's extension; a null format when not the sink's. */
    private record Kind(String extension, OutputFormat format, Compression compression) {
        CannotRead unknown() {
            return format == OutputFormat.RAW ? new CannotRead("raw files carry no offsets")
                    : new CannotRead("not a file the sink writes (extension \"" + extension + "\")");
        }
    }

    private static Kind kind(String key) {
        Objects.requireNonNull(key, "key");
        String whole = ObjectKey.extension(key).orElse("");
        String extension = whole;
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
        return new Kind(whole, format, compression);
    }

    /** The first and last record a file names. */
    private record Ends(HeldRecords.Named first, HeldRecords.Named last) {
    }

    /** {@link Ends} or {@link CannotRead}. */
    private static Object ends(String key, byte[] content) {
        Kind kind = kind(key);
        if (kind.format == null || kind.format == OutputFormat.RAW) return kind.unknown();
        byte[] plain;
        try {
            plain = decompress(kind.compression, content);
        } catch (IOException | RuntimeException e) {
            return new CannotRead("damaged " + kind.compression.name().toLowerCase(Locale.ROOT) + " content: "
                    + e.getMessage());
        }
        return switch (kind.format) {
            case JSON_LINES -> json(plain, false);
            case JSON_ARRAY -> json(plain, true);
            case RAW -> kind.unknown();
            case AVRO -> avro(plain);
            case PARQUET -> parquet(plain);
        };
    }

    /**
     * An uncompressed json file's first record from its first {@link #HEAD} bytes and its last from its last
     * {@link #TAIL}; the whole file when it is that small, or when its last record does not fit in the tail.
     */
    private static Object jsonEnds(ObjectStore store, StoredObject object, boolean array) throws StoreException {
        byte[] head = store.get(object.key(), 0, HEAD);
        if (head.length >= object.size()) return json(head, array);
        int at = firstRecord(head, array);
        if (at < 0 || offsetAt(head, at) < 0) {
            // No wrapper where the first record starts: the whole file says why (no include_metadata, damaged).
            return json(store.get(object.key()), array);
        }
        HeldRecords.Named first = named(head, at);
        long from = Math.max(0, object.size() - TAIL);
        byte[] tail = store.get(object.key(), from, TAIL);
        int last = array ? lastArrayRecord(tail) : lastLine(tail);
        if (last < 0 || offsetAt(tail, last) < 0) {
            Object whole = json(store.get(object.key()), array);
            return whole instanceof Ends e ? new Ends(first, e.last) : whole;
        }
        return new Ends(first, named(tail, last));
    }

    /** Where the first record starts: the first {@code {} (after the array's {@code [}), or -1. */
    private static int firstRecord(byte[] b, boolean array) {
        int i = skipSpace(b, 0);
        if (array) {
            if (i >= b.length || b[i] != '[') return -1;
            i = skipSpace(b, i + 1);
        }
        return i < b.length && b[i] == '{' ? i : -1;
    }

    private static int skipSpace(byte[] b, int i) {
        while (i < b.length && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) i++;
        return i;
    }

    /**
     * Where the last line of json_lines starts in the file's tail, or -1 when the tail holds no line start (a record
     * longer than the tail). A newline is never inside a record: strings escape it.
     */
    private static int lastLine(byte[] tail) {
        int end = tail.length;
        while (end > 0 && (tail[end - 1] == '\n' || tail[end - 1] == '\r' || tail[end - 1] == ' ')) end--;
        for (int i = end - 1; i >= 0; i--) {
            if (tail[i] == '\n') return i + 1;
        }
        return -1;
    }

    /**
     * Where the last record of a json_array starts in the file's tail, or -1. A candidate is a {@code {"offset":} after
     * {@code ,} or {@code [} (never inside a string, whose quotes are escaped); a payload's nested object can look
     * the same, so a candidate counts only when its object closes right before the array's {@code ]}.
     */
    private static int lastArrayRecord(byte[] tail) {
        for (int i = tail.length - 1; i > 0; i--) {
            if (tail[i] != '{' || (tail[i - 1] != ',' && tail[i - 1] != '[') || offsetAt(tail, i) < 0) continue;
            int close = closing(tail, i);
            if (close > 0 && skipSpace(tail, close + 1) < tail.length && tail[skipSpace(tail, close + 1)] == ']'
                    && skipSpace(tail, skipSpace(tail, close + 1) + 1) == tail.length) {
                return i;
            }
        }
        return -1;
    }

    /** Where the object opened at {@code open} closes, or -1. */
    private static int closing(byte[] b, int open) {
        int depth = 0;
        for (int i = open; i < b.length; i++) {
            byte c = b[i];
            if (c == '"') {
                i = endOfString(b, i);
                if (i < 0) return -1;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) return i;
            }
        }
        return -1;
    }

    /**
     * The record whose wrapper starts at {@code at}: its offset, and the second its {@code "timestamp"} names (any
     * time when it names none).
     */
    private static HeldRecords.Named named(byte[] b, int at) {
        long offset = offsetAt(b, at);
        int i = at + OFFSET.length;
        while (i < b.length && b[i] >= '0' && b[i] <= '9') i++;
        if (i + TIMESTAMP.length < b.length && Arrays.equals(b, i, i + TIMESTAMP.length, TIMESTAMP, 0,
                TIMESTAMP.length)) {
            int start = i + TIMESTAMP.length;
            int end = start;
            while (end < b.length && b[end] != '"') end++;
            try {
                long seconds = Instant.parse(new String(b, start, end - start, StandardCharsets.US_ASCII))
                        .getEpochSecond();
                return new HeldRecords.Named(offset, seconds * 1_000_000L, seconds * 1_000_000L + 999_999L);
            } catch (DateTimeParseException | ArithmeticException e) {
                // not a time this sink or the Rust sink prints: the record names no time
            }
        }
        return new HeldRecords.Named(offset, ANY_EARLIEST, ANY_LATEST);
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
    private static Object json(byte[] b, boolean array) {
        int recordDepth = array ? 1 : 0;
        int depth = 0;
        int first = -1;
        int last = -1;
        for (int i = 0; i < b.length; i++) {
            byte c = b[i];
            if (c == '"') {
                i = endOfString(b, i);
                if (i < 0) return new CannotRead("damaged JSON: a string is not closed");
            } else if (c == '{' || c == '[') {
                if (c == '{' && depth == recordDepth) {
                    if (offsetAt(b, i) < 0) {
                        return new CannotRead("written without include_metadata (no \"offset\" field)");
                    }
                    if (first < 0) first = i;
                    last = i;
                }
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
        }
        return first < 0 ? new CannotRead("holds no records") : new Ends(named(b, first), named(b, last));
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

    private static Object avro(byte[] bytes) {
        GenericDatumReader<GenericRecord> datumReader = new GenericDatumReader<>();
        try (DataFileReader<GenericRecord> reader = new DataFileReader<>(new SeekableByteArrayInput(bytes),
                datumReader)) {
            Schema written = reader.getSchema();
            Schema.Field field = written.getType() == Schema.Type.RECORD ? written.getField(AvroSchemas.OFFSET) : null;
            if (field == null || field.schema().getType() != Schema.Type.LONG) {
                return new CannotRead("written without include_metadata (no " + AvroSchemas.OFFSET + " column)");
            }
            Schema.Field time = written.getField(AvroSchemas.TIMESTAMP);
            boolean timed = time != null && time.schema().getType() == Schema.Type.LONG;
            // Decode the offset and time columns alone: the reader schema keeps only those fields and skips the rest.
            List<Schema.Field> kept = new java.util.ArrayList<>();
            kept.add(new Schema.Field(AvroSchemas.OFFSET, Schema.create(Schema.Type.LONG)));
            if (timed) kept.add(new Schema.Field(AvroSchemas.TIMESTAMP, Schema.create(Schema.Type.LONG)));
            datumReader.setExpected(Schema.createRecord(written.getName(), null, written.getNamespace(), false,
                    kept));
            HeldRecords.Named first = null;
            HeldRecords.Named last = null;
            GenericRecord record = null;
            while (reader.hasNext()) {
                record = reader.next(record);
                long offset = (Long) record.get(0);
                long micros = timed ? (Long) record.get(1) : 0;
                last = timed ? new HeldRecords.Named(offset, micros, micros)
                        : new HeldRecords.Named(offset, ANY_EARLIEST, ANY_LATEST);
                if (first == null) first = last;
            }
            return first == null ? new CannotRead("holds no records") : new Ends(first, last);
        } catch (IOException | RuntimeException e) {
            // AvroRuntimeException mostly, but a damaged block can also fail inside a codec or the decoder.
            return new CannotRead("damaged avro file: " + e.getMessage());
        }
    }

    private static Object parquet(byte[] bytes) {
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
        long earliest = Long.MAX_VALUE;
        long latest = Long.MIN_VALUE;
        boolean timed = true;
        for (RowGroup group : footer.getRow_groups()) {
            if (group.getNum_rows() == 0) continue;
            ColumnMetaData column = column(group, AvroSchemas.OFFSET);
            if (column == null) {
                return new CannotRead("written without include_metadata (no " + AvroSchemas.OFFSET + " column)");
            }
            long[] offsets = minMax(column);
            if (offsets == null) {
                return new CannotRead("the parquet footer has no statistics for " + AvroSchemas.OFFSET);
            }
            first = Math.min(first, offsets[0]);
            last = Math.max(last, offsets[1]);
            ColumnMetaData time = column(group, AvroSchemas.TIMESTAMP);
            long[] times = time == null ? null : minMax(time);
            if (times == null) {
                timed = false;
            } else {
                earliest = Math.min(earliest, times[0]);
                latest = Math.max(latest, times[1]);
            }
        }
        if (first > last) return new CannotRead("holds no records");
        // The footer says when the file's records were written, not which was when: both ends get the whole span.
        if (!timed) {
            earliest = ANY_EARLIEST;
            latest = ANY_LATEST;
        }
        return new Ends(new HeldRecords.Named(first, earliest, latest), new HeldRecords.Named(last, earliest, latest));
    }

    /** An INT64 column chunk's min and max statistics, or null when it has none. */
    private static long[] minMax(ColumnMetaData column) {
        Statistics stats = column.getStatistics();
        // min_value/max_value since format 2.4; older writers set only the (for INT64 identical) min/max.
        byte[] min = stats == null ? null : stats.isSetMin_value() ? stats.getMin_value() : stats.getMin();
        byte[] max = stats == null ? null : stats.isSetMax_value() ? stats.getMax_value() : stats.getMax();
        if (min == null || max == null || min.length != 8 || max.length != 8) return null;
        return new long[] {int64(min), int64(max)};
    }

    private static ColumnMetaData column(RowGroup group, String name) {
        for (ColumnChunk chunk : group.getColumns()) {
            ColumnMetaData meta = chunk.getMeta_data();
            if (meta != null && meta.getPath_in_schema().equals(List.of(name))) return meta;
        }
        return null;
    }

    private static long int64(byte[] littleEndian) {
        return ByteBuffer.wrap(littleEndian).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }
}
