package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table sink keeps the bounds of string columns itself ({@link StringBounds}), with Parquet's statistics of
 * them off: the data file it commits must say in Iceberg's metadata exactly what Iceberg's own writer, with
 * Parquet's statistics on, says of the same rows: null counts, lower and upper bounds, value counts.
 */
class StringBoundsTest {
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);
    private static final long AT = 1_764_583_200_000_000L;
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "msg", Types.StringType.get()),
            Types.NestedField.optional(2, "nulls", Types.StringType.get()),
            Types.NestedField.optional(3, "top", Types.StringType.get()),
            Types.NestedField.optional(4, "n", Types.LongType.get()),
            Types.NestedField.optional(5, "kept", Types.StringType.get()),
            Types.NestedField.optional(6, "full", Types.StringType.get()));

    @TempDir
    Path dir;

    private record Decoded(SinkRecord source) implements DecodedRecord {
        @Override
        public Optional<String> fieldText(String dottedPath) {
            return Optional.empty();
        }
    }

    /** Values that end inside, at and past the 16 characters Iceberg keeps, in one, two, three and four bytes. */
    private static List<String> payloads() {
        String shared = "2026-12-06T09:15:00.123Z INFO [main] dev.iggysink.Service - ";
        String[] msgs = {
            shared + "started", shared + "stopped", shared + "a", "", "é", "日本語のテキスト",
            "exactly sixteen!", "exactly sixteen!!", "fifteen chars..\uD83D\uDE00 and more", "\uD83D\uDE00\uD83D\uDE00 the greatest, cut",
            "zzzzzzzzzzzzzzz\uD83D\uDE00", "zzzzzzzzzzzzzzz\uD83D\uDE00tail", "zzzzzzzzzzzzzzzz", "A", shared};
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String msg = msgs[i % msgs.length] + (i % 7 == 0 ? " #" + i : "");
            // the greatest value of "top" is 17 of the greatest code point: no upper bound can be above it
            String top = i == 150 ? "\\uDBFF\\uDFFF".repeat(17) : "m" + i;
            StringBuilder b = new StringBuilder("{\"msg\":").append(json(msg))
                    .append(",\"top\":\"").append(top).append('"')
                    .append(",\"n\":").append(i)
                    .append(",\"kept\":").append(json("kept value " + (i * 37 % 300)))
                    .append(",\"full\":").append(json(shared + (i * 13 % 300)));
            if (i % 3 == 0) b.append(",\"nulls\":null");
            out.add(b.append('}').toString());
        }
        return out;
    }

    private static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\');
            b.append(c);
        }
        return b.append('"').toString();
    }

    @Test
    void bytes_compare_as_arrays_compare_them_unsigned() {
        java.util.Random random = new java.util.Random(49);
        for (int k = 0; k < 100_000; k++) {
            // short arrays of few byte values, so that long common starts and every length relation occur
            byte[] a = new byte[random.nextInt(40)];
            byte[] b = new byte[random.nextInt(40)];
            byte[] values = {0, 1, 'a', 'b', 0x7F, (byte) 0x80, (byte) 0xC3, (byte) 0xFF};
            for (int i = 0; i < a.length; i++) a[i] = values[random.nextInt(random.nextInt(3) == 0 ? 8 : 2)];
            for (int i = 0; i < b.length; i++) b[i] = i < a.length && random.nextInt(8) > 0 ? a[i] : values[random.nextInt(8)];
            int length = random.nextInt(a.length + 1);
            assertThat(Integer.signum(StringBounds.compare(a, length, b))).as("%s %d %s", java.util.Arrays.toString(a),
                    length, java.util.Arrays.toString(b))
                    .isEqualTo(Integer.signum(java.util.Arrays.compareUnsigned(a, 0, length, b, 0, b.length)));
        }
    }

    @Test
    void the_committed_file_has_the_null_counts_and_bounds_icebergs_own_writer_gives_with_parquet_statistics() throws Exception {
        CatalogSettings settings = LocalWarehouseTest.sqlite(dir.resolve("b.db"), dir.resolve("wh").toString());
        Catalog catalog = IcebergCatalogs.open(settings);
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("lake"));
        // "kept": the owner says whether Parquet keeps its statistics; "full": bounds in full, not cut
        Table created = catalog.createTable(TableIdentifier.parse("lake.bounds"), SCHEMA, PartitionSpec.unpartitioned(),
                Map.of("write.parquet.stats-enabled.column.kept", "true",
                        "write.metadata.metrics.column.full", "full"));

        List<String> payloads = payloads();
        try (IcebergTables store = new IcebergTables(IcebergCatalogs.open(settings), "sink", Optional.empty())) {
            store.open("lake.bounds");
            TableStore.RowFile file = store.newFile("lake.bounds");
            for (int o = 0; o < payloads.size(); o++) file.append(new Decoded(record(o, payloads.get(o))));
            TableStore.Staged staged = file.stage();
            store.commit("lake.bounds", List.of(new TableStore.Append(P0, -1, payloads.size() - 1, List.of(staged))));
        }
        Table table = IcebergCatalogs.open(settings).loadTable(TableIdentifier.parse("lake.bounds"));
        List<DataFile> committed = new ArrayList<>();
        try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
                     table.newScan().includeColumnStats().planFiles()) {
            tasks.forEach(t -> committed.add(t.file()));
        }
        assertThat(committed).hasSize(1);
        DataFile sinks = committed.get(0);

        RowConverter converter = new RowConverter(table.schema());
        List<Record> rows = new ArrayList<>();
        for (int o = 0; o < payloads.size(); o++) rows.add(converter.convert(record(o, payloads.get(o))));
        DataFile icebergs = IcebergTables.writeDataFile(created, table.schema(), table.spec(), null, rows);

        assertThat(sinks.recordCount()).isEqualTo(300);
        assertThat(new TreeMap<>(sinks.valueCounts())).isEqualTo(new TreeMap<>(icebergs.valueCounts()));
        assertThat(new TreeMap<>(sinks.nullValueCounts())).isEqualTo(new TreeMap<>(icebergs.nullValueCounts()))
                .containsEntry(2, 300L).containsEntry(1, 0L);
        assertThat(texts(sinks.lowerBounds())).isEqualTo(texts(icebergs.lowerBounds()));
        assertThat(texts(sinks.upperBounds())).isEqualTo(texts(icebergs.upperBounds()));
        // bounds cut to 16 characters, the greatest raised by one, and none above the greatest code point
        assertThat(texts(sinks.lowerBounds())).containsEntry(1, "");
        String greatest = texts(sinks.upperBounds()).get(1);
        assertThat(greatest).startsWith("\uD83D\uDE00\uD83D\uDE00 the greatest");
        assertThat(greatest.codePointCount(0, greatest.length())).isEqualTo(16);
        assertThat(texts(sinks.upperBounds())).doesNotContainKey(3).doesNotContainKey(2);
        assertThat(texts(sinks.lowerBounds()).get(6)).hasSizeGreaterThan(16);

        // Parquet kept no statistics of the columns whose bounds the sink kept, and kept them for the others
        Map<String, Statistics<?>> stats = footerStatistics(Path.of(java.net.URI.create(sinks.location())));
        assertThat(stats.get("msg").isEmpty()).isTrue();
        assertThat(stats.get("top").isEmpty()).isTrue();
        assertThat(stats.get("kept").hasNonNullValue()).isTrue();
        assertThat(stats.get("full").hasNonNullValue()).isTrue();
        assertThat(stats.get("n").hasNonNullValue()).isTrue();
    }

    private static SinkRecord record(long offset, String json) {
        return new SinkRecord(P0, offset, AT, AT, new MessageId(0, offset + 1), List.of(),
                json.getBytes(StandardCharsets.UTF_8));
    }

    private static Map<Integer, String> texts(Map<Integer, ByteBuffer> bounds) {
        Map<Integer, String> out = new TreeMap<>();
        bounds.forEach((id, b) -> out.put(id, id == 4 ? java.util.Objects.toString(Conversions.fromByteBuffer(
                Types.LongType.get(), b)) : java.util.Objects.toString(Conversions.fromByteBuffer(Types.StringType.get(), b))));
        return out;
    }

    private static Map<String, Statistics<?>> footerStatistics(Path file) throws Exception {
        Map<String, Statistics<?>> out = new TreeMap<>();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            for (ColumnChunkMetaData c : reader.getFooter().getBlocks().get(0).getColumns()) {
                out.put(c.getPath().toDotString(), c.getStatistics());
            }
        }
        return out;
    }
}
