package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
    private static final long AT = 1_764_583_200_000_000L;
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);

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

    /** A record whose JSON is made anew at each ask, as a transformed one's is, and counts the asks. */
    private static final class Counted implements DecodedRecord {
        final SinkRecord source;
        int asked;

        Counted(long offset, String json) {
            this.source = new SinkRecord(P0, offset, AT, AT, new MessageId(0, offset + 1), List.of(),
                    json.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public SinkRecord source() {
            return source;
        }

        @Override
        public Optional<String> fieldText(String dottedPath) {
            return Optional.empty();
        }

        @Override
        public byte[] json() {
            asked++;
            return source.payload().clone();
        }
    }

    @Test
    void a_rows_json_is_made_once_also_for_the_row_that_opens_a_data_files_writer() throws Exception {
        CatalogSettings settings = LocalWarehouseTest.sqlite(dir.resolve("once.db"), dir.resolve("wh").toString());
        Catalog catalog = IcebergCatalogs.open(settings);
        try {
            ((SupportsNamespaces) catalog).createNamespace(Namespace.of("app"));
            Schema schema = new Schema(Types.NestedField.optional(1, "msg", Types.StringType.get()),
                    Types.NestedField.optional(2, "day", Types.StringType.get()));
            // two table partitions: the first row of each opens a writer
            catalog.createTable(TableIdentifier.of("app", "t"), schema,
                    PartitionSpec.builderFor(schema).identity("day").build(), Map.of());
        } finally {
            ((AutoCloseable) catalog).close();
        }
        List<Counted> records = new ArrayList<>();
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink", Optional.empty())) {
            store.open("app.t");
            TableStore.RowFile file = store.newFile("app.t");
            for (int o = 0; o < 4; o++) {
                Counted r = new Counted(o, "{\"msg\":\"m" + o + "\",\"day\":\"d" + (o / 2) + "\"}");
                records.add(r);
                file.append(r);
            }
            file.discard();
        }
        assertThat(records).extracting(r -> r.asked).as("asks for each row's JSON").containsExactly(1, 1, 1, 1);
    }
}
