package dev.iggysink.benchmarks.micro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The table-writer bench measures the same files whichever output a variant writes to. */
class TableWriterHeapTest {
    @TempDir
    Path dir;

    @Test
    void a_file_variant_writes_the_same_bytes_as_memory_and_leaves_no_file_behind() throws Exception {
        TableWriterHeap.Figures heap = TableWriterHeap.measure(TableWriterHeap.Variant.parse("heap"), 4_000, 1024,
                true, 0, dir);
        TableWriterHeap.Figures file = TableWriterHeap.measure(TableWriterHeap.Variant.parse("file"), 4_000, 1024,
                true, 0, dir);

        assertThat(file.rows()).isEqualTo(4_000);
        assertThat(file.files()).as("one file per writer").isEqualTo(8);
        assertThat(file.bytes()).as("4,000 rows of about 950 random letters").isGreaterThan(4_000L * 900 * 5 / 8)
                .isEqualTo(heap.bytes());
        try (var left = Files.list(dir)) {
            assertThat(left).as("files closed and handed on").isEmpty();
        }
    }

    @Test
    void a_smaller_row_group_closes_files_at_the_same_rows_and_a_bad_variant_is_named() throws Exception {
        TableWriterHeap.Figures f = TableWriterHeap.measure(TableWriterHeap.Variant.parse("file-1m"), 4_000, 1024,
                true, 100, dir);

        assertThat(f.files()).as("a writer's file closed every 100 rows").isEqualTo(40);
        assertThat(TableWriterHeap.Variant.parse("file-4m").rowGroup()).isEqualTo(4L << 20);
        assertThatThrownBy(() -> TableWriterHeap.Variant.parse("disk-1m")).hasMessageContaining("disk-1m");
    }
}
