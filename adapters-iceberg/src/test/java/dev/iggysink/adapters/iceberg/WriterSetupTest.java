package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What building a data file's Parquet writer costs beyond the table's own properties. */
class WriterSetupTest {
    @TempDir
    Path dir;

    /** Records every resource looked up through it, finding them as its parent does. */
    private static final class Spy extends ClassLoader {
        final List<String> looked = Collections.synchronizedList(new ArrayList<>());

        Spy(ClassLoader parent) {
            super(parent);
        }

        @Override
        public URL getResource(String name) {
            looked.add(name);
            return super.getResource(name);
        }
    }

    private static Path localPath(String location) {
        return location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
    }

    @Test
    void parquet_looks_at_a_pages_size_after_as_many_rows_like_the_first_as_fill_a_page_and_never_after_more_than_100() {
        Map<String, String> stats = Map.of("write.parquet.stats-enabled.column.msg", "false");

        assertThat(IcebergTables.withPageCheck(stats, 128 << 10, 1024)).as("rows of 1 KiB: Parquet's 100")
                .isSameAs(stats);
        assertThat(IcebergTables.withPageCheck(stats, 128 << 10, 2048))
                .containsEntry("write.parquet.row-group-check-min-record-count", "64")
                .containsEntry("write.parquet.stats-enabled.column.msg", "false");
        assertThat(IcebergTables.withPageCheck(stats, 128 << 10, 4 << 20))
                .containsEntry("write.parquet.row-group-check-min-record-count", "1");
        assertThat(IcebergTables.withPageCheck(stats, 1 << 20, 0)).isSameAs(stats);
    }

    @Test
    void a_data_writer_parses_no_hadoop_default_resources_and_still_writes_by_the_tables_properties()
            throws Exception {
        CatalogSettings settings = LocalWarehouseTest.sqlite(dir.resolve("catalog.db"),
                dir.resolve("warehouse").toString());
        Catalog catalog = IcebergCatalogs.open(settings);
        try {
            ((SupportsNamespaces) catalog).createNamespace(Namespace.of("app"));
            Schema schema = new Schema(Types.NestedField.optional(1, "msg", Types.StringType.get()));
            Table table = catalog.createTable(TableIdentifier.of("app", "t"), schema, PartitionSpec.unpartitioned(),
                    Map.of("write.parquet.compression-codec", "gzip"));
            Thread thread = Thread.currentThread();
            ClassLoader before = thread.getContextClassLoader();
            Spy spy = new Spy(before);
            DataWriter<Record> writer;
            thread.setContextClassLoader(spy);
            try {
                writer = IcebergTables.dataWriter(table, schema, table.spec(), null, "one");
                GenericRecord row = GenericRecord.create(schema);
                row.set(0, "hello");
                writer.write(row);
                writer.close();
            } finally {
                thread.setContextClassLoader(before);
            }
            assertThat(spy.looked).as("resources looked up while a data writer was built and used")
                    .doesNotContainAnyElementsOf(IcebergTables.HADOOP_DEFAULT_RESOURCES);
            DataFile file = writer.toDataFile();
            assertThat(file.recordCount()).isEqualTo(1);
            try (org.apache.parquet.hadoop.ParquetFileReader reader = org.apache.parquet.hadoop.ParquetFileReader.open(
                    new org.apache.parquet.io.LocalInputFile(localPath(file.location())))) {
                assertThat(reader.getFooter().getBlocks().get(0).getColumns().get(0).getCodec().name())
                        .as("the codec of the table's write.parquet.compression-codec").isEqualTo("GZIP");
            }
        } finally {
            ((AutoCloseable) catalog).close();
        }
    }
}
