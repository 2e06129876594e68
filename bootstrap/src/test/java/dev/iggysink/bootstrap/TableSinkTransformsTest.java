package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Rust runtime applies a connector file's {@code [transforms]} before its sink sees a message, the Iceberg sink's
 * too; the table sink's rows must be made from the transformed payload, as the object sink's files are.
 */
class TableSinkTransformsTest {
    @TempDir
    Path dir;

    @Test
    void the_table_sinks_records_are_transformed_before_they_become_rows() throws Exception {
        Path file = Files.writeString(dir.resolve("lake.toml"), TableSinkFiles.text(
                TableSinkFiles.stream("app", List.of("events"), "sink"), "\"ns.events\"",
                TableSinkFiles.sqliteCatalog(dir.resolve("c.db"), dir.resolve("warehouse")), """
                [transforms.delete_fields]
                enabled = true
                fields = ["secret"]
                [transforms.add_fields]
                enabled = true
                fields = [{ key = "source", value = { static = "iggy" } }]
                """));
        TableConnectorReader.Result result = TableConnectorReader.load(file, Map.of());
        assertThat(result.errors()).isEmpty();
        TableConnectorConfig config = result.connector().orElseThrow();

        RecordCodec codec = TableSinkRunner.codec(config, config.streams().get(0));
        byte[] payload = "{\"id\":7,\"secret\":\"hunter2\"}".getBytes(StandardCharsets.UTF_8);
        DecodedRecord decoded = codec.decode(new SinkRecord(new PartitionRef("app", "events", 0), 3, 1, 1,
                MessageId.ZERO, List.of(), payload));

        assertThat(decoded.fieldText("id")).contains("7");
        assertThat(decoded.fieldText("secret")).isEmpty();
        assertThat(decoded.fieldText("source")).contains("iggy");
        // what the table's row is made from
        assertThat(new String(decoded.json(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":7,\"source\":\"iggy\"}");
    }
}
