package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table sink's {@code max_buffered_bytes} bounds the whole sink: each topic's loop gets its share, so three
 * topics do not hold three budgets of rows on the heap.
 */
class TableSinkBudgetTest {
    // Never opened: the budget is worked out from the file alone.
    private static final String CATALOG = TableSinkFiles.sqliteCatalog("catalog.db", "file:///tmp/lake");

    @TempDir
    Path dir;

    @Test
    void the_budget_is_shared_out_among_the_topics_of_every_stream() throws Exception {
        TableConnectorConfig config = load(TableSinkFiles.text(TableSinkFiles.stream("a", List.of("t1", "t2"), "g")
                + TableSinkFiles.stream("b", List.of("t3"), "g"), "\"ns.events\"",
                CATALOG + "max_buffered_bytes = \"30MiB\"", ""));

        assertThat(config.table().maxBufferedBytes()).isEqualTo(30L << 20);
        assertThat(TableSinkRunner.perTopic(config, 30L << 20).maxBufferedBytes()).isEqualTo(10L << 20);
        assertThat(TableSinkRunner.perTopic(config, 30L << 20)).usingRecursiveComparison()
                .ignoringFields("maxBufferedBytes").isEqualTo(config.table());
    }

    @Test
    void a_budget_the_heap_cannot_hold_is_lowered_and_one_it_can_is_kept() throws Exception {
        long heap = Runtime.getRuntime().maxMemory();
        TableConnectorConfig huge = load(file(Math.max(1L << 40, heap * 4)));
        TableConnectorConfig small = load(file(8L << 20));

        assertThat(TableSinkRunner.budget(huge)).isLessThan(huge.table().maxBufferedBytes()).isLessThan(heap);
        assertThat(TableSinkRunner.budget(small)).isEqualTo(8L << 20);
    }

    private static String file(long budget) {
        return TableSinkFiles.text(TableSinkFiles.stream("a", List.of("t1"), "g"), "\"ns.events\"",
                CATALOG + "max_buffered_bytes = " + budget, "");
    }

    private TableConnectorConfig load(String toml) throws Exception {
        Path file = Files.writeString(dir.resolve("lake_" + toml.hashCode() + ".toml"), toml);
        TableConnectorReader.Result result = TableConnectorReader.load(file, Map.of());
        assertThat(result.errors()).isEmpty();
        return result.connector().orElseThrow();
    }
}
