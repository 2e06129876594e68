package dev.iggysink.adapters.format;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileBytes;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.settings.Compression;

/**
 * Shared life cycle of the byte-buffer encoders: records are encoded straight into one growable buffer; a record
 * that fails is cut back off; {@link #finish} frames and compresses once. Sizes returned by {@link #append} are the
 * uncompressed record bytes (the Rust rule counts formatted records, and compressed sizes are unknown until the end).
 */
abstract class BufferedFileEncoder implements FileEncoder {
    /** 64 KiB less the header slack: the chunks that follow are then 128 KiB, 256 KiB ... less it too. */
    final ByteBuf buf = new ByteBuf(64 * 1024 - ByteBuf.HEADER_SLACK);
    private final Compression compression;
    private int count;
    private boolean finished;

    BufferedFileEncoder(Compression compression) {
        this.compression = compression;
    }

    @Override
    public final long append(DecodedRecord record) throws BadRecordException {
        if (finished) throw new IllegalStateException("file already finished");
        if (!(record instanceof CodecRecord r)) {
            throw new IllegalArgumentException("record was not decoded by this codec: " + record);
        }
        int mark = buf.length();
        try {
            long size = encode(r);
            count++;
            return size;
        } catch (BadRecordException | RuntimeException e) {
            buf.truncate(mark);
            throw e;
        }
    }

    /** Writes one record (with its separator) and returns its counted size. */
    abstract long encode(CodecRecord record) throws BadRecordException;

    /** Writes the closing frame, if the format has one. */
    void close() {
    }

    @Override
    public final int count() {
        return count;
    }

    @Override
    public final long heapBytes() {
        return finished ? 0 : buf.capacity();
    }

    @Override
    public final FileBytes finish() {
        if (finished) throw new IllegalStateException("file already finished");
        finished = true;
        close();
        return Compressor.apply(compression, buf);
    }
}
