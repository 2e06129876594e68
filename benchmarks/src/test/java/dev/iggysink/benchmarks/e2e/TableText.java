package dev.iggysink.benchmarks.e2e;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The summary table {@code e2e-table} prints for results lines, as its lines of text. */
final class TableText {
    private TableText() {
    }

    static List<String> of(String... jsonLines) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ResultsTable.print(new PrintStream(bytes, true, StandardCharsets.UTF_8),
                List.of(jsonLines).stream().map(ResultsTable::parse).toList());
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
