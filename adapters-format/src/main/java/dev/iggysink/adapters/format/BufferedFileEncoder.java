package dev.iggysink.adapters.format;

import dev.iggysink.adapters.format.buffer.BufferDirectory;
import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.adapters.format.buffer.SpillFile;
import dev.iggysink.adapters.format.compress.Compressor;
import dev.iggysink.adapters.format.payload.CodecRecord;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.settings.Compression;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Shared life cycle of the byte-buffer encoders: records are encoded straight into one growable buffer; a record
 * that fails is cut back off; {@link #finish} frames and compresses once. Sizes returned by {@link #append} are the
 * uncompressed record bytes (the Rust rule counts formatted records, and compressed sizes are unknown until the end).
 *
 * <p>With a {@link BufferDirectory}, the buffer is written to a file there whenever it passes {@link #SPILL_AT}
 * between two records, and emptied: the heap then holds at most that much of an open file, however large the file
 * grows. A file that never reaches it stays on the heap (no disk work for small files). A write that fails (a full
 * disk) keeps the bytes on the heap and is tried again at the next record; only the last write, at seal, must
 * succeed, or the file cannot be built (its partition then halts and its records are read again after a restart).
 */
abstract class BufferedFileEncoder implements FileEncoder {
    private static final System.Logger LOG = System.getLogger(BufferedFileEncoder.class.getName());
    /** Bytes of an open file on the heap before they go to disk: buffer chunks of 64, 128 and 256 KiB. */
    static final int SPILL_AT = 256 * 1024;

    /** 64 KiB less the header slack: the chunks that follow are then 128 KiB, 256 KiB ... less it too. */
    final ByteBuf buf = new ByteBuf(64 * 1024 - ByteBuf.HEADER_SLACK);
    private final Compression compression;
    private final BufferDirectory spillTo;
    private SpillFile spill;
    private boolean spillFailed;
    private int count;
    private boolean finished;

    BufferedFileEncoder(Compression compression) {
        this(compression, null);
    }

    BufferedFileEncoder(Compression compression, BufferDirectory spillTo) {
        this.compression = compression;
        this.spillTo = spillTo;
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
            if (spillTo != null && buf.length() >= SPILL_AT) spill();
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

    /** Moves the buffer's bytes to the end of the file on disk; keeps them on the heap if that fails. */
    private void spill() {
        try {
            if (spill == null) spill = SpillFile.create(spillTo);
            spill.append(buf);
            buf.truncate(0);
            if (spillFailed) {
                spillFailed = false;
                LOG.log(System.Logger.Level.INFO, "writing to " + spillTo + " works again");
            }
        } catch (IOException e) {
            if (!spillFailed) {
                LOG.log(System.Logger.Level.WARNING, "cannot write an open file to " + spillTo + " (" + e
                        + "); its bytes stay on the heap (within max_buffered_bytes) and the write is tried again");
            }
            spillFailed = true;
        }
    }

    @Override
    public final FileBytes finish() {
        if (finished) throw new IllegalStateException("file already finished");
        finished = true;
        close();
        if (spill == null) return Compressor.apply(compression, buf);
        FileBytes plain;
        try {
            spill.append(buf);
            buf.release();
            plain = spill.seal();
        } catch (IOException e) {
            spill.discard();
            buf.release();
            throw new UncheckedIOException("cannot write the end of the file to " + spillTo, e);
        }
        return Compressor.applyOnDisk(compression, plain, spillTo);
    }
}
