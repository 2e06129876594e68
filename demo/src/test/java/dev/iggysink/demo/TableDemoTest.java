package dev.iggysink.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.config.TableConnectorReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The table demo's connector file and the check it prints its verdict from. */
class TableDemoTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
            Types.NestedField.required(2, "iggy_partition_id", Types.IntegerType.get()));

    private final TableDemo demo = new TableDemo(5, false, new PrintWriter(new StringWriter()));

    @Test
    void the_connector_file_is_a_table_sink_that_validates_without_errors_or_warnings(@TempDir Path dir)
            throws Exception {
        Path file = Files.writeString(dir.resolve("iceberg_sink.toml"), TableDemo.connectorFile("127.0.0.1:8090",
                dir.resolve("catalog.db"), "http://127.0.0.1:9000", "a", "s"));
        assertThat(TableConnectorReader.isTableSink(file)).isTrue();
        TableConnectorReader.Result result = TableConnectorReader.load(file, Map.of());
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        var sink = result.connector().orElseThrow();
        assertThat(sink.catalog().uri()).isEqualTo("jdbc:sqlite:file:" + dir.resolve("catalog.db"));
        assertThat(sink.table().routing().tables()).containsExactly(TableDemo.TABLE);
        assertThat(sink.creation()).isPresent();
    }

    @Test
    void the_check_passes_on_each_offset_once_up_to_the_offset_map() {
        assertThat(demo.exactlyOnce(rows(0, 1, 2, 3, 4), Map.of(0, 4L))).isNull();
    }

    @Test
    void the_check_fails_on_a_copy_a_gap_a_row_past_the_map_or_a_short_map() {
        assertThat(demo.exactlyOnce(rows(0, 1, 2, 2, 3, 4), Map.of(0, 4L)))
                .isEqualTo("offset 2 of partition 0 is in the table 2 times");
        assertThat(demo.exactlyOnce(rows(0, 1, 3, 4), Map.of(0, 4L)))
                .isEqualTo("offset 2 of partition 0 is in the table 0 times");
        assertThat(demo.exactlyOnce(rows(0, 1, 2, 3, 4, 5), Map.of(0, 4L)))
                .isEqualTo("partition 0 has rows past the offset map's 4");
        assertThat(demo.exactlyOnce(rows(0, 1, 2, 3), Map.of(0, 3L)))
                .isEqualTo("the table's offset map reaches 3 for partition 0, not 4");
        assertThat(demo.exactlyOnce(rows(0, 1, 2, 3, 4), Map.of()))
                .isEqualTo("the table's offset map reaches -1 for partition 0, not 4");
    }

    @Test
    void tables_with_the_filesystem_store_are_refused_with_exit_2() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Demo());
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute("--sink", "tables", "--store", "filesystem")).isEqualTo(2);
        assertThat(err.toString()).startsWith("--sink tables keeps its warehouse in the embedded S3 store");
    }

    private static List<Record> rows(long... offsets) {
        List<Record> rows = new ArrayList<>();
        for (long o : offsets) {
            Record r = GenericRecord.create(SCHEMA);
            r.setField("iggy_offset", o);
            r.setField("iggy_partition_id", 0);
            rows.add(r);
        }
        return rows;
    }
}
