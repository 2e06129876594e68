package dev.iggysink.application.fakes;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.domain.message.SinkRecord;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * {@link LinesCodec} with scripted faults: an append that throws after writing part of the record (as an
 * OutOfMemoryError in the middle of encoding would), and a finish that throws.
 */
public final class FaultyCodec implements RecordCodec {
    private final LinesCodec lines = new LinesCodec();
    private volatile LongFunction<Throwable> appendFault = offset -> null;
    private volatile Supplier<? extends Throwable> finishFault = () -> null;

    /** Appending the record at an offset for which {@code fault} answers non-null writes half of it, then throws. */
    public FaultyCodec appendFails(LongFunction<Throwable> fault) {
        this.appendFault = fault;
        return this;
    }

    /** Every finish throws what {@code fault} supplies (null: finishes normally). */
    public FaultyCodec finishFails(Supplier<? extends Throwable> fault) {
        this.finishFault = fault;
        return this;
    }

    @Override
    public DecodedRecord decode(SinkRecord record) throws BadRecordException {
        return lines.decode(record);
    }

    @Override
    public FileEncoder newFile() {
        FileEncoder inner = lines.newFile();
        return new FileEncoder() {
            private int count;

            @Override
            public long append(DecodedRecord record) throws BadRecordException {
                Throwable t = appendFault.apply(record.source().offset());
                if (t != null) {
                    inner.append(record); // the bytes are in the buffer: a half-written record as far as the file goes
                    sneakyThrow(t);
                }
                count++;
                return inner.append(record);
            }

            @Override
            public int count() {
                return count;
            }

            @Override
            public FileBytes finish() {
                Throwable t = finishFault.get();
                if (t != null) sneakyThrow(t);
                return inner.finish();
            }
        };
    }

    @Override
    public String extension() {
        return lines.extension();
    }

    @Override
    public String contentType() {
        return lines.contentType();
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }
}
