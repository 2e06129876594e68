package dev.iggysink.adapters.iceberg;

import dev.iggysink.application.port.out.TableStore.OffsetRuns;
import java.io.IOException;
import java.util.Arrays;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetValueReader;
import org.apache.iceberg.parquet.ParquetValueReaders;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * The {@code iggy_offset} column of one Parquet data file, read by Iceberg's Parquet reader with a value reader that
 * adds each row's long to an array: no record a row, no field looked up by name (Iceberg's generic reader does both;
 * for the self-audit, which reads every committed row's offset once, that was most of its CPU). Only for a file
 * without delete files (those go through Iceberg's generic reader, which applies them).
 */
final class OffsetColumn {
    private long[] offsets = new long[1024];
    private int count;

    private OffsetColumn() {
    }

    /**
     * The offsets at or past {@code from} of {@code file}'s {@code iggy_offset} ({@code offsetOnly}: the table's schema
     * with that column alone); null when the file holds it in a way this reader does not take (optional, or not a
     * long): then Iceberg's generic reader reads it.
     */
    static OffsetColumn read(InputFile file, Schema offsetOnly, long from) throws IOException {
        OffsetColumn out = new OffsetColumn();
        int id = offsetOnly.columns().get(0).fieldId();
        Function<MessageType, ParquetValueReader<?>> reader = fileSchema -> {
            ColumnDescriptor c = null;
            for (ColumnDescriptor d : fileSchema.getColumns()) {
                org.apache.parquet.schema.Type.ID typeId = d.getPrimitiveType().getId();
                if (d.getPath().length == 1 && typeId != null && typeId.intValue() == id) c = d;
            }
            if (c == null || c.getMaxDefinitionLevel() != 0 || c.getMaxRepetitionLevel() != 0
                    || c.getPrimitiveType().getPrimitiveTypeName() != PrimitiveType.PrimitiveTypeName.INT64) {
                throw new NotTaken();
            }
            return new Values(c, out, from);
        };
        try (CloseableIterable<OffsetColumn> rows = Parquet.read(file).project(offsetOnly).createReaderFunc(reader)
                .build()) {
            for (OffsetColumn ignored : rows) {
                // each row's offset went to out
            }
        } catch (NotTaken e) {
            return null;
        }
        return out;
    }

    /** The file's column is not a required long: for Iceberg's generic reader. */
    private static final class NotTaken extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotTaken() {
            super(null, null, false, false);
        }
    }

    int count() {
        return count;
    }

    OffsetRuns runs() {
        return OffsetRuns.of(offsets, count);
    }

    private void add(long o) {
        if (count == offsets.length) offsets = Arrays.copyOf(offsets, count * 2);
        offsets[count++] = o;
    }

    /** Reads a row's offset into {@code out}; returns {@code out} for every row. */
    private static final class Values extends ParquetValueReaders.UnboxedReader<OffsetColumn> {
        private final OffsetColumn out;
        private final long from;

        Values(ColumnDescriptor column, OffsetColumn out, long from) {
            super(column);
            this.out = out;
            this.from = from;
        }

        @Override
        public OffsetColumn read(OffsetColumn reuse) {
            long o = readLong();
            if (o >= from) out.add(o);
            return out;
        }
    }
}
