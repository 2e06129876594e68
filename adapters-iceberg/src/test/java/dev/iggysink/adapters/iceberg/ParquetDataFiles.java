package dev.iggysink.adapters.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;

/**
 * Parquet data files written by the sink's own {@link IcebergTables#writeDataFile} (Iceberg's generic writer)
 * through the table's FileIO, one file per partition of the table's spec, not yet committed.
 */
final class ParquetDataFiles {
    private ParquetDataFiles() {
    }

    static List<DataFile> write(Table table, List<Record> records) {
        // The partition transforms work on Iceberg's internal values (timestamptz as micros), generic records hold
        // Java values (OffsetDateTime): the wrapper converts.
        InternalRecordWrapper internal = new InternalRecordWrapper(table.schema().asStruct());
        Map<PartitionKey, List<Record>> byPartition = new LinkedHashMap<>();
        for (Record record : records) {
            PartitionKey key = new PartitionKey(table.spec(), table.schema());
            key.partition(internal.wrap(record));
            byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(record);
        }
        List<DataFile> files = new ArrayList<>();
        byPartition.forEach((key, partitionRecords) -> files.add(writeOne(table, key, partitionRecords)));
        return files;
    }

    private static DataFile writeOne(Table table, PartitionKey key, List<Record> records) {
        try {
            return IcebergTables.writeDataFile(table, table.schema(), table.spec(),
                    table.spec().isUnpartitioned() ? null : key,
                    records);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
