package dev.iggysink.application.fakes;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.domain.message.SinkRecord;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A minimal codec: each record is {@code <offset>:<payload>\n}; a payload starting with {@code BAD} does not decode.
 * Record bytes exclude the newline, like the real json_lines encoder.
 */
public final class LinesCodec implements RecordCodec {

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

    @Override
    public FileEncoder newFile() {
        return new FileEncoder() {
            private final ByteArrayOutputStream out = new ByteArrayOutputStream();
            private int count;

            @Override
            public long append(DecodedRecord record) {
                byte[] line = (record.source().offset() + ":" + new String(record.source().payload(),
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
        for (int i = 0; i < lines.length; i++) out[i] = Long.parseLong(lines[i].substring(0, lines[i].indexOf(':')));
        return out;
    }
}
