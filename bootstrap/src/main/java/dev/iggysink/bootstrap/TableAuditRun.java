package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import dev.iggysink.adapters.iceberg.IcebergTables;
import dev.iggysink.adapters.iceberg.TableChecks;
import dev.iggysink.adapters.iggy.IggyGroupOffsets;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.table.TableAudit;
import dev.iggysink.domain.message.PartitionRef;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code audit} of an Iceberg table sink: per partition and table, the group's committed offset against the offset
 * map of the table's current snapshot and the offsets its rows hold (gaps, overlaps); offsets in dead letters count as
 * delivered. Reads offsets without joining the group and the table without writing, so it is safe beside running
 * sinks.
 */
final class TableAuditRun {
    private TableAuditRun() {
    }

    static int run(Path config, PrintWriter out, PrintWriter err) {
        TableConnectorReader.Result result = TableConnectorReader.load(config, System.getenv());
        if (result.connector().isEmpty()) return ConfigFileCommand.configErrors(out, result.errors());
        return audit(result.connector().get(), "", out, err);
    }

    /** One line for {@code audit}: how far the table is complete in record time for the topic (issue 44). */
    static String watermark(IcebergTables store, String table, String stream, String topic) throws StoreException {
        java.util.OptionalLong w = store.watermark(table, stream, topic);
        return stream + "/" + topic + " in " + table + ": watermark=" + (w.isEmpty()
                ? "none (not every partition has committed to it yet)"
                : java.time.Instant.EPOCH.plus(w.getAsLong(), java.time.temporal.ChronoUnit.MICROS)
                        + " (every record stamped before it is in the table)");
    }

    /**
     * Audits one table sink; {@code label} starts its verdict line and its failure ("" for a table sink's own file,
     * "table sink KEY: " among the sinks of a runtime config). Returns the exit code.
     */
    static int audit(TableConnectorConfig c, String label, PrintWriter out, PrintWriter err) {
        boolean dynamic = c.table().routing().routeField().isPresent();
        boolean ok = true;
        long lettered = 0;
        java.util.Set<String> unchecked = new java.util.TreeSet<>();
        try {
            for (StreamSettings stream : c.streams()) {
                try (IcebergTables store = IcebergTables.open(TableSinkRunner.catalog(c.catalog()),
                        stream.consumerGroup(), Optional.empty(), c.table().dlqPrefix())) {
                    for (String topic : stream.topics()) {
                        try (IggyGroupOffsets offsets = new IggyGroupOffsets(SinkAssembly.iggy(c.iggy()),
                                stream.stream(), topic, stream.consumerGroup(), SinkAssembly.IGGY_CALL_TIMEOUT)) {
                            List<PartitionRef> partitions = offsets.partitions();
                            // dead-lettered offsets are delivered: no gap, and reported as such
                            String letters = TableAudit.deadLetterPrefix(c.table().dlqPrefix(), stream.stream(),
                                    topic);
                            List<String> deadLetters = store.deadLetterKeys(letters);
                            if (dynamic) {
                                // the sink ignores `tables` here: the tables are those its offset maps name
                                List<String> tables = store.tablesHolding(stream.stream(), topic);
                                out.println(stream.stream() + "/" + topic + " is routed by field '"
                                        + c.table().routing().routeField().get() + "': its tables are those whose"
                                        + " offset map names it: " + (tables.isEmpty() ? "none" : tables));
                                for (TableAudit a : routed(store, tables, partitions, offsets, deadLetters,
                                        letters)) {
                                    ok &= a.ok();
                                    lettered += a.deadLettered().size();
                                    if (a.rows().isEmpty()) unchecked.add(a.table());
                                    out.println(a.line());
                                }
                                for (String table : tables) out.println(watermark(store, table, stream.stream(), topic));
                                continue;
                            }
                            for (String table : c.table().routing().tables()) {
                                Map<PartitionRef, Long> map = store.durableOffsets(table, partitions);
                                Optional<Map<PartitionRef, List<Long>>> rows = store.rowOffsets(table, partitions);
                                for (PartitionRef p : partitions) {
                                    TableAudit a = TableAudit.of(table, p, offsets.committedOffset(p).orElse(-1),
                                            map.getOrDefault(p, -1L), rows.map(r -> r.getOrDefault(p, List.of())),
                                            TableAudit.deadLettered(deadLetters, letters, p.partitionId()));
                                    ok &= a.ok();
                                    lettered += a.deadLettered().size();
                                    if (a.rows().isEmpty()) unchecked.add(table);
                                    out.println(a.line());
                                }
                                out.println(watermark(store, table, stream.stream(), topic));
                            }
                        }
                    }
                }
            }
        } catch (SourceException e) {
            out.flush();
            err.println(label + "audit failed: " + e.getMessage());
            err.flush();
            return ExitCodes.STARTUP;
        } catch (StoreException | RuntimeException e) {
            out.flush();
            err.println(label + "audit failed: the catalog at " + TableChecks.where(TableSinkRunner.catalog(c.catalog()))
                    + ": " + e.getMessage());
            err.flush();
            return ExitCodes.STARTUP;
        }
        out.println(label + verdict(ok, lettered, unchecked));
        out.flush();
        return ok ? ExitCodes.OK : ExitCodes.INCOMPLETE;
    }

    /** The last line: "exactly once" only when every table's rows were read. */
    static String verdict(boolean ok, long lettered, java.util.Set<String> unchecked) {
        if (!ok) return "AUDIT FAILED: see gaps/overlaps above";
        String letters = lettered > 0 ? " or in a dead letter (" + lettered + " offset(s), listed above)" : "";
        if (unchecked.isEmpty()) return "AUDIT OK: every committed offset is in its tables exactly once" + letters;
        return "AUDIT OK: every committed offset is covered by its tables' offset maps" + letters + "; the rows of "
                + String.join(", ", unchecked) + " were not checked (no iggy_offset and iggy_partition_id columns):"
                + " missing or doubled rows there would not show";
    }

    /**
     * Dynamic routing puts each record in one of {@code tables}: per partition, their rows together must hold each
     * committed offset once, and the furthest of their maps must reach the group's offset.
     */
    private static List<TableAudit> routed(IcebergTables store, List<String> tables, List<PartitionRef> partitions,
                                           IggyGroupOffsets offsets, List<String> deadLetters, String letters)
            throws StoreException, SourceException {
        Map<PartitionRef, Long> furthest = new java.util.HashMap<>();
        Map<PartitionRef, List<Long>> rows = new java.util.HashMap<>();
        boolean checked = true;
        for (String table : tables) {
            store.durableOffsets(table, partitions).forEach((p, o) -> furthest.merge(p, o, Math::max));
            Optional<Map<PartitionRef, List<Long>>> held = store.rowOffsets(table, partitions);
            if (held.isEmpty()) checked = false;
            else held.get().forEach((p, o) -> rows.computeIfAbsent(p, k -> new java.util.ArrayList<>()).addAll(o));
        }
        String name = tables.isEmpty() ? "no table" : String.join("+", tables);
        List<TableAudit> out = new java.util.ArrayList<>();
        for (PartitionRef p : partitions) {
            out.add(TableAudit.of(name, p, offsets.committedOffset(p).orElse(-1), furthest.getOrDefault(p, -1L),
                    checked ? Optional.of(rows.getOrDefault(p, List.of())) : Optional.empty(),
                    TableAudit.deadLettered(deadLetters, letters, p.partitionId())));
        }
        return out;
    }
}
