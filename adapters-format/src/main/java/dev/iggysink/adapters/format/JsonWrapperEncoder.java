package dev.iggysink.adapters.format;

import dev.iggysink.adapters.format.buffer.BufferDirectory;
import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.adapters.format.json.CompactJson;
import dev.iggysink.adapters.format.json.JsonOut;
import dev.iggysink.adapters.format.json.RawJson;
import dev.iggysink.adapters.format.payload.CodecRecord;
import dev.iggysink.adapters.format.payload.Payload;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Base64;

/**
 * json_lines and json_array files: one wrapper object per record, fields in formatter.rs's struct order
 * ({@code offset, timestamp, stream, topic, partition_id} with include_metadata, {@code headers} with include_headers
 * and headers present, then {@code payload}). Lines end with {@code \n}; arrays are {@code [a,b]} ({@code []} when
 * empty, which upstream never uploads).
 */
final class JsonWrapperEncoder extends BufferedFileEncoder {
    private static final byte[] OFFSET = ascii("{\"offset\":");
    private static final byte[] TIMESTAMP = ascii(",\"timestamp\":\"");
    private static final byte[] STREAM = ascii("\",\"stream\":");
    private static final byte[] TOPIC = ascii(",\"topic\":");
    private static final byte[] PARTITION = ascii(",\"partition_id\":");
    private static final byte[] HEADERS = ascii("\"headers\":");
    private static final byte[] PAYLOAD = ascii("\"payload\":");

    private final boolean array;
    private final boolean includeMetadata;
    private final boolean includeHeaders;
    /**
     * What follows the offset for the last record's partition and whole second, {@code ,"timestamp":"…","stream":…,
     * "topic":…,"partition_id":N}: the records of a file mostly share both, and writing it as one piece instead of
     * seven (two of them JSON strings escaped char by char) saves work on every record (figures:
     * docs/adr/0001-hand-written-json-printer.md).
     */
    private byte[] lastMetadata;
    private long lastSeconds;
    private PartitionRef lastPartition;

    JsonWrapperEncoder(boolean array, boolean includeMetadata, boolean includeHeaders, Compression compression) {
        this(array, includeMetadata, includeHeaders, compression, null);
    }

    /** @param spillTo where the open file is written as it grows; null keeps it on the heap */
    JsonWrapperEncoder(boolean array, boolean includeMetadata, boolean includeHeaders, Compression compression,
                       BufferDirectory spillTo) {
        super(compression, spillTo);
        this.array = array;
        this.includeMetadata = includeMetadata;
        this.includeHeaders = includeHeaders;
        if (array) buf.write('[');
    }

    @Override
    long encode(CodecRecord record) throws BadRecordException {
        if (array && count() > 0) buf.write(',');
        int start = buf.length();
        SinkRecord source = record.source();
        boolean open = false;
        if (includeMetadata) {
            buf.write(OFFSET);
            buf.writeLong(source.offset());
            buf.write(metadata(source.partition(), source.timestampMicros()));
            open = true;
        }
        if (includeHeaders && !source.headers().isEmpty()) {
            buf.write(open ? ',' : '{');
            buf.write(HEADERS);
            HeaderJson.write(buf, source.headers());
            open = true;
        }
        buf.write(open ? ',' : '{');
        buf.write(PAYLOAD);
        payload(record.payload());
        buf.write('}');
        long size = buf.length() - start;
        if (!array) buf.write('\n');
        return size;
    }

    private void payload(Payload payload) {
        if (payload instanceof Payload.Printed printed) {
            CompactJson.write(buf, printed.bytes(), printed.plan());
        } else if (payload instanceof Payload.JsonDoc doc) {
            JsonOut.value(buf, doc.value(), JsonOut.Keys.SORTED);
        } else if (payload instanceof Payload.Text text) {
            JsonOut.string(buf, text.text());
        } else if (payload instanceof Payload.Raw raw) {
            Object parsed = RawJson.parseOrNull(raw.bytes());
            if (parsed != null) JsonOut.value(buf, parsed, JsonOut.Keys.SORTED);
            else {
                buf.write('"');
                buf.writeAscii(Base64.getEncoder().encodeToString(raw.bytes()));
                buf.write('"');
            }
        }
    }

    @Override
    void close() {
        if (array) buf.write(']');
    }

    private byte[] metadata(PartitionRef partition, long micros) {
        long seconds = Math.floorDiv(micros, 1_000_000L);
        if (lastMetadata == null || seconds != lastSeconds || !partition.equals(lastPartition)) {
            ByteBuf b = new ByteBuf(128);
            b.write(TIMESTAMP);
            b.writeAscii(rfc3339Seconds(micros));
            b.write(STREAM);
            JsonOut.string(b, partition.stream());
            b.write(TOPIC);
            JsonOut.string(b, partition.topic());
            b.write(PARTITION);
            b.writeLong(partition.partitionId());
            lastMetadata = b.toByteArray();
            lastSeconds = seconds;
            lastPartition = partition;
        }
        return lastMetadata;
    }

    /**
     * chrono's {@code to_rfc3339_opts(Secs, true)} of the Iggy timestamp (µs): UTC, whole seconds, {@code Z}.
     * Beyond chrono's range upstream falls back to the epoch.
     */
    static String rfc3339Seconds(long micros) {
        long seconds = Math.floorDiv(micros, 1_000_000L);
        if (seconds > CHRONO_MAX_SECONDS) return "1970-01-01T00:00:00Z";
        LocalDateTime t = LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC);
        StringBuilder b = new StringBuilder(20);
        int year = t.getYear();
        if (year > 9999) b.append('+');
        pad(b, year, 4).append('-');
        pad(b, t.getMonthValue(), 2).append('-');
        pad(b, t.getDayOfMonth(), 2).append('T');
        pad(b, t.getHour(), 2).append(':');
        pad(b, t.getMinute(), 2).append(':');
        pad(b, t.getSecond(), 2).append('Z');
        return b.toString();
    }

    /** +262143-12-31T23:59:59Z, chrono's NaiveDateTime::MAX. */
    private static final long CHRONO_MAX_SECONDS = 8_210_266_876_799L;

    private static StringBuilder pad(StringBuilder b, int v, int width) {
        String s = Integer.toString(v);
        for (int i = s.length(); i < width; i++) b.append('0');
        return b.append(s);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
