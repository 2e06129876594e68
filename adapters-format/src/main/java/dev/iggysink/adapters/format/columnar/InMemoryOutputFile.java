package dev.iggysink.adapters.format.columnar;

import dev.iggysink.adapters.format.buffer.ByteBuf;
import dev.iggysink.application.file.FileBytes;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet {@link OutputFile} that is a buffer in memory: the sink uploads whole files, so nothing needs a file system
 * (and Hadoop's {@code HadoopOutputFile} must not be on the class path). One file, created once.
 */
final class InMemoryOutputFile implements OutputFile {
    private final ByteBuf bytes = new ByteBuf(256 * 1024);
    private boolean created;

    @Override
    public PositionOutputStream create(long blockSizeHint) {
        if (created) throw new IllegalStateException("in-memory parquet file already created");
        created = true;
        return new PositionOutputStream() {
            @Override
            public long getPos() {
                return bytes.length();
            }

            @Override
            public void write(int b) {
                bytes.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                bytes.write(b, off, len);
            }
        };
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
        return create(blockSizeHint);
    }

    /** No blocks: row groups are not aligned to anything ({@code withMaxPaddingSize} has no effect). */
    @Override
    public boolean supportsBlockSize() {
        return false;
    }

    @Override
    public long defaultBlockSize() {
        return 0;
    }

    @Override
    public String getPath() {
        return "memory";
    }

    /** The file, its chunks handed over as they are. */
    FileBytes take() {
        return bytes.takeFileBytes();
    }

    long size() {
        return bytes.length();
    }

    /** The heap the file's buffer holds, used or not. */
    long capacity() {
        return bytes.capacity();
    }
}
