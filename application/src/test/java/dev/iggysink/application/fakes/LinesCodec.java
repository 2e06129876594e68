package dev.iggysink.application.fakes;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.HeldRecords;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.domain.message.SinkRecord;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A minimal codec: each record is {@code <offset>:<payload>\n}; a payload starting with {@code BAD} does not decode.
 * Record bytes exclude the newline, like the real json_lines encoder. {@link #timed()} writes
 * {@code <offset>@<timestamp µs>:<payload>\n} and names its files' first and last record, as json with
 * {@code include_metadata} does; plain lines name none, as raw files.
 */
public final class LinesCodec implements RecordCodec {
    /** Bytes read from either end of an object to find its first or last line. */
    private static final int PEEK = 48;
    private final boolean timed;

    public LinesCodec() {
        this(false);
    }

    private LinesCodec(boolean timed) {
        this.timed = timed;
    }

    public static LinesCodec timed() {
        return new LinesCodec(true);
    }

    /** A file as {@link #timed()} writes it, of the given offsets all at {@code micros}. */
    public static byte[] timedLines(long first, long last, long micros, String payloadPrefix) {
        StringBuilder sb = new StringBuilder();
        for (long o = first; o <= last; o++) sb.append(o).append('@').append(micros).append(':')
                .append(payloadPrefix).append(o).append('\n');
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private record Decoded(SinkRecord source) implements DecodedRecord {
        /** Payloads like {@code city=Hyderabad;n=3} expose their pairs as fields. */
        @Override
        public Optional<String> fieldText(String dottedPath) {
            for (String pair : new String(source.payload(), StandardCharsets.UTF_8).split(";")) {
                int eq = pair.indexOf('=');
                if (eq > 0 && pair.substring(0, eq).equals(dottedPath)) return Optional.of(pair.substring(eq + 1));
            }
            return Optional.empty();
        }
    }

    @Override
    public DecodedRecord decode(SinkRecord record) throws BadRecordException {
        String text = new String(record.payload(), StandardCharsets.UTF_8);
        if (text.startsWith("BAD")) throw new BadRecordException("payload is not valid JSON");
        return new Decoded(record);
    }

    /** Plain and timed lines count a record differently (the timestamp), so their size rules differ. */
    @Override
    public Optional<String> sizeRule() {
        return Optional.of(timed ? "timed-lines" : "lines");
    }

    @Override
    public FileEncoder newFile() {
        return new FileEncoder() {
            private final ByteArrayOutputStream out = new ByteArrayOutputStream();
            private int count;

            @Override
            public long append(DecodedRecord record) {
                String at = timed ? "@" + record.source().timestampMicros() : "";
                byte[] line = (record.source().offset() + at + ":" + new String(record.source().payload(),
                        StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
                out.writeBytes(line);
                out.write('\n');
                count++;
                return line.length;
            }

            @Override
            public int count() {
                return count;
            }

            @Override
            public FileBytes finish() {
                return FileBytes.of(out.toByteArray());
            }
        };
    }

    @Override
    public String extension() {
        return "jsonl";
    }

    @Override
    public String contentType() {
        return "application/x-ndjson";
    }

    /** Parses the offsets written in a file made by this codec. */
    public static long[] offsets(byte[] file) {
        String[] lines = new String(file, StandardCharsets.UTF_8).split("\n");
        long[] out = new long[lines.length];
        for (int i = 0; i < lines.length; i++) out[i] = Long.parseLong(lines[i].split("[@:]", 2)[0]);
        return out;
    }

    /** The first line from the object's first bytes, the last from its last bytes (the whole object if need be). */
    @Override
    public HeldRecords held(ObjectStore store, StoredObject object) throws StoreException {
        if (!timed) return RecordCodec.super.held(store, object);
        String head = new String(store.get(object.key(), 0, PEEK), StandardCharsets.UTF_8);
        long from = Math.max(0, object.size() - PEEK);
        String tail = new String(store.get(object.key(), from, PEEK), StandardCharsets.UTF_8).stripTrailing();
        int newline = tail.lastIndexOf('\n');
        if (newline < 0 && from > 0) {
            tail = new String(store.get(object.key()), StandardCharsets.UTF_8).stripTrailing();
            newline = tail.lastIndexOf('\n');
        }
        HeldRecords.Named first = named(head.lines().findFirst().orElse(""));
        HeldRecords.Named last = named(tail.substring(newline + 1));
        if (first == null || last == null) return new HeldRecords.Unreadable("a line without <offset>@<time>");
        return new HeldRecords.Held(first, last);
    }

    private static HeldRecords.Named named(String line) {
        int at = line.indexOf('@');
        int colon = line.indexOf(':');
        if (at <= 0 || colon < at) return null;
        long micros = Long.parseLong(line.substring(at + 1, colon));
        return new HeldRecords.Named(Long.parseLong(line.substring(0, at)), micros, micros);
    }
}
